package main

// Issue #25, finding 1: the CQL credentials and TLS flags refuse what
// could not take effect, naming the flag or variable, before anything
// starts; a complete configuration is taken, its files read.

import (
	"crypto/x509"
	"flag"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sstable-flight/sstable-flight/internal/testkit/testpki"
)

func TestCassandraFlagsRefused(t *testing.T) {
	// The cases set the variables they test, and only those.
	for _, name := range []string{cqlUserEnv, cqlPasswordEnv} {
		t.Setenv(name, "") // restored at the end
		os.Unsetenv(name)
	}
	dir := t.TempDir()
	write := func(name, content string) string { return testpki.Write(t, dir, name, []byte(content)) }
	user, password := write("username", "reader\n"), write("password", "  s3cret \n")
	blank := write("blank", " \n\t\n")
	ca := testpki.NewCA(t, "cql test CA")
	caFile := testpki.Write(t, dir, "ca.pem", testpki.PEMBlock("CERTIFICATE", ca.DER))
	der, key := ca.Leaf(t, 2, x509.ExtKeyUsageClientAuth, net.IPv4(127, 0, 0, 1))
	cert := testpki.Write(t, dir, "client.pem", testpki.PEMBlock("CERTIFICATE", der))
	keyFile := testpki.Write(t, dir, "client-key.pem", testpki.KeyPEM(t, key))
	otherKey := testpki.Write(t, dir, "other-key.pem", testpki.KeyPEM(t, testpki.NewKey(t)))
	missing := filepath.Join(dir, "missing")
	c := func(args ...string) []string {
		return append([]string{"--data-dir", dir, "--snapshot-mode", "live", "--cassandra", "127.0.0.1:9042"}, args...)
	}
	login := []string{"--cassandra-user-file", user, "--cassandra-password-file", password}
	for _, tc := range []struct {
		name string
		args []string
		env  map[string]string
		want string
	}{
		{"user file without --cassandra", []string{"--data-dir", dir, "--cassandra-user-file", user}, nil, "--cassandra-user-file: needs --cassandra"},
		{"tls without --cassandra", []string{"--data-dir", dir, "--cassandra-tls"}, nil, "--cassandra-tls: needs --cassandra"},
		{"tls CA without --cassandra-tls", c("--cassandra-tls-ca", caFile), nil, "--cassandra-tls-ca: needs --cassandra-tls"},
		{"server name without --cassandra-tls", c("--cassandra-tls-server-name", "n"), nil, "--cassandra-tls-server-name: needs --cassandra-tls"},
		{"two users", c("--cassandra-user", "u", "--cassandra-user-file", user, "--cassandra-password-file", password), nil, "--cassandra-user and --cassandra-user-file: give the CQL user one way"},
		{"user env and file", c(login...), map[string]string{"SSTF_CASSANDRA_USER": "u"}, "--cassandra-user-file and env SSTF_CASSANDRA_USER: give the CQL user one way"},
		{"two passwords", c(login...), map[string]string{"SSTF_CASSANDRA_PASSWORD": "p"}, "--cassandra-password-file and env SSTF_CASSANDRA_PASSWORD: give the CQL password one way"},
		{"user without password", c("--cassandra-user", "u"), nil, "--cassandra-user: a CQL user without a password"},
		{"user env without password", c(), map[string]string{"SSTF_CASSANDRA_USER": "u"}, "env SSTF_CASSANDRA_USER: a CQL user without a password"},
		{"password without user", c("--cassandra-password-file", password), nil, "--cassandra-password-file: a CQL password without a user"},
		{"password env empty", c("--cassandra-user", "u"), map[string]string{"SSTF_CASSANDRA_PASSWORD": " "}, "env SSTF_CASSANDRA_PASSWORD: set but holds no password"},
		{"user env empty", c("--cassandra-password-file", password), map[string]string{"SSTF_CASSANDRA_USER": ""}, "env SSTF_CASSANDRA_USER: set but holds no user"},
		{"password file blank", c("--cassandra-user-file", user, "--cassandra-password-file", blank), nil, `--cassandra-password-file "` + blank + `": holds nothing`},
		{"user file missing", c("--cassandra-user-file", missing, "--cassandra-password-file", password), nil, `--cassandra-user-file "` + missing + `": stat ` + missing + ": no such file"},
		{"password file a directory", c("--cassandra-user-file", user, "--cassandra-password-file", dir), nil, `--cassandra-password-file "` + dir + `": is a directory, not a regular file`},
		{"CA missing", c("--cassandra-tls", "--cassandra-tls-ca", missing), nil, `--cassandra-tls-ca "` + missing + `": stat`},
		{"CA holds a key", c("--cassandra-tls", "--cassandra-tls-ca", keyFile), nil, `--cassandra-tls-ca "` + keyFile + `": PEM block 1 is a PRIVATE KEY`},
		{"cert without key", c("--cassandra-tls", "--cassandra-tls-cert", cert), nil, "--cassandra-tls-cert: a client certificate and its key go together"},
		{"key not the cert's", c("--cassandra-tls", "--cassandra-tls-cert", cert, "--cassandra-tls-key", otherKey), nil, `--cassandra-tls-key "` + otherKey + `": not the private key of the certificate`},
		{"cert holds no certificate", c("--cassandra-tls", "--cassandra-tls-cert", keyFile, "--cassandra-tls-key", keyFile), nil, `--cassandra-tls-cert "` + keyFile + `": holds no certificate`},
		{"address without port", []string{"--data-dir", dir, "--cassandra", "cassandra-0"}, nil, `--cassandra "cassandra-0": address cassandra-0: missing port`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			o, err := parse(t, tc.args...)
			if err == nil && o.cql != nil {
				_, err = newCassandra(*o.cql)
			}
			if err == nil {
				t.Fatalf("%v (env %v): accepted", tc.args, tc.env)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("%v (env %v): %v; want %q", tc.args, tc.env, err, tc.want)
			}
		})
	}

	// What operators give: a Secret's files, or a user and the password
	// in the environment; TLS with a CA, a client certificate and the
	// name the node's certificate holds.
	for _, tc := range []struct {
		name string
		args []string
		env  map[string]string
	}{
		{"files and TLS", c(append(login, "--cassandra-tls", "--cassandra-tls-ca", caFile, "--cassandra-tls-cert", cert, "--cassandra-tls-key", keyFile,
			"--cassandra-tls-server-name", "cassandra.example")...), nil},
		{"user flag, password env", c("--cassandra-user", "cassandra"), map[string]string{"SSTF_CASSANDRA_PASSWORD": "cassandra"}},
		{"user env, password file", c("--cassandra-password-file", password), map[string]string{"SSTF_CASSANDRA_USER": "reader"}},
		{"TLS with the system's roots", c("--cassandra-tls"), nil},
		{"no credentials", c(), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			o, err := parse(t, tc.args...)
			if err != nil {
				t.Fatal(err)
			}
			conn, err := newCassandra(*o.cql)
			if err != nil {
				t.Fatal(err)
			}
			if st := conn.Status(); st.Up || st.Addr != "127.0.0.1:9042" {
				t.Errorf("a connection not started: %+v", st)
			}
		})
	}
}

// TestCassandraConfigFlagsExist: every flag cassandraConfigFlags names
// is registered, and every connection flag needs --cassandra.
func TestCassandraConfigFlagsExist(t *testing.T) {
	fs := flag.NewFlagSet("sstable-flight", flag.ContinueOnError)
	if _, err := parseFlags(fs, nil); err != nil {
		t.Fatal(err)
	}
	for field, name := range cassandraConfigFlags {
		if fs.Lookup(name) == nil {
			t.Errorf("cqlconn.Config field %s: no flag --%s", field, name)
		}
	}
	for _, name := range cassandraFlagNames {
		if fs.Lookup(name) == nil {
			t.Errorf("no flag --%s", name)
		}
	}
}
