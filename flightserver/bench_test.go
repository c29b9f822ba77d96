package flightserver_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/flight"

	"github.com/sstable-flight/sstable-flight/flightserver"
	"github.com/sstable-flight/sstable-flight/internal/testkit/flighttest"
	"github.com/sstable-flight/sstable-flight/snapshot"
)

// benchServer serves the bench dataset (SSTF_BENCH_DIR, from make
// bench-data: keyspace bench, tables narrow, wide and gens) or, without
// it, the committed corpus (keyspace corpus).
func benchServer(b *testing.B) (flight.Client, string) {
	b.Helper()
	dir, ks := os.Getenv("SSTF_BENCH_DIR"), "bench"
	if dir == "" {
		dir, ks = corpusRoot()+"/oa", "corpus"
	}
	s := flighttest.Serve(b, flightserver.Config{DataDir: dir, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Snapshot: snapshot.Config{Mode: snapshot.Live}}, false) // bench data does not change under the benchmark
	return flighttest.Dial(b, s.Addr), ks
}

func benchTable(ks, bench, corpus string) string {
	if ks == "bench" {
		return bench
	}
	return corpus
}

// BenchmarkDoGetScan reads a whole table over loopback gRPC with one
// client stream per endpoint in sequence: decode, merge, Arrow encoding,
// IPC and the client's decoding of the stream, as a Flight client sees it.
func BenchmarkDoGetScanNarrow(b *testing.B) { benchmarkScan(b, "narrow", "many") }
func BenchmarkDoGetScanWide(b *testing.B)   { benchmarkScan(b, "wide", "wide") }

func benchmarkScan(b *testing.B, bench, corpus string) {
	c, ks := benchServer(b)
	rows := int64(0)
	benchPlanAndRead(b, c, path(ks, benchTable(ks, bench, corpus)), func(ctx context.Context, info *flight.FlightInfo) {
		for _, ep := range info.Endpoint {
			rows += readRows(ctx, b, c, ep.Ticket)
		}
	})
	b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(float64(rows)/float64(b.N), "rows/op")
}

// BenchmarkKeyedRead is a warm point read of one partition through
// GetFlightInfo (a JSON command with the key) and DoGet, the two round
// trips a client makes; the latency per op is the client's.
func BenchmarkKeyedRead(b *testing.B) {
	c, ks := benchServer(b)
	desc := &flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: keyedCommand(ks)}
	benchPlanAndRead(b, c, desc, func(ctx context.Context, info *flight.FlightInfo) {
		readOneRow(ctx, b, c, info.Endpoint[0].Ticket)
	})
}

// benchPlanAndRead times b.N operations of a client: plan desc
// (GetFlightInfo), then read what the plan gives.
func benchPlanAndRead(b *testing.B, c flight.Client, desc *flight.FlightDescriptor, read func(ctx context.Context, info *flight.FlightInfo)) {
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		info, err := c.GetFlightInfo(ctx, desc)
		if err != nil {
			b.Fatal(err)
		}
		read(ctx, info)
	}
}

// keyedCommand is a command reading one partition that exists: of
// bench.narrow (cmd/corpusgen's keys) or of the corpus's many.
func keyedCommand(ks string) []byte {
	table, col, key := "narrow", "key", any("key-0000000042")
	if ks == "corpus" {
		table, col, key = "many", "id", 2492279 // a row of expected.json
	}
	body, _ := json.Marshal(map[string]any{"version": 1, "keyspace": ks, "table": table, "keys": []any{map[string]any{col: key}}})
	return body
}

// BenchmarkKeyedReadDirect is the warm point read flight-loadgen's
// --direct runs (Lane A's A2): the JSON command sent straight to DoGet,
// one round trip.
func BenchmarkKeyedReadDirect(b *testing.B) {
	c, ks := benchServer(b)
	ctx := context.Background()
	ticket := &flight.Ticket{Ticket: keyedCommand(ks)}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		readOneRow(ctx, b, c, ticket)
	}
}

// readRows reads a ticket's DoGet stream to its end, as a client decodes
// it, and returns its rows.
func readRows(ctx context.Context, b *testing.B, c flight.Client, ticket *flight.Ticket) int64 {
	stream, err := c.DoGet(ctx, ticket)
	if err != nil {
		b.Fatal(err)
	}
	rd, err := flight.NewRecordReader(stream)
	if err != nil {
		b.Fatal(err)
	}
	defer rd.Release()
	n := int64(0)
	for rd.Next() {
		n += rd.RecordBatch().NumRows()
	}
	if err := rd.Err(); err != nil {
		b.Fatal(err)
	}
	return n
}

// readOneRow reads a ticket's stream (readRows) and fails unless it held
// exactly one row.
func readOneRow(ctx context.Context, b *testing.B, c flight.Client, ticket *flight.Ticket) {
	if n := readRows(ctx, b, c, ticket); n != 1 {
		b.Fatalf("%d rows, want 1", n)
	}
}
