package flightserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"

	"github.com/sstable-flight/sstable-flight/flightserver"
	"github.com/sstable-flight/sstable-flight/flightserver/catalog"
	"github.com/sstable-flight/sstable-flight/flightserver/fresh"
	"github.com/sstable-flight/sstable-flight/flightserver/tables"
	"github.com/sstable-flight/sstable-flight/internal/testkit/cassandratest"
	"github.com/sstable-flight/sstable-flight/internal/testkit/flighttest"
	"github.com/sstable-flight/sstable-flight/snapshot"
)

// BenchmarkScanUnflushedTail is issue #28's cost target: a full scan of a
// table whose last 10% of rows are only in the commit log ("tail"),
// beside the same rows in a table flushed whole ("flushed"), through one
// server reading the log, on the shared node. Its epoch is cut once per
// window (an hour here), so each scan reads the SSTables and the runs
// already sealed: the ratio is the merge's and the runs' cost.
//
//	go test ./flightserver -run '^$' -bench BenchmarkScanUnflushedTail -benchtime 20x
func BenchmarkScanUnflushedTail(b *testing.B) {
	node := cassandratest.Shared(b)
	ctx := context.Background()
	const ks, rows = "h_fresh_bench", 20_000
	s := node.FreshKeyspace(b, ks,
		"CREATE TABLE "+ks+".flushed (k int, c int, v text, n bigint, PRIMARY KEY (k, c))",
		"CREATE TABLE "+ks+".tail (k int, c int, v text, n bigint, PRIMARY KEY (k, c))")
	write := func(table string, from, to int) {
		var wg sync.WaitGroup
		errs := make(chan error, 8)
		for w := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := from + w; i < to; i += 8 {
					q := "INSERT INTO " + ks + "." + table + " (k, c, v, n) VALUES (?, ?, ?, ?)"
					if err := s.Query(q, i/10, i%10, fmt.Sprintf("value-%08d", i), int64(i)).Exec(); err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		if err := <-errs; err != nil {
			b.Fatal(err)
		}
	}
	for _, table := range []string{"flushed", "tail"} {
		if err := node.DisableAutoCompaction(ctx, ks, table); err != nil {
			b.Fatal(err)
		}
	}
	write("flushed", 0, rows)
	write("tail", 0, rows*9/10)
	if err := node.Flush(ctx, ks); err != nil {
		b.Fatal(err)
	}
	write("tail", rows*9/10, rows)
	cat := catalog.New(catalog.Options{Session: s})
	heapBefore := heapInUse()
	clog, err := fresh.Start(fresh.Config{Dir: filepath.Join(node.Dir, "commitlog"), Catalog: cat, Sessions: catalog.Fixed{S: s}})
	if err != nil {
		b.Fatal(err)
	}
	defer clog.Close()
	srv := flighttest.Serve(b, flightserver.Config{DataDir: node.DataDir(), Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Schemas: tables.NewCatalogSchemas(cat), CommitLog: clog,
		Snapshot: snapshot.Config{Mode: snapshot.Live, Window: time.Hour}}, false)
	client := flighttest.Dial(b, srv.Addr)
	scan := func(table string) *flight.FlightInfo {
		c, _ := json.Marshal(map[string]any{"version": 1, "keyspace": ks, "table": table, "splits": 1})
		info, err := client.GetFlightInfo(ctx, &flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: c})
		if err != nil {
			b.Fatal(err)
		}
		return info
	}
	// The tail's rows must all be held before its epoch is cut for an
	// hour.
	if err := cat.Refresh(ctx); err != nil {
		b.Fatal(err)
	}
	// The log is read to its end when a poll found nothing new: the
	// position stays, and past the writes.
	for deadline, last := time.Now().Add(time.Minute), clog.Stats(); ; {
		time.Sleep(time.Second)
		st := clog.Stats()
		if st.Updates >= rows/10 && st.Through.SegmentID != 0 && st.Through == last.Through && st.Updates == last.Updates {
			break
		}
		if time.Now().After(deadline) {
			b.Fatalf("after a minute the overlay holds %+v, want %d updates and a log read to its end", st, rows/10)
		}
		last = st
	}
	// Planning each table cuts its epoch: the flushed table's updates,
	// and the tail's flushed 90%, are dropped as covered, and the tail's
	// runs are sealed. What is left is the unflushed writes' cost.
	info := scan("tail")
	scan("flushed")
	b.Logf("tail planned with %d rows estimated; app_metadata %s", info.TotalRecords, info.AppMetadata)
	st, heap := clog.Stats(), heapInUse()-heapBefore
	b.Logf("unflushed: %d updates, %d bytes held (sstf_overlay_bytes); heap %d bytes more than before the log was read, with the tail's runs: %.0f per update, %.2f per byte held",
		st.Updates, st.Bytes, heap, float64(heap)/float64(st.Updates), float64(heap)/float64(st.Bytes))
	for _, table := range []string{"flushed", "tail"} {
		if n, err := countRows(ctx, &testServer{client: client}, scan(table).Endpoint[0].Ticket.Ticket); err != nil || n != rows {
			b.Fatalf("%s: %d rows (%v), want %d", table, n, err, rows)
		}
	}
	for _, table := range []string{"flushed", "tail"} {
		b.Run(table, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				info := scan(table)
				if err := flighttest.DrainDoGet(ctx, client, info.Endpoint[0].Ticket.Ticket); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	// A keyed read of a partition the tail holds only in the log, and of
	// the same partition flushed: one command sent as the ticket.
	for _, table := range []string{"flushed", "tail"} {
		b.Run(table+"-key", func(b *testing.B) {
			c, _ := json.Marshal(map[string]any{"version": 1, "keyspace": ks, "table": table, "keys": []any{map[string]any{"k": rows/10 - 5}}})
			b.ReportAllocs()
			for b.Loop() {
				if err := flighttest.DrainDoGet(ctx, client, c); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// heapInUse is the live heap after a collection (HeapAlloc).
func heapInUse() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}
