package ringtest

import (
	"crypto/x509"
	"net"
	"testing"

	"github.com/sstable-flight/sstable-flight/internal/testkit/testpki"
)

// PKI is a throwaway private CA and one server certificate it signed for
// the three node addresses (127.0.0.1-3), as PEM files.
type PKI struct {
	CA, Cert, Key string
}

// NewPKI writes a CA and a server certificate into a temporary directory.
func NewPKI(t *testing.T) *PKI {
	t.Helper()
	dir := t.TempDir()
	ca := testpki.NewCA(t, "ringtest CA")
	der, key := ca.Leaf(t, 2, x509.ExtKeyUsageServerAuth, net.IPv4(127, 0, 0, 1), net.IPv4(127, 0, 0, 2), net.IPv4(127, 0, 0, 3))
	return &PKI{CA: testpki.Write(t, dir, "ca.pem", testpki.PEMBlock("CERTIFICATE", ca.DER)),
		Cert: testpki.Write(t, dir, "server.pem", testpki.PEMBlock("CERTIFICATE", der)),
		Key:  testpki.Write(t, dir, "server-key.pem", testpki.KeyPEM(t, key))}
}
