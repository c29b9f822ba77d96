package flightserver_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"os"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/sstable-flight/sstable-flight/flightserver"
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
	srv, err := flightserver.New(flightserver.Config{DataDir: dir, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Snapshot: snapshot.Config{Mode: snapshot.Live}}) // bench data does not change under the benchmark
	if err != nil {
		b.Fatal(err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	go srv.Serve(lis)
	c, err := flight.NewClientWithMiddleware(lis.Addr().String(), nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		c.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
	})
	return c, ks
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
	ctx := context.Background()
	desc := path(ks, benchTable(ks, bench, corpus))
	rows := int64(0)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		info, err := c.GetFlightInfo(ctx, desc)
		if err != nil {
			b.Fatal(err)
		}
		for _, ep := range info.Endpoint {
			stream, err := c.DoGet(ctx, ep.Ticket)
			if err != nil {
				b.Fatal(err)
			}
			rd, err := flight.NewRecordReader(stream)
			if err != nil {
				b.Fatal(err)
			}
			for rd.Next() {
				rows += rd.RecordBatch().NumRows()
			}
			if err := rd.Err(); err != nil {
				b.Fatal(err)
			}
			rd.Release()
		}
	}
	b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(float64(rows)/float64(b.N), "rows/op")
}

// BenchmarkKeyedRead is a warm point read of one partition through
// GetFlightInfo (a JSON command with the key) and DoGet, the two round
// trips a client makes; the latency per op is the client's.
func BenchmarkKeyedRead(b *testing.B) {
	c, ks := benchServer(b)
	ctx := context.Background()
	body := keyedCommand(ks)
	desc := &flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: body}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		info, err := c.GetFlightInfo(ctx, desc)
		if err != nil {
			b.Fatal(err)
		}
		stream, err := c.DoGet(ctx, info.Endpoint[0].Ticket)
		if err != nil {
			b.Fatal(err)
		}
		readOneRow(b, stream)
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
		stream, err := c.DoGet(ctx, ticket)
		if err != nil {
			b.Fatal(err)
		}
		readOneRow(b, stream)
	}
}

// readOneRow reads a DoGet stream to its end and fails unless it held
// exactly one row.
func readOneRow(b *testing.B, stream flight.FlightService_DoGetClient) {
	rd, err := flight.NewRecordReader(stream)
	if err != nil {
		b.Fatal(err)
	}
	defer rd.Release()
	n := 0
	for rd.Next() {
		n += int(rd.RecordBatch().NumRows())
	}
	if err := rd.Err(); err != nil {
		b.Fatal(err)
	}
	if n != 1 {
		b.Fatalf("%d rows, want 1", n)
	}
}
