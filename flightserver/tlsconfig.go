package flightserver

import (
	"crypto/tls"
	"errors"
	"strconv"

	"github.com/sstable-flight/sstable-flight/internal/secretfile"
)

// The TLS material, loaded and checked by resolve before anything
// starts: a certificate, key or client CA that cannot give what its
// option promises refuses the Config, never leaves a listener in
// plaintext or unchecked (package pemfile reads and checks the files).

// resolveTLS loads TLSCert and TLSKey, and ClientCA when given, into
// c.tlsConf. resolve has already refused a certificate without its key,
// a key without its certificate and a client CA without TLS.
func (c *Config) resolveTLS() error {
	if c.TLSCert == "" {
		return nil
	}
	cert, err := secretfile.KeyPair(c.TLSCert, c.TLSKey)
	if err != nil {
		field, path := "TLSCert", c.TLSCert
		var kp *secretfile.KeyPairError
		if errors.As(err, &kp) && kp.IsKey {
			field, path = "TLSKey", c.TLSKey
		}
		return &ConfigError{Field: field, Value: strconv.Quote(path), Reason: err.Error()}
	}
	tc := &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	if c.ClientCA != "" {
		pool, err := secretfile.CAPool(c.ClientCA)
		if err != nil {
			return &ConfigError{Field: "ClientCA", Value: strconv.Quote(c.ClientCA), Reason: err.Error()}
		}
		tc.ClientCAs, tc.ClientAuth = pool, tls.RequireAndVerifyClientCert
	}
	c.tlsConf = tc
	return nil
}
