package cassandratest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
)

// A node's security switches: PasswordAuthenticator, and CQL over TLS
// (client_encryption_options), as operators run Cassandra.

// Auth turns on PasswordAuthenticator, CassandraAuthorizer and
// CassandraRoleManager. The default superuser (SuperUser, SuperPassword)
// is what the harness logs in with; Role, when set, is a role created
// once the node is up, with LOGIN and Password but no superuser and no
// grants: what a reader of system_schema and the ring needs, as
// operators give a client role.
type Auth struct {
	Role     string `json:"role,omitempty"`
	Password string `json:"password,omitempty"`
}

// The default superuser Cassandra creates on a node with authentication.
const (
	SuperUser     = "cassandra"
	SuperPassword = "cassandra"
)

// ClientTLS turns on client_encryption_options (TLS only on the CQL
// port, no plaintext) with a CA and certificates the harness generates
// in the node's directory. The node's certificate names TLSServerName
// and no IP address: a client that dials the node's address must verify
// the name (as a pod dialling its node by IP must).
type ClientTLS struct {
	// RequireClientAuth makes the node require a client certificate
	// signed by the CA.
	RequireClientAuth bool
}

// TLSServerName is the one name of a harness node's certificate.
const TLSServerName = "node.cassandra.test"

// TLSFiles are a TLS node's PEM files, for its clients.
type TLSFiles struct {
	// CA is the CA certificate the node's certificate chains to.
	CA string `json:"ca"`
	// ClientCert and ClientKey are a client certificate the CA signed
	// and its key.
	ClientCert string `json:"client_cert"`
	ClientKey  string `json:"client_key"`
	// RequireClientAuth is the node's require_client_auth.
	RequireClientAuth bool   `json:"require_client_auth"`
	keystore          string // the node's key and certificate (PEM)
}

// The files of a node's TLS, in Dir/tls.
const (
	tlsDir          = "tls"
	caFile          = "ca.pem"
	keystoreFile    = "node-keystore.pem"
	clientCertFile  = "client.pem"
	clientKeyFile   = "client-key.pem"
	certificateDays = 30
)

// PrepareTLS returns the TLS files of a node with ClientTLS in dir,
// generating them (a CA, the node's certificate for TLSServerName, a
// client certificate, in dir/tls) unless they are there: Start calls
// it, and a test that starts a client before the node calls it first
// to learn the CA and client files.
func PrepareTLS(dir string, opt ClientTLS) (*TLSFiles, error) {
	d := filepath.Join(dir, tlsDir)
	f := &TLSFiles{CA: filepath.Join(d, caFile), ClientCert: filepath.Join(d, clientCertFile), ClientKey: filepath.Join(d, clientKeyFile),
		RequireClientAuth: opt.RequireClientAuth, keystore: filepath.Join(d, keystoreFile)}
	have := 0
	for _, p := range []string{f.CA, f.ClientCert, f.ClientKey, f.keystore} {
		if _, err := os.Stat(p); err == nil {
			have++
		}
	}
	if have == 4 {
		return f, nil
	}
	return f, writeTLS(f)
}

// writeTLS generates the files of f.
func writeTLS(f *TLSFiles) error {
	if err := os.MkdirAll(filepath.Dir(f.CA), 0o700); err != nil {
		return fmt.Errorf("create tls dir: %w", err)
	}
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return fmt.Errorf("generate CA key: %w", err)
	}
	now := time.Now()
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "cassandratest CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.AddDate(0, 0, certificateDays),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return fmt.Errorf("create CA certificate: %w", err)
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		return fmt.Errorf("parse CA certificate: %w", err)
	}
	leaf := func(serial int64, usage x509.ExtKeyUsage, name string, dns []string) (certPEM, keyPEM []byte, err error) {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return nil, nil, fmt.Errorf("generate %s key: %w", name, err)
		}
		tmpl := &x509.Certificate{SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: name},
			NotBefore: now.Add(-time.Hour), NotAfter: now.AddDate(0, 0, certificateDays),
			KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{usage}, DNSNames: dns}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
		if err != nil {
			return nil, nil, fmt.Errorf("create %s certificate: %w", name, err)
		}
		// NB: PKCS #8, the only private key encoding Cassandra's
		// PEMBasedSslContextFactory reads.
		k, err := x509.MarshalPKCS8PrivateKey(key)
		if err != nil {
			return nil, nil, fmt.Errorf("encode %s key: %w", name, err)
		}
		return pemBlock("CERTIFICATE", der), pemBlock("PRIVATE KEY", k), nil
	}
	nodeCert, nodeKey, err := leaf(2, x509.ExtKeyUsageServerAuth, TLSServerName, []string{TLSServerName})
	if err != nil {
		return err
	}
	clientCert, clientKey, err := leaf(3, x509.ExtKeyUsageClientAuth, "cassandratest client", nil)
	if err != nil {
		return err
	}
	for path, content := range map[string][]byte{
		f.CA: pemBlock("CERTIFICATE", caDER),
		// The keystore: the node's key, then its certificate chain.
		f.keystore:   append(nodeKey, nodeCert...),
		f.ClientCert: clientCert,
		f.ClientKey:  clientKey,
	} {
		if err := os.WriteFile(path, content, 0o600); err != nil {
			return fmt.Errorf("write %s: %w", filepath.Base(path), err)
		}
	}
	return nil
}

func pemBlock(typ string, der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der})
}

// securityYAML is the cassandra.yaml of the switches on.
func securityYAML(auth bool, t *TLSFiles) string {
	var b strings.Builder
	if auth {
		b.WriteString(`authenticator:
  class_name: org.apache.cassandra.auth.PasswordAuthenticator
authorizer:
  class_name: org.apache.cassandra.auth.CassandraAuthorizer
role_manager:
  class_name: org.apache.cassandra.auth.CassandraRoleManager
`)
	}
	if t != nil {
		fmt.Fprintf(&b, `client_encryption_options:
  enabled: true
  optional: false
  ssl_context_factory:
    class_name: org.apache.cassandra.security.PEMBasedSslContextFactory
  keystore: %s
  truststore: %s
  require_client_auth: %t
`, t.keystore, t.CA, t.RequireClientAuth)
	}
	return b.String()
}

// loadTLS reads a TLS node's CA and client certificate into the
// configuration its clients here use: verified against the node's CA
// for TLSServerName, with the client certificate.
func (n *Node) loadTLS() error {
	t := n.TLS
	if t == nil {
		return nil
	}
	pool := x509.NewCertPool()
	caPEM, err := os.ReadFile(t.CA)
	if err != nil {
		return fmt.Errorf("read node CA: %w", err)
	}
	if !pool.AppendCertsFromPEM(caPEM) {
		return fmt.Errorf("read node CA %s: no certificate", t.CA)
	}
	cert, err := tls.LoadX509KeyPair(t.ClientCert, t.ClientKey)
	if err != nil {
		return fmt.Errorf("read client certificate: %w", err)
	}
	n.tlsConf = &tls.Config{MinVersion: tls.VersionTLS12, RootCAs: pool, ServerName: TLSServerName, Certificates: []tls.Certificate{cert}}
	return nil
}

// secure adds the node's switches to a driver configuration: the
// superuser's credentials, and TLS (loadTLS).
func (n *Node) secure(c *gocql.ClusterConfig) {
	if n.Auth != nil {
		c.Authenticator = gocql.PasswordAuthenticator{Username: SuperUser, Password: SuperPassword}
	}
	if n.tlsConf != nil {
		c.SslOpts = &gocql.SslOptions{EnableHostVerification: true, Config: n.tlsConf.Clone()}
	}
}
