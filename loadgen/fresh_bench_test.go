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

// BenchmarkFreshness measures issue #28's freshness: 1,000 writes through
// CQL at 1,000 writes/s, each polled through Flight until its row shows,
// with a 1 s snapshot window; reported: p50 and p99 lag in ms from the
// write's acknowledgement, and rows not seen within 30 s. Arms:
//
//   - periodic: the shared node (commitlog_sync periodic, 10 s, its
//     default; the segment mmap'd), the server reading its commit log,
//     nothing flushed;
//
//   - flushed: the same node and table, the server reading SSTables only
//     while the table is flushed every second (nodetool, as
//     memtable_flush_period_in_ms = 1000 would): today's only lever;
//
//   - batch, group (15 ms window), periodic-lz4 (a compressed log, which
//     reaches its file only at each 10 s sync): nodes of their own.
//
//     go test ./loadgen -run '^$' -bench BenchmarkFreshness -benchtime 1x
func BenchmarkFreshness(b *testing.B) {
	shared := cassandratest.Shared(b)
	arms := []struct {
		name, yaml string
		flushed    bool
	}{
		{name: "periodic"},
		{name: "flushed", flushed: true},
		{name: "batch", yaml: "commitlog_sync: batch\ncommitlog_sync_period: 0ms\n"},
		{name: "group", yaml: "commitlog_sync: group\ncommitlog_sync_period: 0ms\ncommitlog_sync_group_window: 15ms\n"},
		{name: "periodic-lz4", yaml: "commitlog_compression:\n  - class_name: LZ4Compressor\n"},
	}
	for _, arm := range arms {
		b.Run(arm.name, func(b *testing.B) {
			node := shared
			if arm.yaml != "" {
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
				defer cancel()
				n, err := cassandratest.Start(ctx, cassandratest.Options{HeapMB: 512, ExtraYAML: arm.yaml})
				if err != nil {
					b.Fatal(err)
				}
				defer n.Stop()
				node = n
			}
			freshnessArm(b, node, arm.flushed)
		})
	}
}

// freshnessArm runs the freshness shape against a server over node, which
// reads node's commit log unless flushed (then a goroutine flushes the
// table every second).
func freshnessArm(b *testing.B, node *cassandratest.Node, flushed bool) {
	const ks = "loadgen_freshbench"
	s := node.FreshKeyspace(b, ks, "CREATE TABLE IF NOT EXISTS "+ks+".kv (k text PRIMARY KEY, v text)")
	cat := catalog.New(catalog.Options{Session: s})
	cfg := flightserver.Config{DataDir: node.DataDir(), Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Schemas:  tables.NewCatalogSchemas(cat),
		Snapshot: snapshot.Config{Mode: snapshot.Live, Window: time.Second}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	if !flushed {
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
			Rate: 1000, Ramp: []int{1000}, Step: time.Second, Seed: 1, FreshTimeout: 30 * time.Second})
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
}
