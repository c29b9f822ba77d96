package main_test

// A throwaway PKI for the TLS tests: a CA, a server certificate for
// 127.0.0.1 and a client certificate signed by it, and a key of nobody's.

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// pki is the PEM files of a test CA and what it signed.
type pki struct {
	dir                           string
	caCert, serverCert, serverKey string
	otherKey                      string // matches no certificate
	client                        tls.Certificate
	pool                          *x509.CertPool
}

func newPKI(t *testing.T) *pki {
	t.Helper()
	p := &pki{dir: t.TempDir(), pool: x509.NewCertPool()}
	caKey := newKey(t)
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "sstable-flight test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		t.Fatal(err)
	}
	p.pool.AddCert(ca)
	p.caCert = p.write(t, "ca.pem", pemBlock("CERTIFICATE", caDER))

	leaf := func(serial int64, usage x509.ExtKeyUsage) ([]byte, *ecdsa.PrivateKey) {
		key := newKey(t)
		tmpl := &x509.Certificate{SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: "sstable-flight test"},
			NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
			KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{usage},
			IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
		if err != nil {
			t.Fatal(err)
		}
		return der, key
	}
	der, key := leaf(2, x509.ExtKeyUsageServerAuth)
	p.serverCert = p.write(t, "server.pem", pemBlock("CERTIFICATE", der))
	p.serverKey = p.write(t, "server-key.pem", keyPEM(t, key))
	p.otherKey = p.write(t, "other-key.pem", keyPEM(t, newKey(t)))
	der, key = leaf(3, x509.ExtKeyUsageClientAuth)
	p.client, err = tls.X509KeyPair(pemBlock("CERTIFICATE", der), keyPEM(t, key))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func (p *pki) write(t *testing.T, name string, content []byte) string {
	t.Helper()
	path := filepath.Join(p.dir, name)
	if err := os.WriteFile(path, content, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func newKey(t *testing.T) *ecdsa.PrivateKey {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func keyPEM(t *testing.T, k *ecdsa.PrivateKey) []byte {
	t.Helper()
	der, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	return pemBlock("PRIVATE KEY", der)
}

func pemBlock(typ string, der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der})
}

// clientTLS is a client's TLS config trusting the test CA, with the
// client certificate when withCert.
func (p *pki) clientTLS(withCert bool) *tls.Config {
	c := &tls.Config{RootCAs: p.pool, ServerName: "127.0.0.1", MinVersion: tls.VersionTLS12}
	if withCert {
		c.Certificates = []tls.Certificate{p.client}
	}
	return c
}
