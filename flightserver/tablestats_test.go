package flightserver_test

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"maps"
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
	"github.com/sstable-flight/sstable-flight/flightserver/tables"
	"github.com/sstable-flight/sstable-flight/internal/testkit/cassandratest"
	"github.com/sstable-flight/sstable-flight/token"
)

// TestTableStatsFollowDisk checks table-stats against the table's
// directory as Cassandra changes it: after a flush, a second flush and a
// major compaction, sstables is the number of live SSTables and bytes the
// sum of their Data.db sizes, as docs/flight-api.md says. The node is
// shared: flushes the test did not ask for (commit log pressure, other
// packages' tests) may add SSTables at any time, so each step compares
// the server's figures with the directory as it is then, whatever its
// count, and judges only what the test did: its flushes add SSTables,
// its compaction removes every SSTable it compacted.
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
	// onDisk is the directory's Data.db files and their sizes.
	onDisk := func() map[string]int64 {
		t.Helper()
		files, err := filepath.Glob(filepath.Join(dir, "*-Data.db"))
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]int64{}
		for _, f := range files {
			fi, err := os.Stat(f)
			if errors.Is(err, fs.ErrNotExist) {
				continue // removed as we listed: the next look sees the change
			}
			if err != nil {
				t.Fatal(err)
			}
			out[f] = fi.Size()
		}
		return out
	}
	sum := func(files map[string]int64) (total int64) {
		for _, n := range files {
			total += n
		}
		return total
	}

	const window = 20 * time.Millisecond
	ts := startServer(t, "oa", func(c *flightserver.Config) {
		c.DataDir = node.DataDir()
		c.Schemas = tables.NewCatalogSchemas(catalog.New(catalog.Options{Session: s}))
		c.Snapshot.Window = window
	})
	// check compares table-stats with the directory while the directory
	// holds still (the same files before and after the request), and
	// returns the files it judged against; done says whether the
	// directory shows the step's effect yet (a compaction deletes its
	// inputs just after it returns).
	check := func(step string, done func(map[string]int64) bool) map[string]int64 {
		t.Helper()
		deadline := time.Now().Add(time.Minute)
		for {
			before := onDisk()
			if done(before) {
				time.Sleep(2 * window) // past the snapshot window: the next request looks again
				st := tableStats(ctx, t, ts, ks, "t")
				if after := onDisk(); maps.Equal(before, after) {
					if st.SSTables != len(before) || st.Bytes != sum(before) {
						t.Errorf("%s: table-stats has %d SSTables of %d Data.db bytes, the directory %d of %d", step, st.SSTables, st.Bytes, len(before), sum(before))
					}
					return before
				}
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: %s never held still showing the step (now %d Data.db files)", step, dir, len(before))
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	// grown: a flush of ours added an SSTable to those of the last step.
	grown := func(last map[string]int64) func(map[string]int64) bool {
		return func(now map[string]int64) bool {
			for f := range last {
				if _, ok := now[f]; !ok {
					return false
				}
			}
			return len(now) > len(last)
		}
	}

	write(0)
	first := check("first flush", grown(nil))
	write(200)
	second := check("second flush", grown(first))
	if err := node.Compact(ctx, ks, "t"); err != nil {
		t.Fatal(err)
	}
	// compacted: every SSTable there before the compaction is gone, and
	// its output is there.
	check("compaction", func(now map[string]int64) bool {
		for f := range second {
			if _, ok := now[f]; ok {
				return false
			}
		}
		return len(now) > 0
	})
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
	ring, err := cluster.NewRing(local, []cluster.Node{{HostID: local, Tokens: []token.Token{0}}})
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
