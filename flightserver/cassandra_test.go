package flightserver_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/sstable-flight/sstable-flight/flightserver"
	"github.com/sstable-flight/sstable-flight/flightserver/catalog"
	"github.com/sstable-flight/sstable-flight/flightserver/tables"
	"github.com/sstable-flight/sstable-flight/internal/testkit/cassandratest"
)

// TestLiveCassandra serves a real node's data directory with schemas read
// from the node itself (the --cassandra path): rows written, updated and
// deleted over CQL in two flushed generations read back through Flight
// equal SELECT over CQL, in the same order; a point read by a composite
// key equals CQL's WHERE; table-stats names the Cassandra schema source.
func TestLiveCassandra(t *testing.T) {
	node := cassandratest.Shared(t)
	ctx := context.Background()
	s := node.FreshKeyspace(t, "flight_it",
		`CREATE TABLE flight_it.events (tenant text, day date, ts timestamp, seq int, s text STATIC, v text, n bigint,
			PRIMARY KEY ((tenant, day), ts, seq)) WITH CLUSTERING ORDER BY (ts DESC, seq ASC)`)
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for gen := range 2 {
		for p := range 60 {
			tenant, day := fmt.Sprintf("t%d", p%7), base.AddDate(0, 0, p/7)
			if err := s.Query("UPDATE flight_it.events SET s = ? WHERE tenant = ? AND day = ?", fmt.Sprintf("s%d-%d", p, gen), tenant, day).Exec(); err != nil {
				t.Fatal(err)
			}
			for r := range 4 {
				ts := base.Add(time.Duration(r) * time.Minute)
				q := "INSERT INTO flight_it.events (tenant, day, ts, seq, v, n) VALUES (?, ?, ?, ?, ?, ?)"
				if err := s.Query(q, tenant, day, ts, r%2, fmt.Sprintf("v%d-%d-%d", p, r, gen), int64(p*r+gen)).Exec(); err != nil {
					t.Fatal(err)
				}
			}
			if gen == 1 && p%5 == 0 {
				if err := s.Query("DELETE FROM flight_it.events WHERE tenant = ? AND day = ? AND ts = ?", tenant, day, base.Add(time.Minute)).Exec(); err != nil {
					t.Fatal(err)
				}
			}
		}
		if out, err := node.NodeTool(ctx, "flush", "flight_it"); err != nil {
			t.Fatalf("flush: %v: %s", err, out)
		}
	}

	cat := catalog.New(catalog.Options{Session: s})
	ts := startServer(t, "oa", func(c *flightserver.Config) {
		c.DataDir = node.DataDir()
		c.Schemas = tables.NewCatalogSchemas(cat)
	})

	// CQL's rows, as text.
	var want []string
	iter := s.Query("SELECT tenant, day, ts, seq, s, v, n FROM flight_it.events").Iter()
	var tenant, sv, v string
	var day, tsv time.Time
	var seq int
	var n int64
	for iter.Scan(&tenant, &day, &tsv, &seq, &sv, &v, &n) {
		want = append(want, fmt.Sprintf("%s|%s|%d|%d|%s|%s|%d", tenant, day.Format(time.DateOnly), tsv.UnixMilli(), seq, sv, v, n))
	}
	if err := iter.Close(); err != nil {
		t.Fatal(err)
	}
	info, err := ts.client.GetFlightInfo(ctx, cmd(t, map[string]any{"version": 1, "keyspace": "flight_it", "table": "events", "splits": 3}))
	if err != nil {
		t.Fatal(err)
	}
	got := eventRows(t, ts.readAll(t, info))
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("Flight rows differ from CQL:\n got %d: %q\nwant %d: %q", len(got), got, len(want), want)
	}
	if len(want) < 200 {
		t.Fatalf("only %d rows", len(want))
	}

	// Point read by the composite key, values in the JSON forms.
	info, err = ts.client.GetFlightInfo(ctx, cmd(t, map[string]any{"version": 1, "keyspace": "flight_it", "table": "events",
		"keys": []any{map[string]any{"tenant": "t3", "day": "2026-01-04"}}}))
	if err != nil {
		t.Fatal(err)
	}
	got = eventRows(t, ts.readAll(t, info))
	var wantKey []string
	for _, w := range want {
		if strings.HasPrefix(w, "t3|2026-01-04|") {
			wantKey = append(wantKey, w)
		}
	}
	if len(wantKey) == 0 || strings.Join(got, "\n") != strings.Join(wantKey, "\n") {
		t.Fatalf("point read:\n got %q\nwant %q", got, wantKey)
	}

	// The node is shared: flushes the test did not ask for may add
	// SSTables, and compaction may merge its two, so the count judged is
	// only that the node holds what it flushed.
	st := tableStats(ctx, t, ts, "flight_it", "events")
	if st.SchemaSource != catalog.SourceCassandra || st.SSTables < 1 {
		t.Errorf("table-stats: %+v", st)
	}
}

// eventRows renders flight_it.events' batches as the CQL side does.
func eventRows(t *testing.T, recs []arrow.RecordBatch) []string {
	t.Helper()
	var out []string
	for _, r := range recs {
		col := func(name string) arrow.Array {
			idx := r.Schema().FieldIndices(name)
			if len(idx) != 1 {
				t.Fatalf("no column %s in %v", name, r.Schema())
			}
			return r.Column(idx[0])
		}
		tenant, day := col("tenant").(*array.String), col("day").(*array.Date32)
		tsv, seq := col("ts").(*array.Timestamp), col("seq").(*array.Int32)
		sv, v, n := col("s").(*array.String), col("v").(*array.String), col("n").(*array.Int64)
		for i := range int(r.NumRows()) {
			out = append(out, fmt.Sprintf("%s|%s|%d|%d|%s|%s|%d", tenant.Value(i), day.Value(i).ToTime().Format(time.DateOnly),
				int64(tsv.Value(i)), seq.Value(i), sv.Value(i), v.Value(i), n.Value(i)))
		}
	}
	return out
}
