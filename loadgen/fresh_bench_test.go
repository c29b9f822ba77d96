package loadgen

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/sstable-flight/sstable-flight/flightserver"
	"github.com/sstable-flight/sstable-flight/flightserver/catalog"
	"github.com/sstable-flight/sstable-flight/flightserver/fresh"
	"github.com/sstable-flight/sstable-flight/flightserver/tables"
	"github.com/sstable-flight/sstable-flight/internal/testkit/cassandratest"
	"github.com/sstable-flight/sstable-flight/internal/testkit/flighttest"
	"github.com/sstable-flight/sstable-flight/snapshot"
)

// BenchmarkFreshness measures issue #28's freshness on the shared node
// (commitlog_sync periodic, its default): 1,000 writes through CQL at
// 1,000 writes/s, each polled through Flight until its row shows, with
// a 1 s snapshot window. Arms: "commitlog" reads the commit log and
// nothing flushes; "flushed" reads SSTables only while the table is
// flushed every second (nodetool, as memtable_flush_period_in_ms = 1000
// would), today's only lever. Reported: p50 and p99 lag in ms, and rows
// not seen within 30 s.
//
//	go test ./loadgen -run '^$' -bench BenchmarkFreshness -benchtime 1x
func BenchmarkFreshness(b *testing.B) {
	node := cassandratest.Shared(b)
	const ks = "loadgen_freshbench"
	s := node.FreshKeyspace(b, ks, "CREATE TABLE "+ks+".kv (k text PRIMARY KEY, v text)")
	cat := catalog.New(catalog.Options{Session: s})
	for _, arm := range []string{"commitlog", "flushed"} {
		b.Run(arm, func(b *testing.B) {
			cfg := flightserver.Config{DataDir: node.DataDir(), Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
				Schemas:  tables.NewCatalogSchemas(cat),
				Snapshot: snapshot.Config{Mode: snapshot.Live, Window: time.Second}}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var wg sync.WaitGroup
			if arm == "commitlog" {
				l, err := fresh.Start(fresh.Config{Dir: filepath.Join(node.Dir, "commitlog"), Catalog: cat, Sessions: catalog.Fixed{S: s}})
				if err != nil {
					b.Fatal(err)
				}
				defer l.Close()
				cfg.CommitLog = l
			} else {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for ctx.Err() == nil {
						_ = node.Flush(ctx, ks, "kv")
						select {
						case <-ctx.Done():
						case <-time.After(time.Second):
						}
					}
				}()
			}
			srv := flighttest.Serve(b, cfg, true)
			for b.Loop() {
				rep, err := Run(ctx, Config{Addr: srv.Addr, Keyspace: ks, Table: "kv", Shape: ShapeFresh, CompareCQL: node.Addr(),
					Rate: 1000, Ramp: []int{256}, Step: time.Second, Seed: 1, FreshTimeout: 30 * time.Second})
				if err != nil {
					b.Fatal(err)
				}
				st := rep.Flight[0]
				b.ReportMetric(float64(st.P50US)/1000, "p50-ms")
				b.ReportMetric(float64(st.P99US)/1000, "p99-ms")
				b.ReportMetric(float64(st.Ops), "seen")
				b.ReportMetric(float64(st.Errors), "not-seen")
			}
			cancel()
			wg.Wait()
		})
	}
}
