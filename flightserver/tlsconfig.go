package flightserver

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"io"
	"os"
	"strconv"
)

// The TLS material, loaded and checked by resolve before anything
// starts: a certificate, key or client CA that cannot give what its
// option promises refuses the Config, never leaves a listener in
// plaintext or unchecked.

// maxPEMFileBytes caps the read of a certificate, key or CA file: a
// bundle of a few hundred certificates fits; a path mistyped onto a huge
// file or a device is not read whole.
const maxPEMFileBytes = 1 << 20

// resolveTLS loads TLSCert and TLSKey, and ClientCA when given, into
// c.tlsConf. resolve has already refused a certificate without its key,
// a key without its certificate and a client CA without TLS.
func (c *Config) resolveTLS() error {
	if c.TLSCert == "" {
		return nil
	}
	certPEM, err := readPEMFile(c.TLSCert)
	if err != nil {
		return &ConfigError{Field: "TLSCert", Value: strconv.Quote(c.TLSCert), Reason: err.Error()}
	}
	keyPEM, err := readPEMFile(c.TLSKey)
	if err != nil {
		return &ConfigError{Field: "TLSKey", Value: strconv.Quote(c.TLSKey), Reason: err.Error()}
	}
	if !hasBlock(certPEM, "CERTIFICATE") {
		return &ConfigError{Field: "TLSCert", Value: strconv.Quote(c.TLSCert), Reason: "holds no certificate (no PEM CERTIFICATE block)"}
	}
	if err := checkPrivateKey(keyPEM); err != nil {
		return &ConfigError{Field: "TLSKey", Value: strconv.Quote(c.TLSKey), Reason: err.Error()}
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		// Both parse (checked above): the key is another's.
		return &ConfigError{Field: "TLSKey", Value: strconv.Quote(c.TLSKey), Reason: "not the private key of the certificate: " + err.Error()}
	}
	tc := &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	if c.ClientCA != "" {
		pool, err := readCAFile(c.ClientCA)
		if err != nil {
			return &ConfigError{Field: "ClientCA", Value: strconv.Quote(c.ClientCA), Reason: err.Error()}
		}
		tc.ClientCAs, tc.ClientAuth = pool, tls.RequireAndVerifyClientCert
	}
	c.tlsConf = tc
	return nil
}

// readPEMFile reads a PEM file, capped at maxPEMFileBytes.
func readPEMFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err // "open <path>: ..."
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxPEMFileBytes+1))
	if err != nil {
		return nil, err // "read <path>: ..."
	}
	if len(b) > maxPEMFileBytes {
		return nil, fmt.Errorf("larger than %d bytes, not a PEM file", maxPEMFileBytes)
	}
	return b, nil
}

// readCAFile reads the CAs client certificates must chain to. Every PEM
// block must be a certificate that parses: a CA file with none would
// trust no client, one with a private key in it is the wrong file (the
// server's own bundle, say), whose certificate would then be the CA
// the operator did not mean, and one that does not parse would be
// silently left out of the pool by x509.CertPool.AppendCertsFromPEM.
func readCAFile(path string) (*x509.CertPool, error) {
	rest, err := readPEMFile(path)
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
		return nil, fmt.Errorf("holds no certificate (no PEM CERTIFICATE block)")
	}
	return pool, nil
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
			return fmt.Errorf("holds no private key (no PEM PRIVATE KEY block)")
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
