package main

// What the test asks Cassandra in the container, through CQL with the
// Apache Cassandra Go driver, dialed from inside its network namespace.

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
)

// cqlClient makes sessions to one node.
type cqlClient struct {
	net  *containerNet
	host string
}

// cluster is the driver's configuration: one node, reached through the
// namespace; auth, when user is set, PasswordAuthenticator's.
func (c cqlClient) cluster(user, password string) *gocql.ClusterConfig {
	cl := gocql.NewCluster(c.host)
	cl.Port = 9042
	cl.Dialer = c.net
	cl.ProtoVersion = 5
	cl.Consistency = gocql.One
	cl.Timeout = 20 * time.Second
	cl.ConnectTimeout = 5 * time.Second
	cl.DisableInitialHostLookup = true
	if user != "" {
		cl.Authenticator = gocql.PasswordAuthenticator{Username: user, Password: password}
	}
	return cl
}

func (c cqlClient) session(user, password string) (*gocql.Session, error) {
	return c.cluster(user, password).CreateSession()
}

// waitCQL waits until the native port accepts a connection and, with no
// credentials, answers that authentication is required: CQL answers.
// It gives up when stopped says the container has exited or after
// timeout.
func (c cqlClient) waitCQL(timeout time.Duration, stopped func() bool) error {
	deadline := time.Now().Add(timeout)
	var last error
	for time.Now().Before(deadline) {
		if stopped() {
			return fmt.Errorf("the container exited before CQL answered (last: %v)", last)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		conn, err := c.net.DialContext(ctx, "tcp", net.JoinHostPort(c.host, "9042"))
		cancel()
		if err == nil {
			conn.Close()
			_, err = c.session("", "")
			if isAuthRequired(err) {
				return nil
			}
			if err == nil {
				return errors.New("CQL answered a session without credentials: authentication is off")
			}
		}
		last = err
		time.Sleep(time.Second)
	}
	return fmt.Errorf("CQL on %s:9042 did not answer within %s (last: %v)", c.host, timeout, last)
}

// isAuthRequired is the driver's error for a node that asks for
// credentials the configuration has none of.
func isAuthRequired(err error) bool {
	return err != nil && strings.Contains(err.Error(), "authentication required")
}

// login waits, up to timeout, until the default superuser can log in:
// Cassandra creates it a few seconds after CQL first answers.
func (c cqlClient) login(timeout time.Duration, user, password string) (*gocql.Session, error) {
	deadline := time.Now().Add(timeout)
	for {
		s, err := c.session(user, password)
		if err == nil {
			return s, nil
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("log in as %s within %s: %w", user, timeout, err)
		}
		time.Sleep(time.Second)
	}
}

// localRow is what system.local says of the node.
type localRow struct {
	release, cluster, dc, rack string
	listen, broadcast, rpc     net.IP
	tokens                     int
}

func readLocal(s *gocql.Session) (localRow, error) {
	var r localRow
	var tokens []string
	err := s.Query(`SELECT release_version, cluster_name, data_center, rack, listen_address, broadcast_address, rpc_address, tokens FROM system.local`).
		Scan(&r.release, &r.cluster, &r.dc, &r.rack, &r.listen, &r.broadcast, &r.rpc, &tokens)
	r.tokens = len(tokens)
	if err != nil {
		return localRow{}, fmt.Errorf("read system.local: %w", err)
	}
	return r, nil
}

// writeAndRead creates a keyspace and table, writes rows and reads them
// back, comparing.
func writeAndRead(t *testing.T, s *gocql.Session) {
	t.Helper()
	for _, q := range []string{
		`CREATE KEYSPACE IF NOT EXISTS imagetest WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`,
		`CREATE TABLE IF NOT EXISTS imagetest.kv (k int PRIMARY KEY, v text)`,
	} {
		if err := s.Query(q).Exec(); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	want := map[int]string{}
	for k := range 50 {
		want[k] = "value-" + strconv.Itoa(k*k)
		if err := s.Query(`INSERT INTO imagetest.kv (k, v) VALUES (?, ?)`, k, want[k]).Exec(); err != nil {
			t.Fatalf("insert k=%d: %v", k, err)
		}
	}
	got := map[int]string{}
	it := s.Query(`SELECT k, v FROM imagetest.kv`).Iter()
	var k int
	var v string
	for it.Scan(&k, &v) {
		got[k] = v
	}
	if err := it.Close(); err != nil {
		t.Fatalf("SELECT k, v FROM imagetest.kv: %v", err)
	}
	if len(got) != len(want) {
		t.Fatalf("read back %d rows, wrote %d", len(got), len(want))
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("row %d: read %q, wrote %q", k, got[k], v)
		}
	}
}

// superusers are the login roles with superuser status.
func superusers(s *gocql.Session) ([]string, error) {
	it := s.Query(`SELECT role, is_superuser, can_login FROM system_auth.roles`).Iter()
	var out []string
	var role string
	var super, login bool
	for it.Scan(&role, &super, &login) {
		if super && login {
			out = append(out, role)
		}
	}
	slices.Sort(out)
	return out, it.Close()
}
