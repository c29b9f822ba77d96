package main_test

// A throwaway PKI for the TLS tests: a CA, a server certificate for
// 127.0.0.1 and a client certificate signed by it, and a key of nobody's.

import (
	"crypto/tls"
	"crypto/x509"
	"net"
	"testing"

	"github.com/sstable-flight/sstable-flight/internal/testkit/testpki"
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
	ca := testpki.NewCA(t, "sstable-flight test CA")
	p := &pki{dir: t.TempDir(), pool: ca.Pool}
	p.caCert = p.write(t, "ca.pem", testpki.PEMBlock("CERTIFICATE", ca.DER))
	der, key := ca.Leaf(t, 2, x509.ExtKeyUsageServerAuth, net.IPv4(127, 0, 0, 1))
	p.serverCert = p.write(t, "server.pem", testpki.PEMBlock("CERTIFICATE", der))
	p.serverKey = p.write(t, "server-key.pem", testpki.KeyPEM(t, key))
	p.otherKey = p.write(t, "other-key.pem", testpki.KeyPEM(t, testpki.NewKey(t)))
	der, key = ca.Leaf(t, 3, x509.ExtKeyUsageClientAuth, net.IPv4(127, 0, 0, 1))
	var err error
	p.client, err = tls.X509KeyPair(testpki.PEMBlock("CERTIFICATE", der), testpki.KeyPEM(t, key))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func (p *pki) write(t *testing.T, name string, content []byte) string {
	return testpki.Write(t, p.dir, name, content)
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
