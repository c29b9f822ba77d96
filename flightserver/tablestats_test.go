package flightserver_test

import (
	"context"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/sstable-flight/sstable-flight/flightserver"
	"github.com/sstable-flight/sstable-flight/flightserver/catalog"
	"github.com/sstable-flight/sstable-flight/internal/cassandratest"
)

// TestTableStatsFollowDisk checks table-stats against the table's
// directory as Cassandra changes it: after a flush, a second flush and a
// major compaction, sstables is the number of live SSTables and bytes the
// sum of their Data.db sizes, as docs/flight-api.md says.
func TestTableStatsFollowDisk(t *testing.T) {
	node := cassandratest.Shared(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	const ks = "flight_stats"
	s := node.FreshKeyspace(t, ks,
		"CREATE TABLE "+ks+".t (k int PRIMARY KEY, v text)")
	if err := node.DisableAutoCompaction(ctx, ks, "t"); err != nil {
		t.Fatal(err)
	}
	var id gocql.UUID
	if err := s.Query("SELECT id FROM system_schema.tables WHERE keyspace_name = ? AND table_name = 't'", ks).Scan(&id); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(node.DataDir(), ks, "t-"+hex.EncodeToString(id[:]))
	write := func(from int) {
		t.Helper()
		for k := from; k < from+200; k++ {
			if err := s.Query("INSERT INTO "+ks+".t (k, v) VALUES (?, ?)", k, fmt.Sprintf("value %d", k)).Exec(); err != nil {
				t.Fatal(err)
			}
		}
		if err := node.Flush(ctx, ks, "t"); err != nil {
			t.Fatal(err)
		}
	}
	// onDisk waits for the directory to hold n Data.db files (a
	// compaction deletes its inputs just after it returns) and sums them.
	onDisk := func(n int) int64 {
		t.Helper()
		deadline := time.Now().Add(time.Minute)
		for {
			files, err := filepath.Glob(filepath.Join(dir, "*-Data.db"))
			if err != nil {
				t.Fatal(err)
			}
			if len(files) == n {
				var sum int64
				for _, f := range files {
					fi, err := os.Stat(f)
					if err != nil {
						t.Fatal(err)
					}
					sum += fi.Size()
				}
				return sum
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: %d Data.db files, want %d", dir, len(files), n)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}

	const window = 20 * time.Millisecond
	ts := startServer(t, "oa", func(c *flightserver.Config) {
		c.DataDir = node.DataDir()
		c.Schemas = flightserver.NewCatalogSchemas(catalog.New(catalog.Options{Session: s}))
		c.Snapshot.Window = window
	})
	check := func(step string, n int) {
		t.Helper()
		want := onDisk(n)
		time.Sleep(2 * window) // past the snapshot window: the next request looks again
		st := tableStats(ctx, t, ts, ks, "t")
		if st.SSTables != n || st.Bytes != want {
			t.Errorf("%s: table-stats has %d SSTables of %d Data.db bytes, the directory %d of %d", step, st.SSTables, st.Bytes, n, want)
		}
	}

	write(0)
	check("first flush", 1)
	write(200)
	check("second flush", 2)
	if err := node.Compact(ctx, ks, "t"); err != nil {
		t.Fatal(err)
	}
	check("compaction", 1)
	if !t.Failed() {
		if err := s.Query("DROP KEYSPACE IF EXISTS " + ks).Exec(); err != nil {
			t.Logf("drop %s: %v", ks, err)
		}
	}
}
