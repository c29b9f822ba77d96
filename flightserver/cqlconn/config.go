package cqlconn

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/sstable-flight/sstable-flight/internal/secretfile"
	"github.com/sstable-flight/sstable-flight/snapshot"
)

// Config says how to reach and log in to the local node.
type Config struct {
	// Addr is the node's CQL address, host:port. Only this node is
	// contacted: the server must not send load elsewhere.
	Addr string
	// The CQL user: User as given, or the content of UserFile, read at
	// each connection. Password and PasswordFile likewise. Give at most
	// one of each pair, and a password with a user. None: no credentials
	// (a node that asks for them is refused with ReasonAuth).
	User, UserFile         string
	Password, PasswordFile string
	// TLS, when set, connects over TLS.
	TLS *TLSConfig

	Logger *slog.Logger
	// Listen, when set, is called on each session's driver
	// configuration before the session is created (the ring's change
	// listeners, cluster.Changes.Listen).
	Listen func(*gocql.ClusterConfig)
	// OnUp, when set, runs after each session is established, in the
	// connecting goroutine, before the session is probed; its context
	// ends when the Conn is closed.
	OnUp func(ctx context.Context)

	// MinBackoff and MaxBackoff bound the wait between two failed
	// attempts (defaults DefaultMinBackoff, DefaultMaxBackoff): it
	// doubles from the first to the second, each wait drawn between half
	// and all of its bound. ProbeInterval is how often an established
	// session is checked (default DefaultProbeInterval); LossProbes
	// failed checks in a row lose it.
	MinBackoff, MaxBackoff, ProbeInterval time.Duration
	// Timeout bounds one query (default DefaultTimeout), ConnectTimeout
	// one connection's dial and handshake (default
	// DefaultConnectTimeout).
	Timeout, ConnectTimeout time.Duration

	host string
	port int
}

// TLSConfig is the client side of CQL's client_encryption_options.
type TLSConfig struct {
	// CA is a PEM bundle the node's certificate must chain to; empty:
	// the system's roots.
	CA string
	// Cert and Key are a client certificate (chain) and its key, for a
	// node with require_client_auth; both or neither.
	Cert, Key string
	// ServerName is the name the node's certificate is verified for
	// (and sent as SNI); empty: the host of Addr, which for a pod is an
	// IP its certificate rarely names.
	ServerName string
}

// Defaults of Config.
const (
	DefaultMinBackoff     = time.Second
	DefaultMaxBackoff     = 30 * time.Second
	DefaultProbeInterval  = 10 * time.Second
	DefaultTimeout        = 10 * time.Second
	DefaultConnectTimeout = 5 * time.Second
	// LossProbes failed probes in a row lose a session: one slow answer
	// on a loaded node is not a loss.
	LossProbes = 2
)

// ConfigError is a Config value that cannot work; Field names it as
// the Config does, so the command can name its flag. It is the one
// ConfigError type of the server's Configs (snapshot's).
type ConfigError = snapshot.ConfigError

// resolve applies the defaults and checks what can be checked before
// the node is up: the address, the pairs of options, and that every file
// named can be read and holds what it should (a security option that
// cannot take effect refuses to start, never degrades quietly).
func (c *Config) resolve() error {
	host, port, err := net.SplitHostPort(c.Addr)
	if err != nil {
		return &ConfigError{Field: "Addr", Value: strconv.Quote(c.Addr), Reason: err.Error()}
	}
	if c.port, err = strconv.Atoi(port); err != nil || c.port <= 0 || c.port > 65535 {
		return &ConfigError{Field: "Addr", Value: strconv.Quote(c.Addr), Reason: "not a port: " + port}
	}
	c.host = host
	switch {
	case c.User != "" && c.UserFile != "":
		return &ConfigError{Field: "UserFile", Value: strconv.Quote(c.UserFile), Reason: "and a user given too: give the user one way"}
	case c.Password != "" && c.PasswordFile != "":
		return &ConfigError{Field: "PasswordFile", Value: strconv.Quote(c.PasswordFile), Reason: "and a password given too: give the password one way"}
	case c.hasUser() && !c.hasPassword():
		return &ConfigError{Field: "User", Reason: "a user without a password: give the password too"}
	case !c.hasUser() && c.hasPassword():
		return &ConfigError{Field: "Password", Reason: "a password without a user: give the user too"}
	}
	if _, _, err := c.credentials(); err != nil {
		var fe *fileError
		if errors.As(err, &fe) {
			return &ConfigError{Field: fe.field, Value: strconv.Quote(fe.path), Reason: fe.err.Error()}
		}
		return err
	}
	if t := c.TLS; t != nil {
		if (t.Cert == "") != (t.Key == "") {
			return &ConfigError{Field: "TLS.Cert", Reason: "a client certificate and its key go together: give both or neither"}
		}
		if _, err := t.load(); err != nil {
			var fe *fileError
			if errors.As(err, &fe) {
				return &ConfigError{Field: fe.field, Value: strconv.Quote(fe.path), Reason: fe.err.Error()}
			}
			return err
		}
	}
	setDefault(&c.MinBackoff, DefaultMinBackoff)
	setDefault(&c.MaxBackoff, DefaultMaxBackoff)
	setDefault(&c.ProbeInterval, DefaultProbeInterval)
	setDefault(&c.Timeout, DefaultTimeout)
	setDefault(&c.ConnectTimeout, DefaultConnectTimeout)
	if c.MaxBackoff < c.MinBackoff {
		c.MaxBackoff = c.MinBackoff
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return nil
}

func setDefault(d *time.Duration, def time.Duration) {
	if *d <= 0 {
		*d = def
	}
}

func (c *Config) hasUser() bool     { return c.User != "" || c.UserFile != "" }
func (c *Config) hasPassword() bool { return c.Password != "" || c.PasswordFile != "" }

// credentials are the user and password as of now: the files are read
// each time, so that a rotated Secret is used by the next connection.
// Empty without credentials.
func (c *Config) credentials() (user, password string, err error) {
	user, password = c.User, c.Password
	if c.UserFile != "" {
		if user, err = secretfile.Text(c.UserFile); err != nil {
			return "", "", &fileError{field: "UserFile", path: c.UserFile, err: err}
		}
	}
	if c.PasswordFile != "" {
		if password, err = secretfile.Text(c.PasswordFile); err != nil {
			return "", "", &fileError{field: "PasswordFile", path: c.PasswordFile, err: err}
		}
	}
	return user, password, nil
}

// load builds the TLS configuration of one session: the CA bundle read
// now, the client certificate read at each handshake (a renewed one is
// used by the next connection) and checked now.
func (t *TLSConfig) load() (*tls.Config, error) {
	tc := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: t.ServerName}
	if t.CA != "" {
		pool, err := secretfile.CAPool(t.CA)
		if err != nil {
			return nil, &fileError{field: "TLS.CA", path: t.CA, err: err}
		}
		tc.RootCAs = pool
	}
	if t.Cert != "" {
		if _, err := t.keyPair(); err != nil {
			return nil, err
		}
		tc.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) {
			return t.keyPair()
		}
	}
	return tc, nil
}

func (t *TLSConfig) keyPair() (*tls.Certificate, error) {
	cert, err := secretfile.KeyPair(t.Cert, t.Key)
	if err != nil {
		field, path := "TLS.Cert", t.Cert
		var kp *secretfile.KeyPairError
		if errors.As(err, &kp) && kp.IsKey {
			field, path = "TLS.Key", t.Key
		}
		return nil, &fileError{field: field, path: path, err: err}
	}
	return &cert, nil
}

// fileError is a credentials or TLS file that cannot be used, named by
// its Config field.
type fileError struct {
	field, path string
	err         error
}

func (e *fileError) Error() string {
	what := map[string]string{
		"UserFile": "the CQL user file", "PasswordFile": "the CQL password file",
		"TLS.CA": "the CQL TLS CA file", "TLS.Cert": "the CQL TLS client certificate", "TLS.Key": "the CQL TLS client key",
	}[e.field]
	return fmt.Sprintf("%s %s: %v", what, e.path, e.err)
}

func (e *fileError) Unwrap() error { return e.err }
