package main_test

// Issue #25, findings 1 and 2, through the binary against Cassandra 5.0
// nodes of the test's own (PasswordAuthenticator, CQL over TLS only),
// one at a time, each stopped at the test's end: the server logs in with
// credentials read from files and over TLS, with and without a client
// certificate; a refused login (wrong password, wrong CA, the
// certificate's name not verified, no client certificate) is a clear
// logged reason and a metric while the server keeps serving files; a
// rotated password file is read at the next connection; and a server
// started before its node serves at once, never exits, connects when the
// node comes up and then serves Cassandra's schema and ring.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/sstable-flight/sstable-flight/flightserver"
	"github.com/sstable-flight/sstable-flight/internal/testkit/cassandratest"
	"github.com/sstable-flight/sstable-flight/internal/testkit/flighttest"
	"github.com/sstable-flight/sstable-flight/internal/testkit/testpki"
)

const (
	// nodeStartTimeout bounds a node's start (the JVM on a loaded
	// 2-core machine).
	nodeStartTimeout = 6 * time.Minute
	// cqlStateWait bounds each wait for a connection state to show:
	// the backoff caps at 30 s, a loss takes two probes 10 s apart.
	cqlStateWait = 3 * time.Minute
	cqlKeyspace  = "cqlauth_it"
	cqlRole      = "sstf_cqlauth"
	cqlPassword1 = "first-Pass-1"
	cqlPassword2 = "second-Pass-2"
	cqlRows      = 100
)

// TestCassandraLoginFromFilesOverTLS: a node with PasswordAuthenticator
// and client encryption (a certificate naming only a DNS name), read
// by a login role without grants.
func TestCassandraLoginFromFilesOverTLS(t *testing.T) {
	bin := buildServer(t)
	node := ownNode(t, cassandratest.Options{Auth: &cassandratest.Auth{Role: cqlRole, Password: cqlPassword1}, ClientTLS: &cassandratest.ClientTLS{}})
	su, want := writeKV(t, node)
	secrets := t.TempDir()
	user := testpki.Write(t, secrets, "username", []byte(cqlRole+"\n"))
	password := testpki.Write(t, secrets, "password", []byte(cqlPassword1+"\n"))
	wrong := testpki.Write(t, secrets, "wrong-password", []byte("not-"+cqlPassword1+"\n"))
	other := testpki.NewCA(t, "another CA")
	otherCA := testpki.Write(t, secrets, "other-ca.pem", testpki.PEMBlock("CERTIFICATE", other.DER))
	args := func(password, ca string, name bool) []string {
		a := append(serverArgs(node.DataDir(), filepath.Join(t.TempDir(), "snaps")),
			"--cassandra", node.Addr(), "--cassandra-user-file", user, "--cassandra-password-file", password,
			"--cassandra-tls", "--cassandra-tls-ca", ca)
		if name {
			a = append(a, "--cassandra-tls-server-name", cassandratest.TLSServerName)
		}
		return a
	}
	var values []string // what a server reading the SSTables' headers shows
	for _, row := range want {
		values = append(values, row[strings.IndexByte(row, '|')+1:])
	}
	slices.Sort(values)

	t.Run("login", func(t *testing.T) {
		s := startProcess(t, bin, args(password, node.TLS.CA, true))
		c := dial(t, s)
		waitFor(t, s, "sstf_cassandra_up 1", func() bool { return s.metric(t, "sstf_cassandra_up") == 1 })
		requireTable(t, s, c, "kv", want, "k", "v")
		if src := schemaSource(t, s, c, "kv"); src != "cassandra" {
			s.fatalf(t, "schema source %q, want cassandra", src)
		}
		info := nodeInfo(t, s, c)
		if ci := info.Cassandra; ci == nil || !ci.Up || ci.Addr != node.Addr() || ci.Reason != "" || ci.ConnectFailures["auth"] != 0 || ci.ConnectFailures["tls"] != 0 {
			s.fatalf(t, "node-info %+v", info.Cassandra)
		}
		if n := len(logRecords(s, "cassandra: connected")); n != 1 {
			s.fatalf(t, "%d 'cassandra: connected' lines, want 1", n)
		}
		s.terminate(t)
	})

	// Each refusal: the reason in the metric, node-info and one log line
	// however many attempts, the server serving the table from its
	// SSTables' headers meanwhile and never exiting.
	for _, tc := range []struct {
		name, password, ca string
		serverName         bool
		reason, says       string
	}{
		{"wrong password", wrong, node.TLS.CA, true, "auth", "incorrect"},
		{"wrong CA", password, otherCA, true, "tls", "unknown authority"},
		{"server name not verified", password, node.TLS.CA, false, "tls", "127.0.0.1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := startProcess(t, bin, args(tc.password, tc.ca, tc.serverName))
			c := dial(t, s)
			series := `sstf_cassandra_connect_failures_total{reason="` + tc.reason + `"}`
			waitFor(t, s, series+" ≥ 3", func() bool { return s.metric(t, series) >= 3 })
			if up := s.metric(t, "sstf_cassandra_up"); up != 0 {
				s.fatalf(t, "sstf_cassandra_up %v, want 0", up)
			}
			logged := logRecords(s, "cassandra: cannot connect")
			if len(logged) != 1 || logged[0]["reason"] != tc.reason || !strings.Contains(fmt.Sprint(logged[0]["err"]), tc.says) {
				s.fatalf(t, "logged %v; want one line, reason %s, saying %q", logged, tc.reason, tc.says)
			}
			info := nodeInfo(t, s, c)
			if ci := info.Cassandra; ci == nil || ci.Up || ci.Reason != tc.reason || !strings.Contains(ci.Error, tc.says) {
				s.fatalf(t, "node-info %+v", info.Cassandra)
			}
			t.Logf("%s: %v", tc.name, logged[0]["err"])
			requireTable(t, s, c, "kv", values, "v")
			if src := schemaSource(t, s, c, "kv"); src != "header" {
				s.fatalf(t, "schema source %q, want header", src)
			}
			s.terminate(t)
		})
	}

	t.Run("password rotated", func(t *testing.T) {
		rotating := testpki.Write(t, t.TempDir(), "password", []byte(cqlPassword1+"\n"))
		s := startProcess(t, bin, args(rotating, node.TLS.CA, true))
		c := dial(t, s)
		waitFor(t, s, "sstf_cassandra_up 1", func() bool { return s.metric(t, "sstf_cassandra_up") == 1 })
		alterPassword(t, su, cqlRole, cqlPassword2)
		if err := os.WriteFile(rotating, []byte(cqlPassword2+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		// The node drops every client connection: the server loses its
		// session and must log in again, with the file's new password.
		nodetool(t, node, "disablebinary")
		waitFor(t, s, "sstf_cassandra_up 0 after disablebinary", func() bool { return s.metric(t, "sstf_cassandra_up") == 0 })
		nodetool(t, node, "enablebinary")
		waitFor(t, s, "sstf_cassandra_up 1 after enablebinary", func() bool { return s.metric(t, "sstf_cassandra_up") == 1 })
		if n := s.metric(t, `sstf_cassandra_connect_failures_total{reason="auth"}`); n != 0 {
			s.fatalf(t, "%v attempts refused for their password: the rotated file was not read", n)
		}
		if n := len(logRecords(s, "cassandra: connection lost")); n != 1 {
			s.fatalf(t, "%d 'connection lost' lines, want 1", n)
		}
		if err := drainAction(context.Background(), c, &flight.Action{Type: flightserver.ActionRefreshSchema}); err != nil {
			s.fatalf(t, "refresh-schema over the new session: %v", err)
		}
		requireTable(t, s, c, "kv", want, "k", "v")
		s.terminate(t)
	})
}

// TestServerStartedBeforeCassandra: servers pointed at a port where
// their node (client certificates required) comes up later serve what
// they can at once and stay ready, never exit, connect when the node is
// up and then serve its schema and ring; a server without a client
// certificate is refused by the node, reason tls.
func TestServerStartedBeforeCassandra(t *testing.T) {
	bin := buildServer(t)
	ctx := context.Background()
	nodeDir := filepath.Join(t.TempDir(), "node")
	port, err := cassandratest.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	opt := cassandratest.Options{Dir: nodeDir, CQLPort: port, Auth: &cassandratest.Auth{},
		ClientTLS: &cassandratest.ClientTLS{RequireClientAuth: true}}
	files, err := cassandratest.PrepareTLS(nodeDir, *opt.ClientTLS)
	if err != nil {
		t.Fatal(err)
	}
	// The node's data directory holds a corpus table (and its
	// schema.cql) before the node starts, which leaves it alone.
	data := filepath.Join(nodeDir, "data")
	if err := copyTree(corpusSrc, data); err != nil {
		t.Fatal(err)
	}
	wideRows := expectedRows(t, corpusTableDir(t, data, "wide"))
	addr := net.JoinHostPort(cassandratest.Host, strconv.Itoa(port))
	tlsArgs := []string{"--cassandra-tls", "--cassandra-tls-ca", files.CA, "--cassandra-tls-server-name", cassandratest.TLSServerName}
	withCert := append(slices.Clone(tlsArgs), "--cassandra-tls-cert", files.ClientCert, "--cassandra-tls-key", files.ClientKey)
	password := testpki.Write(t, t.TempDir(), "password", []byte(cassandratest.SuperPassword+"\n"))

	// a reads schemas only; the user by flag, the password from the
	// environment (Bitnami's way).
	a := spawn(t, bin, []string{"SSTF_CASSANDRA_PASSWORD=" + cassandratest.SuperPassword},
		append(serverArgs(data, filepath.Join(t.TempDir(), "snaps")), append([]string{"--cassandra", addr, "--cassandra-user", cassandratest.SuperUser}, withCert...)...)...)
	// b plans over the ring, its own node's peer on a port of its own;
	// the user from the environment, the password from a file.
	flightAddr := flighttest.FreeAddr(t)
	_, flightPort, _ := net.SplitHostPort(flightAddr)
	b := spawn(t, bin, []string{"SSTF_CASSANDRA_USER=" + cassandratest.SuperUser},
		append(withFlag(serverArgs(data, filepath.Join(t.TempDir(), "snaps")), "--listen", flightAddr),
			append([]string{"--cassandra", addr, "--cassandra-password-file", password, "--peer-port", flightPort}, withCert...)...)...)
	for _, s := range []*server{a, b} {
		if !s.waitServing(t) {
			s.fatalf(t, "exited before serving, its node not up: %v", s.waitErr)
		}
	}
	ca, cb := dial(t, a), dial(t, b) // health SERVING

	// Before the node: a serves the corpus table from its schema.cql; b,
	// which plans over the ring, answers UNAVAILABLE saying why.
	if rows, _ := readAll(ctx, t, a, ca, wideInfo(ctx, t, a, ca)); rows != wideRows {
		a.fatalf(t, "corpus.wide before the node: %d rows, want %d", rows, wideRows)
	}
	for _, s := range []*server{a, b} {
		waitFor(t, s, "an unreachable attempt", func() bool { return s.metric(t, `sstf_cassandra_connect_failures_total{reason="unreachable"}`) >= 1 })
	}
	gctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	_, err = cb.GetFlightInfo(gctx, &flight.FlightDescriptor{Type: flight.DescriptorPATH, Path: []string{"corpus", "wide"}})
	cancel()
	if status.Code(err) != codes.Unavailable || !strings.Contains(err.Error(), "not connected to cassandra") {
		b.fatalf(t, "a ring plan before the node: %v; want UNAVAILABLE saying cassandra is not connected", err)
	}
	t.Logf("before the node, a ring plan: %v", err)
	for _, sc := range []struct {
		s *server
		c flight.Client
	}{{a, ca}, {b, cb}} {
		info := nodeInfo(t, sc.s, sc.c)
		if info.HostID != "" || info.Cassandra == nil || info.Cassandra.Up || info.Cassandra.Reason != "unreachable" {
			sc.s.fatalf(t, "node-info before the node: %+v %+v", info, info.Cassandra)
		}
	}

	node := ownNode(t, opt)
	_, want := writeKV(t, node)
	var hostID gocql.UUID
	su, err := node.Session()
	if err != nil {
		t.Fatal(err)
	}
	err = su.Query("SELECT host_id FROM system.local").Scan(&hostID)
	su.Close()
	if err != nil {
		t.Fatal(err)
	}

	// a: Cassandra's schema for the table written over CQL, the corpus
	// table still from its schema.cql.
	waitFor(t, a, "sstf_cassandra_up 1", func() bool { return a.metric(t, "sstf_cassandra_up") == 1 })
	waitFor(t, a, "kv's schema from cassandra", func() bool { return schemaSource(t, a, ca, "kv") == "cassandra" })
	requireTable(t, a, ca, "kv", want, "k", "v")
	if rows, _ := readAll(ctx, t, a, ca, wideInfo(ctx, t, a, ca)); rows != wideRows {
		a.fatalf(t, "corpus.wide after the node: %d rows, want %d", rows, wideRows)
	}
	// b: its node's ring, a ring plan, the rows.
	waitFor(t, b, "node-info's host ID", func() bool { return nodeInfo(t, b, cb).HostID == hostID.String() })
	if ci := nodeInfo(t, b, cb).Cassandra; ci == nil || !ci.Up {
		b.fatalf(t, "node-info %+v", ci)
	}
	info := requireTable(t, b, cb, "kv", want, "k", "v")
	if !strings.Contains(string(info.AppMetadata), `"planning":"ring"`) {
		b.fatalf(t, "plan of kv: %s, want a ring plan", info.AppMetadata)
	}

	// A server without the client certificate the node requires.
	c := startProcess(t, bin, append(serverArgs(data, filepath.Join(t.TempDir(), "snaps")),
		append([]string{"--cassandra", addr, "--cassandra-user", cassandratest.SuperUser, "--cassandra-password-file", password}, tlsArgs...)...))
	waitFor(t, c, "a tls failure", func() bool { return c.metric(t, `sstf_cassandra_connect_failures_total{reason="tls"}`) >= 1 })
	if up := c.metric(t, "sstf_cassandra_up"); up != 0 {
		c.fatalf(t, "sstf_cassandra_up %v without the client certificate, want 0", up)
	}
	t.Logf("without a client certificate: %v", logRecords(c, "cassandra: cannot connect"))
	c.terminate(t)

	// Never exited: both drain and exit 0 on SIGTERM.
	a.terminate(t)
	b.terminate(t)
}

// ownNode starts a node of the test's own, stopped at its end; a node
// that does not start fails the test.
func ownNode(t *testing.T, opt cassandratest.Options) *cassandratest.Node {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), nodeStartTimeout)
	defer cancel()
	n, err := cassandratest.Start(ctx, opt)
	if err != nil {
		t.Fatalf("start a cassandra node of the test's own: %v", err)
	}
	t.Cleanup(func() {
		if err := n.Stop(); err != nil {
			t.Errorf("stop cassandra pid %d: %v", n.Pid, err)
		}
	})
	return n
}

// writeKV writes cqlKeyspace.kv over CQL as the node's superuser and
// flushes it; it returns the session and SELECT * as sorted "k|v" rows.
func writeKV(t *testing.T, node *cassandratest.Node) (*gocql.Session, []string) {
	t.Helper()
	s := node.FreshKeyspace(t, cqlKeyspace, "CREATE TABLE "+cqlKeyspace+".kv (k int PRIMARY KEY, v text)")
	for k := range cqlRows {
		if err := s.Query("INSERT INTO "+cqlKeyspace+".kv (k, v) VALUES (?, ?)", k, fmt.Sprintf("value-%03d", k)).Exec(); err != nil {
			t.Fatal(err)
		}
	}
	nodetool(t, node, "flush", cqlKeyspace)
	var want []string
	iter := s.Query("SELECT * FROM " + cqlKeyspace + ".kv").Iter()
	var k int
	var v string
	for iter.Scan(&k, &v) {
		want = append(want, fmt.Sprintf("%d|%s", k, v))
	}
	if err := iter.Close(); err != nil {
		t.Fatal(err)
	}
	if len(want) != cqlRows {
		t.Fatalf("SELECT * returned %d rows, want %d", len(want), cqlRows)
	}
	slices.Sort(want)
	return s, want
}

// alterPassword changes role's password, waiting out Cassandra 5.0's
// least time between two changes of a role's password (5 s from its
// creation too), at most a minute.
func alterPassword(t *testing.T, s *gocql.Session, role, password string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		err := s.Query(fmt.Sprintf("ALTER ROLE %s WITH PASSWORD = '%s'", role, password)).Exec()
		if err == nil {
			return
		}
		if !strings.Contains(err.Error(), "can only be changed every") || time.Now().After(deadline) {
			t.Fatalf("change the password of %s: %v", role, err)
		}
		time.Sleep(time.Second)
	}
}

func nodetool(t *testing.T, node *cassandratest.Node, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if out, err := node.NodeTool(ctx, args...); err != nil {
		t.Fatalf("nodetool %v: %v: %s", args, err, out)
	}
}

// requireTable reads cqlKeyspace.table through c, every endpoint, and
// requires its rows, the columns cols "|"-joined, sorted, to be want.
func requireTable(t *testing.T, s *server, c flight.Client, table string, want []string, cols ...string) *flight.FlightInfo {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	info, err := c.GetFlightInfo(ctx, &flight.FlightDescriptor{Type: flight.DescriptorPATH, Path: []string{cqlKeyspace, table}})
	if err != nil {
		s.fatalf(t, "GetFlightInfo %s.%s: %v", cqlKeyspace, table, err)
	}
	var got []string
	for i, ep := range info.Endpoint {
		stream, err := c.DoGet(ctx, ep.Ticket)
		if err != nil {
			s.fatalf(t, "DoGet endpoint %d: %v", i, err)
		}
		rd, err := flight.NewRecordReader(stream)
		if err != nil {
			s.fatalf(t, "read endpoint %d: %v", i, err)
		}
		for rd.Next() {
			rec := rd.RecordBatch()
			var idx []int
			for _, name := range cols {
				f := rec.Schema().FieldIndices(name)
				if len(f) != 1 {
					s.fatalf(t, "no column %s in %v", name, rec.Schema())
				}
				idx = append(idx, f[0])
			}
			for r := range int(rec.NumRows()) {
				var vals []string
				for _, j := range idx {
					vals = append(vals, rec.Column(j).ValueStr(r))
				}
				got = append(got, strings.Join(vals, "|"))
			}
		}
		err = rd.Err()
		rd.Release()
		if err != nil {
			s.fatalf(t, "read endpoint %d: %v", i, err)
		}
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		s.fatalf(t, "%s.%s through Flight: %d rows %q\nwant %d (CQL): %q", cqlKeyspace, table, len(got), got, len(want), want)
	}
	return info
}

// schemaSource is table-stats' schema source of cqlKeyspace.table.
func schemaSource(t *testing.T, s *server, c flight.Client, table string) string {
	t.Helper()
	body, _ := json.Marshal(map[string]string{"keyspace": cqlKeyspace, "table": table})
	var st struct {
		SchemaSource string `json:"schema_source"`
	}
	actionJSON(t, s, c, &flight.Action{Type: flightserver.ActionTableStats, Body: body}, &st)
	return st.SchemaSource
}

func nodeInfo(t *testing.T, s *server, c flight.Client) flightserver.NodeInfo {
	t.Helper()
	var info flightserver.NodeInfo
	actionJSON(t, s, c, &flight.Action{Type: flightserver.ActionNodeInfo}, &info)
	return info
}

// actionJSON runs an action and decodes its one result.
func actionJSON(t *testing.T, s *server, c flight.Client, a *flight.Action, v any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	stream, err := c.DoAction(ctx, a)
	if err != nil {
		s.fatalf(t, "%s: %v", a.Type, err)
	}
	res, err := stream.Recv()
	if err != nil {
		s.fatalf(t, "%s: %v", a.Type, err)
	}
	if err := json.Unmarshal(res.GetBody(), v); err != nil {
		s.fatalf(t, "%s: %s: %v", a.Type, res.GetBody(), err)
	}
}

// metric reads one series ("name" or `name{label="value"}`) from the
// server's /metrics; -1 when absent.
func (s *server) metric(t *testing.T, series string) float64 {
	t.Helper()
	admin := flighttest.LoggedAddr(s.stderr.String(), "serving admin")
	if admin == "" {
		s.fatalf(t, "no admin address logged")
	}
	client := &http.Client{Timeout: 10 * time.Second}
	resp, err := client.Get("http://" + admin + "/metrics")
	if err != nil {
		s.fatalf(t, "scrape: %v", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		s.fatalf(t, "scrape: %v", err)
	}
	for _, line := range strings.Split(string(body), "\n") {
		if v, ok := strings.CutPrefix(line, series+" "); ok {
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil {
				s.fatalf(t, "metric line %q: %v", line, err)
			}
			return f
		}
	}
	return -1
}

// waitFor polls cond until it holds, failing the test after
// cqlStateWait or if the server exits meanwhile.
func waitFor(t *testing.T, s *server, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(cqlStateWait)
	for !cond() {
		select {
		case <-s.done:
			s.fatalf(t, "exited waiting for %s: %v", what, s.waitErr)
		default:
		}
		if time.Now().After(deadline) {
			s.fatalf(t, "%s: not within %v", what, cqlStateWait)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// logRecords are the server's JSON log lines whose msg starts with
// prefix.
func logRecords(s *server, prefix string) []map[string]any {
	var out []map[string]any
	for _, line := range strings.Split(s.stderr.String(), "\n") {
		var rec map[string]any
		if json.Unmarshal([]byte(line), &rec) == nil && strings.HasPrefix(fmt.Sprint(rec["msg"]), prefix) {
			out = append(out, rec)
		}
	}
	return out
}

// withFlag is args with flag's value set to value.
func withFlag(args []string, flag, value string) []string {
	for i, a := range args {
		if a == flag && i+1 < len(args) {
			args[i+1] = value
			return args
		}
	}
	return append(args, flag, value)
}
