package flightserver_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/sstable-flight/sstable-flight/flightserver"
	"github.com/sstable-flight/sstable-flight/flightserver/catalog"
	"github.com/sstable-flight/sstable-flight/flightserver/fresh"
	"github.com/sstable-flight/sstable-flight/flightserver/tables"
	"github.com/sstable-flight/sstable-flight/internal/testkit/cassandratest"
	"github.com/sstable-flight/sstable-flight/snapshot"
)

// TestUnflushedWritesAreServed (issue #28): on the shared node, a table
// written through CQL and never flushed (rows, overwrites, a partition, a
// row and a range deleted, a column written and dropped) reads through
// Flight as SELECT does, from the commit log alone, and its plans say what they reflect; after a flush
// and more writes, a read over the new SSTable and the log neither loses
// nor doubles a row; a key only in the log reads by key.
func TestUnflushedWritesAreServed(t *testing.T) {
	node := cassandratest.Shared(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	const ks = "h_fresh"
	s := node.FreshKeyspace(t, ks, "CREATE TABLE "+ks+".t (k int, c int, v text, n bigint, PRIMARY KEY (k, c))")
	t.Cleanup(func() { cassandratest.Exec(t, s, "DROP KEYSPACE IF EXISTS "+ks) })
	exec := func(q string, args ...any) {
		t.Helper()
		if err := s.Query(q, args...).Exec(); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	insert := func(from, to int, tag string) {
		for k := from; k < to; k++ {
			for c := range 10 {
				exec("INSERT INTO "+ks+".t (k, c, v, n) VALUES (?, ?, ?, ?)", k, c, fmt.Sprintf("%s-%d-%d", tag, k, c), int64(k*100+c))
			}
		}
	}
	insert(0, 20, "a")
	exec("UPDATE " + ks + ".t SET v = 'again' WHERE k = 1 AND c = 1")
	exec("DELETE FROM " + ks + ".t WHERE k = 3")
	exec("DELETE FROM " + ks + ".t WHERE k = 4 AND c = 2")
	exec("DELETE FROM " + ks + ".t WHERE k = 5 AND c >= 3 AND c < 7")
	exec("UPDATE " + ks + ".t SET v = null WHERE k = 6 AND c = 0")
	// A column written and dropped, its writes still in the log: they
	// decode with the type the schema recorded for it, and are ignored.
	exec("ALTER TABLE " + ks + ".t ADD gone map<text, int>")
	exec("UPDATE " + ks + ".t SET gone = {'a': 1}, v = 'with gone' WHERE k = 8 AND c = 1")
	exec("ALTER TABLE " + ks + ".t DROP gone")

	cat := catalog.New(catalog.Options{Session: s})
	clog, err := fresh.Start(fresh.Config{Dir: node.Dir + "/commitlog", PollInterval: 50 * time.Millisecond,
		Catalog: cat, Sessions: catalog.Fixed{S: s}})
	if err != nil {
		t.Fatal(err)
	}
	defer clog.Close()
	ts := startServer(t, "oa", func(c *flightserver.Config) {
		c.DataDir = node.DataDir()
		c.Schemas = tables.NewCatalogSchemas(cat)
		c.CommitLog = clog
		c.Snapshot = snapshot.Config{Mode: snapshot.Live, Window: 100 * time.Millisecond}
	})
	if err := cat.Refresh(ctx); err != nil {
		t.Fatal(err)
	}

	scan := func(what string, command map[string]any, want func() []string) {
		t.Helper()
		command["version"], command["keyspace"], command["table"] = 1, ks, "t"
		var got, w []string
		var meta string
		deadline := time.Now().Add(30 * time.Second)
		for {
			info, err := ts.client.GetFlightInfo(ctx, cmd(t, command))
			if err != nil {
				t.Fatalf("%s: plan: %v", what, err)
			}
			meta = string(info.AppMetadata)
			got, w = freshRows(t, ts.readAll(t, info)), want()
			if slices.Equal(got, w) && strings.Contains(meta, `"commitlog_through"`) {
				t.Logf("%s: %d rows equal to CQL; app_metadata %s", what, len(got), meta)
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: after 30 s, app_metadata %s, Flight's %d rows differ from CQL's %d:\n got %q\nwant %q", what, meta, len(got), len(w), got, w)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	all := func() []string { return cqlRows(t, s, "SELECT k, c, v, n FROM "+ks+".t") }
	scan("never flushed", map[string]any{"splits": 3}, all)
	if got := all(); len(got) != 20*10-10-1-4 {
		t.Fatalf("CQL has %d rows, want 185: the test's writes did not land as meant", len(got))
	}

	// Flushed, then more writes: the new SSTable holds what the log
	// held, and the later writes are in the log only.
	if err := node.Flush(ctx, ks, "t"); err != nil {
		t.Fatal(err)
	}
	insert(50, 60, "b")
	exec("UPDATE " + ks + ".t SET v = 'after the flush' WHERE k = 2 AND c = 2")
	exec("DELETE FROM " + ks + ".t WHERE k = 7")
	scan("flushed, then written", map[string]any{"splits": 2}, all)
	scan("a key in the log only", map[string]any{"keys": []any{map[string]any{"k": 55}}},
		func() []string { return cqlRows(t, s, "SELECT k, c, v, n FROM "+ks+".t WHERE k = 55") })
}

// cqlRows renders (k int, c int, v text, n bigint) rows in token order,
// as a scan returns them.
func cqlRows(t *testing.T, s *gocql.Session, q string) []string {
	t.Helper()
	var out []string
	it := s.Query(q).Iter()
	var k, c int
	var v *string
	var n int64
	for it.Scan(&k, &c, &v, &n) {
		vs := "null"
		if v != nil {
			vs = *v
		}
		out = append(out, fmt.Sprintf("%d|%d|%s|%d", k, c, vs, n))
	}
	if err := it.Close(); err != nil {
		t.Fatal(err)
	}
	return out
}

func freshRows(t *testing.T, recs []arrow.RecordBatch) []string {
	t.Helper()
	var out []string
	for _, r := range recs {
		col := func(name string) arrow.Array { return r.Column(r.Schema().FieldIndices(name)[0]) }
		k, c, v, n := col("k").(*array.Int32), col("c").(*array.Int32), col("v").(*array.String), col("n").(*array.Int64)
		for i := range int(r.NumRows()) {
			vs := "null"
			if !v.IsNull(i) {
				vs = v.Value(i)
			}
			out = append(out, fmt.Sprintf("%d|%d|%s|%d", k.Value(i), c.Value(i), vs, n.Value(i)))
		}
		r.Release()
	}
	return out
}
