package flightserver_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/sstable-flight/sstable-flight/flightserver"
	"github.com/sstable-flight/sstable-flight/flightserver/arrowenc"
	"github.com/sstable-flight/sstable-flight/internal/testkit/flighttest"
	"github.com/sstable-flight/sstable-flight/snapshot"
)

// testServer runs a server over a corpus mode's data directory with
// arrow's checked allocator over the server's own buffer pool, so the
// streams recycle buffers as in production; the cleanup stops it and
// checks every Arrow buffer was released.
type testServer struct {
	srv    *flightserver.Server
	addr   string
	mem    *memory.CheckedAllocator
	client flight.Client
}

func startServer(t *testing.T, mode string, mutate ...func(*flightserver.Config)) *testServer {
	t.Helper()
	mem := memory.NewCheckedAllocator(arrowenc.NewPoolAllocator())
	cfg := flightserver.Config{
		DataDir:   filepath.Join(corpusRoot(), mode),
		Allocator: mem,
		Logger:    slog.New(slog.NewTextHandler(io.Discard, nil)),
		// The committed corpus never changes: read it in place. The
		// hard-link mode has its own tests over copies.
		Snapshot: snapshot.Config{Mode: snapshot.Live},
	}
	for _, f := range mutate {
		f(&cfg)
	}
	// Cleanups run last first: the client closes, the server stops, then
	// every Arrow buffer must be back.
	t.Cleanup(func() { mem.AssertSize(t, 0) })
	s := flighttest.Serve(t, cfg, false)
	return &testServer{srv: s.Server, addr: s.Addr, mem: mem, client: flighttest.Dial(t, s.Addr)}
}

// readAll reads every endpoint of a flight info, in order.
func (ts *testServer) readAll(t *testing.T, info *flight.FlightInfo) []arrow.RecordBatch {
	t.Helper()
	var out []arrow.RecordBatch
	for _, ep := range info.Endpoint {
		stream, err := ts.client.DoGet(context.Background(), ep.Ticket)
		if err != nil {
			t.Fatal(err)
		}
		rd, err := flight.NewRecordReader(stream)
		if err != nil {
			t.Fatal(err)
		}
		for rd.Next() {
			rec := rd.RecordBatch()
			rec.Retain()
			out = append(out, rec)
		}
		if err := rd.Err(); err != nil {
			t.Fatal(err)
		}
		rd.Release()
	}
	t.Cleanup(func() {
		for _, r := range out {
			r.Release()
		}
	})
	return out
}

func corpusRoot() string { return filepath.Join("..", "testdata", "corpus") }

// listFlights returns every flight the server lists.
func (ts *testServer) listFlights(t *testing.T) []*flight.FlightInfo {
	t.Helper()
	stream, err := ts.client.ListFlights(context.Background(), &flight.Criteria{})
	if err != nil {
		t.Fatal(err)
	}
	infos, err := flighttest.Collect(stream.Recv)
	if err != nil {
		t.Fatal(err)
	}
	return infos
}

func TestListFlightsServesCorpus(t *testing.T) {
	ts := startServer(t, "oa")
	infos := ts.listFlights(t)
	for _, info := range infos {
		// Each listed table is read as a case of its own, "oa/<table>".
		t.Run("oa/"+info.FlightDescriptor.Path[len(info.FlightDescriptor.Path)-1], func(t *testing.T) {
			recs := ts.readAll(t, info)
			rows := int64(0)
			for _, r := range recs {
				rows += r.NumRows()
			}
			t.Logf("%v: %d endpoints, %d rows (estimate %d)", info.FlightDescriptor.Path, len(info.Endpoint), rows, info.TotalRecords)
		})
	}
	if n := len(infos); n < 16 {
		t.Errorf("%d tables listed", n)
	}
}

func flightTicket(b []byte) *flight.Ticket { return &flight.Ticket{Ticket: b} }

func newReader(stream flight.FlightService_DoGetClient) (*flight.Reader, error) {
	return flight.NewRecordReader(stream)
}

// shutdown stops the server now (the test's cleanup stops it again,
// which does nothing more).
func (ts *testServer) shutdown(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ts.srv.Shutdown(ctx)
}

// tableStats runs the table-stats action for keyspace.table and decodes
// its one result.
func tableStats(ctx context.Context, t *testing.T, ts *testServer, keyspace, table string) flightserver.TableStats {
	t.Helper()
	body, err := json.Marshal(map[string]string{"keyspace": keyspace, "table": table})
	if err != nil {
		t.Fatal(err)
	}
	res, err := actionResult(ctx, ts.client, &flight.Action{Type: flightserver.ActionTableStats, Body: body})
	if err != nil {
		t.Fatal(err)
	}
	var st flightserver.TableStats
	if err := json.Unmarshal(res, &st); err != nil {
		t.Fatal(err)
	}
	return st
}

// actionResult runs an action and returns its first result's body.
func actionResult(ctx context.Context, c flight.Client, a *flight.Action) ([]byte, error) {
	stream, err := c.DoAction(ctx, a)
	if err != nil {
		return nil, err
	}
	res, err := stream.Recv()
	if err != nil {
		return nil, err
	}
	return res.Body, nil
}
