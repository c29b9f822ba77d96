package flightserver_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/sstable-flight/sstable-flight/flightserver"
	"github.com/sstable-flight/sstable-flight/flightserver/catalog"
	"github.com/sstable-flight/sstable-flight/flightserver/tables"
	"github.com/sstable-flight/sstable-flight/internal/testkit/cassandratest"
	"github.com/sstable-flight/sstable-flight/snapshot"
)

// TestRecreatedTableReadsItsOwnDirectory: a table dropped and created
// again under the same name can leave two directories, <table>-<old id>
// (with SSTables, when snapshots or a lagging delete keep them) and
// <table>-<new id>. A server that has not read the schema yet must read
// the new one, the id Cassandra's schema names: never the old data, and
// never NOT_FOUND because the old directory's id does not match the
// schema. Before, a fresh server picked the directory by its files and
// failed while the new table had no SSTable.
//
// The layout is built in a directory of the test's own, from the node's
// SSTables: the node's data directory is not written to.
func TestRecreatedTableReadsItsOwnDirectory(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	node, s, _ := liveSnapshotServer(t, snapshot.Config{},
		"DROP KEYSPACE IF EXISTS recreate",
		"CREATE KEYSPACE recreate WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE recreate.t (k int PRIMARY KEY, v text)",
		"INSERT INTO recreate.t (k, v) VALUES (1, 'old')")
	data := t.TempDir()
	// copyTable copies the node's current directory of recreate.t.
	copyTable := func(withFiles bool) {
		t.Helper()
		if err := node.Flush(ctx, "recreate", "t"); err != nil {
			t.Fatal(err)
		}
		var id string
		if err := s.Query("SELECT id FROM system_schema.tables WHERE keyspace_name = 'recreate' AND table_name = 't'").Scan(&id); err != nil {
			t.Fatal(err)
		}
		name := "t-" + strings.ReplaceAll(id, "-", "")
		dst := filepath.Join(data, "recreate", name)
		if err := os.MkdirAll(dst, 0o755); err != nil {
			t.Fatal(err)
		}
		if !withFiles {
			return
		}
		files, _ := filepath.Glob(filepath.Join(node.DataDir(), "recreate", name, "*"))
		for _, f := range files {
			if fi, err := os.Stat(f); err != nil || fi.IsDir() {
				continue
			}
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dst, filepath.Base(f)), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if !hasDataFile(dst) {
			t.Fatalf("no SSTable copied into %s", dst)
		}
	}
	copyTable(true) // the old table, with its row
	cassandratest.Exec(t, s,
		"DROP TABLE recreate.t",
		"CREATE TABLE recreate.t (k int PRIMARY KEY, v text)",
		"INSERT INTO recreate.t (k, v) VALUES (2, 'new')")
	serve := func(t *testing.T) *testServer {
		cat := catalog.New(catalog.Options{Session: s})
		return startServer(t, "oa", func(c *flightserver.Config) {
			c.DataDir = data
			c.Schemas = tables.NewCatalogSchemas(cat)
			c.Snapshot = snapshot.Config{Mode: snapshot.Hardlink, Dir: filepath.Join(data, "..", "snap-"+filepath.Base(t.Name()))}
		})
	}
	t.Run("new table without SSTables", func(t *testing.T) {
		copyTable(false)
		got, err := readRecreate(ctx, serve(t))
		if err != nil || len(got) != 0 {
			t.Fatalf("rows %v, error %v; want none and no error", got, err)
		}
	})
	t.Run("new table flushed", func(t *testing.T) {
		copyTable(true)
		got, err := readRecreate(ctx, serve(t))
		if err != nil || !slices.Equal(got, []string{"2=new"}) {
			t.Fatalf("rows %v, error %v; want [2=new]", got, err)
		}
	})
}

// readRecreate reads recreate.t through the server as sorted "k=v" lines.
func readRecreate(ctx context.Context, ts *testServer) ([]string, error) {
	got, err := readCommand(ctx, ts.client, map[string]any{"version": 1, "keyspace": "recreate", "table": "t"}, func(r arrow.RecordBatch) []string {
		k, v := r.Column(0).(*array.Int32), r.Column(1).(*array.String)
		out := make([]string, r.NumRows())
		for i := range out {
			out[i] = fmt.Sprintf("%d=%s", k.Value(i), v.Value(i))
		}
		return out
	})
	slices.Sort(got)
	return got, err
}

// hasDataFile reports a table directory holding an SSTable.
func hasDataFile(dir string) bool {
	m, _ := filepath.Glob(filepath.Join(dir, "*-Data.db"))
	return len(m) > 0
}
