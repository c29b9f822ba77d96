package auth

import (
	"crypto/tls"
	"errors"
	"strconv"

	"github.com/sstable-flight/sstable-flight/internal/secretfile"
	"github.com/sstable-flight/sstable-flight/snapshot"
)

// The TLS material, loaded and checked by resolve before anything
// starts: a certificate, key or client CA that cannot give what its
// option promises refuses the Config, never leaves a listener in
// plaintext or unchecked (package pemfile reads and checks the files).

// ServerTLS loads cert and key, and clientCA when given, into the
// server's TLS configuration (Config.TLSCert, TLSKey, ClientCA, which
// the errors name); nil without a certificate. The caller has already
// refused a certificate without its key, a key without its certificate
// and a client CA without TLS.
func ServerTLS(certFile, keyFile, clientCA string) (*tls.Config, error) {
	if certFile == "" {
		return nil, nil
	}
	cert, err := secretfile.KeyPair(certFile, keyFile)
	if err != nil {
		field, path := "TLSCert", certFile
		var kp *secretfile.KeyPairError
		if errors.As(err, &kp) && kp.IsKey {
			field, path = "TLSKey", keyFile
		}
		return nil, &snapshot.ConfigError{Field: field, Value: strconv.Quote(path), Reason: err.Error()}
	}
	tc := &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	if clientCA != "" {
		pool, err := secretfile.CAPool(clientCA)
		if err != nil {
			return nil, &snapshot.ConfigError{Field: "ClientCA", Value: strconv.Quote(clientCA), Reason: err.Error()}
		}
		tc.ClientCAs, tc.ClientAuth = pool, tls.RequireAndVerifyClientCert
	}
	return tc, nil
}
