package flightserver_test

import (
	"context"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/google/uuid"

	"github.com/sstable-flight/sstable-flight/cluster"
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

// TestTableStatsWithoutRing: a server planning over a ring it cannot
// read (the first read hangs), or whose ring does not place the table's
// keyspace, still answers table-stats, within RingWait: its own node's
// figures, scope "node", and why in estimate_scope_reason. Planning
// over that ring fails, so the test tells the two apart.
func TestTableStatsWithoutRing(t *testing.T) {
	local := uuid.UUID{1}
	ring, err := cluster.NewRing(local, []cluster.Node{{HostID: local, Tokens: []cluster.Token{0}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, why string
		discover  func(ctx context.Context) (*cluster.Topology, error)
	}{
		{"ring never read", "not read", func(ctx context.Context) (*cluster.Topology, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		}},
		{"keyspace not on the ring", "no such keyspace", func(context.Context) (*cluster.Topology, error) {
			return &cluster.Topology{Ring: ring}, nil
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts := startServer(t, "oa", func(c *flightserver.Config) {
				c.Cluster = &flightserver.ClusterConfig{Discover: tc.discover, Peers: cluster.StaticPeers{}, RingWait: 50 * time.Millisecond}
			})
			ctx := context.Background()
			st := tableStats(ctx, t, ts, "corpus", "many")
			if st.Scope != flightserver.ScopeNode || !strings.Contains(st.ScopeReason, tc.why) ||
				st.Rows <= 0 || st.TableRows != st.Rows || st.TablePartitions != st.Partitions || st.Share != 0 {
				t.Fatalf("table-stats: %+v; want the node's figures, scope node, a reason naming %q", st, tc.why)
			}
			if _, err := ts.client.GetFlightInfo(ctx, path("corpus", "many")); err == nil {
				t.Fatal("a plan over the ring succeeded: the ring was usable")
			}
		})
	}
}
