package flightserver_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/sstable-flight/sstable-flight/flightserver"
	"github.com/sstable-flight/sstable-flight/flightserver/catalog"
	"github.com/sstable-flight/sstable-flight/flightserver/cqlconn"
	"github.com/sstable-flight/sstable-flight/flightserver/fresh"
	"github.com/sstable-flight/sstable-flight/flightserver/tables"
	"github.com/sstable-flight/sstable-flight/internal/testkit/cassandratest"
	"github.com/sstable-flight/sstable-flight/snapshot"
)

// TestUnflushedSurvivesKill9 (issue #28, faults): a node of the test's
// own holds writes in its commit log only; it is killed with -9 mid-write
// and started again on the same directories (Cassandra replays the log,
// flushes what it replayed and deletes the old segments under our
// reader). Before the kill a scan through the server equals CQL; while
// the node is down it reads what the log holds, which is what CQL returns
// once the node replayed it; after the restart it equals CQL again:
// nothing lost, nothing doubled.
func TestUnflushedSurvivesKill9(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	node, err := cassandratest.Start(ctx, cassandratest.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	port := node.CQLPort
	defer func() { node.Stop() }()
	const ks = "h_fresh_kill"
	s := node.FreshKeyspace(t, ks, "CREATE TABLE "+ks+".t (k int, c int, v text, n bigint, PRIMARY KEY (k, c))")
	write := func(s *gocql.Session, from, to int, tag string) {
		t.Helper()
		for k := from; k < to; k++ {
			for c := range 5 {
				if err := s.Query("INSERT INTO "+ks+".t (k, c, v, n) VALUES (?, ?, ?, ?)", k, c, fmt.Sprintf("%s-%d", tag, k), int64(c)).Exec(); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	write(s, 0, 40, "a")
	if err := s.Query("DELETE FROM " + ks + ".t WHERE k = 7").Exec(); err != nil {
		t.Fatal(err)
	}

	conn, err := cqlconn.New(cqlconn.Config{Addr: node.Addr(), MinBackoff: 100 * time.Millisecond, MaxBackoff: time.Second, ProbeInterval: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	cat := catalog.New(catalog.Options{Conn: conn})
	conn.Start()
	defer conn.Close()
	clog, err := fresh.Start(fresh.Config{Dir: filepath.Join(dir, "commitlog"), PollInterval: 50 * time.Millisecond, Catalog: cat, Sessions: conn})
	if err != nil {
		t.Fatal(err)
	}
	defer clog.Close()
	ts := startServer(t, "oa", func(c *flightserver.Config) {
		c.DataDir = node.DataDir()
		c.Schemas = tables.NewCatalogSchemas(cat)
		c.CommitLog = clog
		c.Cassandra = conn
		c.Snapshot = snapshot.Config{Mode: snapshot.Live, Window: 100 * time.Millisecond}
	})
	command := map[string]any{"version": 1, "keyspace": ks, "table": "t", "splits": 2}
	until := func(what string, want []string) {
		t.Helper()
		deadline := time.Now().Add(90 * time.Second)
		for {
			info, err := ts.client.GetFlightInfo(ctx, cmd(t, command))
			var got []string
			if err == nil {
				got = freshRows(t, ts.readAll(t, info))
				if slices.Equal(got, want) {
					t.Logf("%s: %d rows equal to CQL's; app_metadata %s", what, len(got), info.AppMetadata)
					return
				}
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: after 90 s (plan error %v) Flight's %d rows differ from CQL's %d:\n got %q\nwant %q", what, err, len(got), len(want), got, want)
			}
			time.Sleep(250 * time.Millisecond)
		}
	}
	q := "SELECT k, c, v, n FROM " + ks + ".t"
	want := cqlRows(t, s, q)
	until("before the kill", want)

	// Killed mid-write: a goroutine writes until the session fails.
	done := make(chan struct{})
	go func() {
		defer close(done)
		for k := 100; ; k++ {
			if err := s.Query("INSERT INTO "+ks+".t (k, c, v, n) VALUES (?, 0, 'mid', 0)", k).Exec(); err != nil {
				return
			}
		}
	}()
	time.Sleep(500 * time.Millisecond)
	if err := node.Kill(); err != nil {
		t.Fatal(err)
	}
	<-done
	s.Close()
	// What the node wrote before it died is in the log (mmap'd, through
	// the page cache): the server serves it while the node is down, and
	// it is what the restarted node replays. Read until two reads a
	// second apart agree (the poller has read the dead log to its end).
	var during []string
	for deadline := time.Now().Add(30 * time.Second); ; {
		info, err := ts.client.GetFlightInfo(ctx, cmd(t, command))
		if err != nil {
			t.Fatalf("plan while the node is down: %v", err)
		}
		got := freshRows(t, ts.readAll(t, info))
		if slices.Equal(got, during) && len(got) > len(want) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("while the node is down: reads still change after 30 s (%d rows, then %d)", len(during), len(got))
		}
		during = got
		time.Sleep(time.Second)
	}
	t.Logf("while the node is down: %d rows, the %d acknowledged before the writes that met the kill among them", len(during), len(want))
	node, err = cassandratest.Start(ctx, cassandratest.Options{Dir: dir, CQLPort: port})
	if err != nil {
		t.Fatal(err)
	}
	s2, err := node.Session()
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if after := cqlRows(t, s2, q); !slices.Equal(after, during) {
		t.Fatalf("CQL after the restart (the log replayed) has %d rows, the server read %d from the log while the node was down:\n got %q\nwant %q", len(after), len(during), during, after)
	}
	until("after the restart", during)
	write(s2, 200, 210, "b")
	until("written after the restart", cqlRows(t, s2, q))
}
