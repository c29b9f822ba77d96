package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/sstable-flight/sstable-flight/flightserver/cqlconn"
)

// The environment variables that may hold the CQL user and password
// instead of --cassandra-user and --cassandra-password-file.
const (
	cqlUserEnv     = "SSTF_CASSANDRA_USER"
	cqlPasswordEnv = "SSTF_CASSANDRA_PASSWORD"
)

// cassandraFlags are the flags of the connection to the local node
// (package cqlconn): its address, credentials and TLS.
type cassandraFlags struct {
	addr, user, userFile, passwordFile string
	tls                                bool
	tlsCA, tlsCert, tlsKey, tlsName    string
}

func registerCassandraFlags(fs *flag.FlagSet) *cassandraFlags {
	c := &cassandraFlags{}
	fs.StringVar(&c.addr, "cassandra", "", "local Cassandra node HOST:PORT (CQL) to read schemas (and with --peers, --peer-port or --kube-service the ring) from, connecting in the background until it answers; without it schema.cql files, else SSTable headers")
	fs.StringVar(&c.user, "cassandra-user", "", fmt.Sprintf("CQL user (or env %s, or --cassandra-user-file)", cqlUserEnv))
	fs.StringVar(&c.userFile, "cassandra-user-file", "", "file holding the CQL user (a Secret's key), read at each connection, whitespace trimmed")
	fs.StringVar(&c.passwordFile, "cassandra-password-file", "", fmt.Sprintf("file holding the CQL password (a Secret's key), read at each connection, whitespace trimmed (or env %s)", cqlPasswordEnv))
	fs.BoolVar(&c.tls, "cassandra-tls", false, "connect to --cassandra over TLS (client_encryption_options)")
	fs.StringVar(&c.tlsCA, "cassandra-tls-ca", "", "CA bundle (PEM) the node's certificate must chain to (default: the system's roots); needs --cassandra-tls")
	fs.StringVar(&c.tlsCert, "cassandra-tls-cert", "", "client certificate (PEM) for a node with require_client_auth, read at each connection; with --cassandra-tls-key; needs --cassandra-tls")
	fs.StringVar(&c.tlsKey, "cassandra-tls-key", "", "private key (PEM) of --cassandra-tls-cert; needs --cassandra-tls")
	fs.StringVar(&c.tlsName, "cassandra-tls-server-name", "", "name the node's certificate is verified for, and sent as SNI (default: the host of --cassandra, an IP for a pod); needs --cassandra-tls")
	return c
}

// cassandraFlagNames are the flags that configure the connection,
// which --cassandra must come with.
var cassandraFlagNames = []string{"cassandra-user", "cassandra-user-file", "cassandra-password-file",
	"cassandra-tls", "cassandra-tls-ca", "cassandra-tls-cert", "cassandra-tls-key", "cassandra-tls-server-name"}

// readCassandra turns the flags and the environment into the
// connection's Config, nil without --cassandra. It refuses what could
// not take effect: a connection flag without --cassandra, a TLS flag
// without --cassandra-tls, two sources of the user or of the password, a
// user without a password or the reverse, a variable set but empty; and
// (cqlconn.New, in run) files that cannot be read or hold nothing.
func readCassandra(fs *flag.FlagSet, c *cassandraFlags) (*cqlconn.Config, error) {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if c.addr == "" {
		for _, name := range cassandraFlagNames {
			if set[name] {
				return nil, fmt.Errorf("--%s: needs --cassandra, the node it connects to", name)
			}
		}
		return nil, nil
	}
	if !c.tls {
		for _, name := range cassandraFlagNames {
			if strings.HasPrefix(name, "cassandra-tls-") && set[name] {
				return nil, fmt.Errorf("--%s: needs --cassandra-tls: without it the connection would be in plaintext", name)
			}
		}
	}
	cfg := &cqlconn.Config{Addr: c.addr, User: c.user, UserFile: c.userFile, PasswordFile: c.passwordFile}
	userFrom := []string{}
	if c.user != "" {
		userFrom = append(userFrom, "--cassandra-user")
	}
	if c.userFile != "" {
		userFrom = append(userFrom, "--cassandra-user-file")
	}
	if v, ok, err := envSecret(cqlUserEnv, "user"); err != nil {
		return nil, err
	} else if ok {
		cfg.User = v
		userFrom = append(userFrom, "env "+cqlUserEnv)
	}
	if len(userFrom) > 1 {
		return nil, fmt.Errorf("%s: give the CQL user one way, not both", strings.Join(userFrom, " and "))
	}
	passwordFrom := ""
	if c.passwordFile != "" {
		passwordFrom = "--cassandra-password-file"
	}
	if v, ok, err := envSecret(cqlPasswordEnv, "password"); err != nil {
		return nil, err
	} else if ok {
		if passwordFrom != "" {
			return nil, fmt.Errorf("--cassandra-password-file and env %s: give the CQL password one way, not both", cqlPasswordEnv)
		}
		cfg.Password, passwordFrom = v, "env "+cqlPasswordEnv
	}
	switch {
	case len(userFrom) == 1 && passwordFrom == "":
		return nil, fmt.Errorf("%s: a CQL user without a password: give --cassandra-password-file or env %s", userFrom[0], cqlPasswordEnv)
	case len(userFrom) == 0 && passwordFrom != "":
		return nil, fmt.Errorf("%s: a CQL password without a user: give --cassandra-user-file, --cassandra-user or env %s", passwordFrom, cqlUserEnv)
	}
	if c.tls {
		cfg.TLS = &cqlconn.TLSConfig{CA: c.tlsCA, Cert: c.tlsCert, Key: c.tlsKey, ServerName: c.tlsName}
	}
	return cfg, nil
}

// envSecret reads a variable that holds a credential: set but empty (or
// only whitespace) is refused, never taken for "none".
func envSecret(name, what string) (string, bool, error) {
	v, ok := os.LookupEnv(name)
	if !ok {
		return "", false, nil
	}
	if v = strings.TrimSpace(v); v == "" {
		return "", false, fmt.Errorf("env %s: set but holds no %s (empty or only whitespace); unset it to give none", name, what)
	}
	return v, true, nil
}

// cassandraConfigFlags names the flag that sets each cqlconn.Config
// field, so that a file the connection refuses is reported as the
// operator gave it.
var cassandraConfigFlags = map[string]string{
	"Addr":         "cassandra",
	"UserFile":     "cassandra-user-file",
	"PasswordFile": "cassandra-password-file",
	"TLS.CA":       "cassandra-tls-ca",
	"TLS.Cert":     "cassandra-tls-cert",
	"TLS.Key":      "cassandra-tls-key",
}

// newCassandra checks the connection's Config (its files read now) and
// returns the connection, not started; a refused value is reported by
// its flag.
func newCassandra(cfg cqlconn.Config) (*cqlconn.Conn, error) {
	conn, err := cqlconn.New(cfg)
	var ce *cqlconn.ConfigError
	if err != nil && errors.As(err, &ce) {
		if name, ok := cassandraConfigFlags[ce.Field]; ok {
			return nil, flagError(name, ce)
		}
	}
	return conn, err
}

// flagError reports a refused Config value by the flag that set it.
func flagError(name string, ce *cqlconn.ConfigError) error {
	if ce.Value == "" {
		return fmt.Errorf("--%s: %s", name, ce.Reason)
	}
	return fmt.Errorf("--%s %s: %s", name, ce.Value, ce.Reason)
}
