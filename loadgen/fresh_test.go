package loadgen

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/sstable-flight/sstable-flight/flightserver"
	"github.com/sstable-flight/sstable-flight/flightserver/catalog"
	"github.com/sstable-flight/sstable-flight/flightserver/tables"
	"github.com/sstable-flight/sstable-flight/internal/testkit/cassandratest"
	"github.com/sstable-flight/sstable-flight/snapshot"
)

// TestFreshnessMeasuresFlushedWrites runs the freshness shape against a
// real node and a server over its data directory, over a text key and a
// composite key with clustering columns (bigint, int, uuid, timeuuid),
// while the test flushes its tables over and over (the server answers
// from flushed SSTables): every op's row is found through Flight, its
// latency counted from the write's acknowledgement, and ops whose rows
// never show fail as NotVisible, counted apart.
func TestFreshnessMeasuresFlushedWrites(t *testing.T) {
	node := cassandratest.Shared(t)
	ctx := context.Background()
	s := node.FreshKeyspace(t, "loadgen_fresh",
		"CREATE TABLE loadgen_fresh.kv (k text PRIMARY KEY, v text)",
		"CREATE TABLE loadgen_fresh.ts (tenant text, id bigint, seq int, u uuid, at timeuuid, v text, PRIMARY KEY ((tenant, id), seq, u, at))")
	cassandratest.Exec(t, s, "INSERT INTO loadgen_fresh.kv (k, v) VALUES ('seed', 'x')")
	if err := node.Flush(ctx, "loadgen_fresh"); err != nil {
		t.Fatal(err)
	}
	ts := startServer(t, func(c *flightserver.Config) {
		c.DataDir = node.DataDir()
		c.Schemas = tables.NewCatalogSchemas(catalog.New(catalog.Options{Session: s}))
		c.Snapshot = snapshot.Config{Mode: snapshot.Live, Window: 100 * time.Millisecond}
	})
	for _, table := range []string{"kv", "ts"} {
		t.Run(table, func(t *testing.T) {
			stop := make(chan struct{})
			var wg sync.WaitGroup
			wg.Add(1)
			go func() { // Cassandra flushing, as a short memtable_flush_period_in_ms would
				defer wg.Done()
				for {
					select {
					case <-stop:
						return
					case <-time.After(200 * time.Millisecond):
					}
					if err := node.Flush(ctx, "loadgen_fresh", table); err != nil {
						t.Error(err)
						return
					}
				}
			}()
			cfg := ts.config(table, ShapeFresh)
			cfg.Keyspace, cfg.CompareCQL = "loadgen_fresh", node.Addr()
			cfg.Rate, cfg.Ramp, cfg.Step = 10, []int{16}, time.Second
			cfg.FreshTimeout = 40 * time.Second
			rep := run(t, cfg)
			close(stop)
			wg.Wait()
			st := rep.Flight[0]
			if st.Arm != "freshness" || st.Ops < 8 || st.Errors != 0 {
				t.Fatalf("step %+v: want at least 8 ops, all seen", st)
			}
			if st.Rows != st.Ops || st.P50US <= 0 || st.MaxUS > (40*time.Second).Microseconds() {
				t.Errorf("%d rows for %d ops, p50 %d µs, max %d µs", st.Rows, st.Ops, st.P50US, st.MaxUS)
			}
		})
	}
	// Nothing flushes: a row no read returns fails as NotVisible.
	cfg := ts.config("kv", ShapeFresh)
	cfg.Keyspace, cfg.CompareCQL = "loadgen_fresh", node.Addr()
	cfg.Rate, cfg.Ramp, cfg.Step, cfg.FreshTimeout = 4, []int{4}, 500*time.Millisecond, 300*time.Millisecond
	rep := run(t, cfg)
	if st := rep.Flight[0]; st.Ops+st.Errors == 0 || st.Errors != st.ErrorsByCode["NotVisible"] {
		t.Errorf("without flushes: %d ops, errors %v; want only NotVisible failures", st.Ops, st.ErrorsByCode)
	}
}
