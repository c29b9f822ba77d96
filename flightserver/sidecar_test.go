package flightserver_test

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/flight"

	"github.com/sstable-flight/sstable-flight/flightserver"
	"github.com/sstable-flight/sstable-flight/flightserver/catalog"
	"github.com/sstable-flight/sstable-flight/internal/testkit/corpus"
	"github.com/sstable-flight/sstable-flight/internal/testkit/diskdamage"
	"github.com/sstable-flight/sstable-flight/internal/testkit/testclock"
	"github.com/sstable-flight/sstable-flight/snapshot"
	"github.com/sstable-flight/sstable-flight/snapshot/sidecar"
	"github.com/sstable-flight/sstable-flight/snapshot/sidecar/sidecartest"
	"github.com/sstable-flight/sstable-flight/sstable"
)

// corpusSchemas is a SchemaSource over the corpus' schema.cql files, by
// table name: what --cassandra gives a server in Sidecar mode, where no
// schema.cql is readable (Sidecar streams SSTable components only).
type corpusSchemas map[string]*catalog.Table

func loadCorpusSchemas(t *testing.T, dataDir string) corpusSchemas {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dataDir, "*", "*", catalog.SchemaFile))
	cs := corpusSchemas{}
	for _, f := range files {
		tables, err := catalog.ReadCQLFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, tb := range tables {
			cs[tb.Keyspace+"."+tb.Name] = tb
		}
	}
	if len(cs) == 0 {
		t.Fatalf("no schema.cql under %s", dataDir)
	}
	return cs
}

func (cs corpusSchemas) TableSchema(_ context.Context, td snapshot.TableDir, _ []*sstable.Reader) (*catalog.Table, error) {
	if t, ok := cs[td.Keyspace+"."+td.Table]; ok {
		return t, nil
	}
	return nil, fmt.Errorf("no schema for %s.%s", td.Keyspace, td.Table)
}

func (cs corpusSchemas) Tables() []snapshot.TableDir {
	var out []snapshot.TableDir
	for _, t := range cs {
		out = append(out, snapshot.TableDir{Keyspace: t.Keyspace, Table: t.Name})
	}
	return out
}

// TableID knows no id: the corpus' schema.cql files name none.
func (corpusSchemas) TableID(context.Context, string, string) (string, bool) { return "", false }

// Refresh has nothing to reload.
func (corpusSchemas) Refresh(context.Context) error { return nil }

// renderRows prints a read's rows, one line per row, columns by name.
func renderRows(recs []arrow.RecordBatch) string { return diskdamage.Render(recs) }

// TestSidecarModeMatchesLocal is issue #6's Sidecar acceptance: a server
// with no access to the data directory, taking snapshots and reading
// components through a Sidecar (in-process, following its documented
// API, over a copy of the oa corpus), returns for every corpus table, a
// projection and a point read the same rows as a server reading the same
// directory in place, which the pyarrow test holds to expected.json. Its
// snapshots are gone after shutdown.
func TestSidecarModeMatchesLocal(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	if err := os.CopyFS(data, os.DirFS(filepath.Join(corpusRoot(), "oa"))); err != nil {
		t.Fatal(err)
	}
	side := sidecartest.New(data)
	defer side.Close()
	schemas := loadCorpusSchemas(t, data)
	local := startServer(t, "oa", func(c *flightserver.Config) {
		c.DataDir, c.Schemas = data, schemas
	})
	remote := startServer(t, "oa", func(c *flightserver.Config) {
		c.DataDir, c.Schemas = "", schemas
		c.Snapshot = snapshot.Config{Mode: snapshot.Sidecar, Sidecar: side.Client(sidecar.Options{}),
			Dir: filepath.Join(t.TempDir(), "sidecar-state")}
	})
	ctx := context.Background()
	read := func(t *testing.T, ts *testServer, d *flight.FlightDescriptor) string {
		t.Helper()
		info, err := ts.client.GetFlightInfo(ctx, d)
		if err != nil {
			t.Fatalf("%s: %v", d, err)
		}
		return renderRows(ts.readAll(t, info))
	}
	// Each table is a case of its own, in name order.
	cases := corpus.NewCases(t)
	tables := 0
	for _, name := range slices.Sorted(maps.Keys(schemas)) {
		ks, tb, _ := strings.Cut(name, ".")
		cases.Run("oa/"+tb, func(t *testing.T) {
			want := read(t, local, path(ks, tb))
			if got := read(t, remote, path(ks, tb)); got != want {
				t.Fatalf("%s through Sidecar:\n%s\nin place:\n%s", name, got, want)
			}
		})
		tables++
	}
	if tables < 15 {
		t.Fatalf("only %d tables compared", tables)
	}
	// A projection and a point read of a composite key.
	for _, body := range []map[string]any{
		{"version": 1, "keyspace": "corpus", "table": "clustered", "columns": []string{"v", "tenant"}},
		{"version": 1, "keyspace": "corpus", "table": "many", "keys": []any{map[string]any{"id": "2492279"}, map[string]any{"id": "-89315"}}},
	} {
		d := cmd(t, body)
		if want, got := read(t, local, d), read(t, remote, d); got != want || want == "" {
			t.Fatalf("%s: through Sidecar %q, in place %q", d.Cmd, got, want)
		}
	}
	// ListFlights lists the schema's tables; an unknown table is NOT_FOUND.
	stream, err := remote.client.ListFlights(ctx, &flight.Criteria{})
	if err != nil {
		t.Fatal(err)
	}
	listed := 0
	for {
		if _, err := stream.Recv(); err != nil {
			break
		}
		listed++
	}
	if listed != tables {
		t.Errorf("ListFlights in Sidecar mode: %d tables, want %d", listed, tables)
	}
	if _, err := remote.client.GetFlightInfo(ctx, path("corpus", "nope")); err == nil || !strings.Contains(err.Error(), "NotFound") {
		t.Errorf("unknown table through Sidecar: %v", err)
	}
	// The reads went through Sidecar: one snapshot per table read (each
	// query here fell within the window of the table's first) and ranged
	// component reads.
	puts, ranged, deletes := 0, 0, 0
	for _, r := range side.Requests() {
		switch {
		case r.Method == "PUT":
			puts++
		case r.Method == "GET" && r.Range != "":
			ranged++
		case r.Method == "DELETE":
			deletes++
		}
	}
	if puts < cases.Ran() || ranged == 0 {
		t.Fatalf("Sidecar served %d snapshots and %d range reads for %d tables", puts, ranged, cases.Ran())
	}
	metric := adminMetric(t, remote)
	if got := metric(`sstf_sidecar_cache_total{result="miss"}`); got == "" || got == "0" {
		t.Errorf("sstf_sidecar_cache_total{result=\"miss\"} = %q after reading every table", got)
	}
	// Shutdown clears every snapshot it took.
	remote.shutdown(t)
	left, _ := filepath.Glob(filepath.Join(data, "*", "*", "snapshots", "*"))
	if len(left) != 0 {
		t.Fatalf("snapshots left after shutdown: %v", left)
	}
}

// countingSchemas counts the schema lookups of a SchemaSource: the table
// cache asks again only once its window has passed.
type countingSchemas struct {
	corpusSchemas
	mu sync.Mutex
	n  int
}

func (cs *countingSchemas) TableSchema(ctx context.Context, td snapshot.TableDir, rs []*sstable.Reader) (*catalog.Table, error) {
	cs.mu.Lock()
	cs.n++
	cs.mu.Unlock()
	return cs.corpusSchemas.TableSchema(ctx, td, rs)
}

func (cs *countingSchemas) count() int {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return cs.n
}

// TestSidecarWindowRule: in Sidecar mode a zero window is
// snapshot.DefaultSidecarWindow (every new epoch is a Cassandra snapshot,
// which flushes the table), a window given is kept, and the server's
// table cache trusts its schema for that same window: one rule, resolved
// in snapshot.Config, that the server takes from the manager. Before,
// the snapshots followed 30 s while the table cache asked for the schema
// again after 3 s.
func TestSidecarWindowRule(t *testing.T) {
	for _, tc := range []struct {
		name         string
		given, rules time.Duration
	}{
		{"zero: the sidecar default", 0, snapshot.DefaultSidecarWindow},
		{"given", snapshot.DefaultWindow, snapshot.DefaultWindow},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := copyCorpusTable(t, "deletions")
			side := sidecartest.New(data)
			defer side.Close()
			schemas := &countingSchemas{corpusSchemas: loadCorpusSchemas(t, data)}
			clock := testclock.New(time.Unix(1_800_000_000, 0))
			ts := startServer(t, "oa", func(c *flightserver.Config) {
				c.DataDir, c.Schemas, c.Now = "", schemas, clock.Now
				c.Snapshot = snapshot.Config{Sidecar: side.Client(sidecar.Options{}),
					Dir: filepath.Join(filepath.Dir(data), "sidecar-state"), Window: tc.given}
			})
			snapshots := func() int {
				n := 0
				for _, r := range side.Requests() {
					if r.Method == "PUT" {
						n++
					}
				}
				return n
			}
			check := func(when string, wantSnaps, wantSchemas int) {
				t.Helper()
				planTicket(t, ts, "corpus", "deletions")
				if got, gotSchemas := snapshots(), schemas.count(); got != wantSnaps || gotSchemas != wantSchemas {
					t.Fatalf("%s: %d Cassandra snapshots and %d schema lookups, want %d and %d", when, got, gotSchemas, wantSnaps, wantSchemas)
				}
			}
			check("first query", 1, 1)
			clock.Add(tc.rules - time.Millisecond)
			check("within the window", 1, 1)
			clock.Add(time.Millisecond)
			check("after the window", 2, 2)
		})
	}
}
