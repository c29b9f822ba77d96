package secretfile

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/sstable-flight/sstable-flight/internal/safefile"
)

// MaxBytes caps the read of a certificate, key or CA file: a bundle of
// a few hundred certificates fits; a path mistyped onto a huge file or a
// device is not read whole.
const MaxBytes = 1 << 20

// Read reads a file of at most max bytes. It follows symbolic links (a
// Kubernetes Secret volume's files are links into its current version)
// but reads only a regular file: a FIFO or a device would block or never
// end. Errors from the system name the path; the others do not (the
// caller names the file as its option).
func Read(path string, max int64) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err // "stat <path>: ..."
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("is %s, not a regular file", safefile.Kind(st.Mode()))
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err // "open <path>: ..."
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err // "read <path>: ..."
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("larger than %d bytes", max)
	}
	return b, nil
}

// MaxTextBytes caps the read of a one-line secret (a user name, a
// password).
const MaxTextBytes = 64 << 10

// Text reads a one-line secret, its surrounding whitespace (the newline
// an editor or `echo` adds) trimmed. A file that holds nothing else is
// an error, never an empty secret.
func Text(path string) (string, error) {
	b, err := Read(path, MaxTextBytes)
	if err != nil {
		return "", err
	}
	v := strings.TrimSpace(string(b))
	if v == "" {
		return "", errors.New("holds nothing (empty or only whitespace)")
	}
	return v, nil
}

// CAPool reads a CA bundle. Every PEM block must be a certificate that
// parses: a file with none would trust nothing, one with a private key
// in it is the wrong file (a certificate's own bundle, say), whose
// certificate would then be a CA the operator did not mean, and one that
// does not parse would be silently left out by
// x509.CertPool.AppendCertsFromPEM.
func CAPool(path string) (*x509.CertPool, error) {
	rest, err := Read(path, MaxBytes)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	n := 0
	for {
		var block *pem.Block
		if block, rest = pem.Decode(rest); block == nil {
			break
		}
		n++
		if block.Type != "CERTIFICATE" {
			return nil, fmt.Errorf("PEM block %d is a %s, not a CERTIFICATE: a CA file holds certificates only", n, block.Type)
		}
		cert, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("parse certificate %d: %w", n, err)
		}
		pool.AddCert(cert)
	}
	if n == 0 {
		return nil, errors.New("holds no certificate (no PEM CERTIFICATE block)")
	}
	return pool, nil
}

// KeyPairError says which file of a certificate and key pair is wrong.
type KeyPairError struct {
	Path  string
	IsKey bool // the key file; else the certificate file
	Err   error
}

func (e *KeyPairError) Error() string { return e.Err.Error() }
func (e *KeyPairError) Unwrap() error { return e.Err }

// KeyPair reads a certificate (chain) and its private key. Files that
// cannot be read, a certificate file without a certificate, a key file
// whose key does not parse, and a key that is not the certificate's are
// each a *KeyPairError naming the file at fault.
func KeyPair(certPath, keyPath string) (tls.Certificate, error) {
	bad := func(isKey bool, err error) (tls.Certificate, error) {
		path := certPath
		if isKey {
			path = keyPath
		}
		return tls.Certificate{}, &KeyPairError{Path: path, IsKey: isKey, Err: err}
	}
	certPEM, err := Read(certPath, MaxBytes)
	if err != nil {
		return bad(false, err)
	}
	keyPEM, err := Read(keyPath, MaxBytes)
	if err != nil {
		return bad(true, err)
	}
	if !hasBlock(certPEM, "CERTIFICATE") {
		return bad(false, errors.New("holds no certificate (no PEM CERTIFICATE block)"))
	}
	if err := checkPrivateKey(keyPEM); err != nil {
		return bad(true, err)
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		// Both parse (checked above): the key is another's.
		return bad(true, fmt.Errorf("not the private key of the certificate: %w", err))
	}
	return cert, nil
}

// hasBlock reports whether b holds a PEM block of the type.
func hasBlock(b []byte, typ string) bool {
	for {
		var block *pem.Block
		if block, b = pem.Decode(b); block == nil {
			return false
		}
		if block.Type == typ {
			return true
		}
	}
}

// checkPrivateKey requires b's first private key block to parse, in
// any encoding tls.X509KeyPair reads, so that a key that does not pair
// with its certificate is told from one that is not a key.
func checkPrivateKey(b []byte) error {
	for {
		var block *pem.Block
		if block, b = pem.Decode(b); block == nil {
			return errors.New("holds no private key (no PEM PRIVATE KEY block)")
		}
		var err error
		switch block.Type {
		case "PRIVATE KEY":
			_, err = x509.ParsePKCS8PrivateKey(block.Bytes)
		case "EC PRIVATE KEY":
			_, err = x509.ParseECPrivateKey(block.Bytes)
		case "RSA PRIVATE KEY":
			_, err = x509.ParsePKCS1PrivateKey(block.Bytes)
		default:
			continue
		}
		if err != nil {
			return fmt.Errorf("parse private key: %w", err)
		}
		return nil
	}
}
