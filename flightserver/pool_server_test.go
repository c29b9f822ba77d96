package flightserver_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"

	"github.com/sstable-flight/sstable-flight/flightserver"
)

// TestConcurrentStreamsKeepTheirOwnBytes runs many streams at once
// through the server's buffer pool (startServer puts the checked
// allocator over it) and checks each against the same table read alone,
// batch for batch. Batches of 3 rows make every stream free and
// reallocate its builders' buffers hundreds of times, so the streams
// trade memory constantly: a buffer released twice, or used after its
// release, puts one client's bytes into another's batch and fails the
// comparison (and, built with -tags invariants, shows as poison). The
// cleanup asserts no byte is outstanding.
func TestConcurrentStreamsKeepTheirOwnBytes(t *testing.T) {
	ts := startServer(t, "oa", func(c *flightserver.Config) { c.BatchRows = 3 })
	ctx := context.Background()
	type table struct {
		name string
		info *flight.FlightInfo
		want []arrow.RecordBatch
	}
	var tables []table
	for _, info := range ts.listFlights(t) {
		tables = append(tables, table{strings.Join(info.FlightDescriptor.Path, "."), info, ts.readAll(t, info)})
	}
	if len(tables) < 16 {
		t.Fatalf("%d tables listed", len(tables))
	}

	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for c := range 6 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(c), 2))
			for _, i := range rng.Perm(len(tables)) {
				tb := tables[i]
				if err := sameBatches(ctx, ts.client, tb.info, tb.want); err != nil {
					errs <- fmt.Errorf("client %d, %s: %w", c, tb.name, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// exact compares values exactly, but a NaN equals a NaN (the corpus has
// NaN doubles and floats).
var exact = []array.EqualOption{array.WithNaNsEqual(true), array.WithAbsTolerance(0)}

// sameBatches reads every endpoint of info and compares the batches, in
// order, with want.
func sameBatches(ctx context.Context, c flight.Client, info *flight.FlightInfo, want []arrow.RecordBatch) error {
	n := 0
	for _, ep := range info.Endpoint {
		stream, err := c.DoGet(ctx, ep.Ticket)
		if err != nil {
			return err
		}
		rd, err := flight.NewRecordReader(stream)
		if err != nil {
			return err
		}
		for rd.Next() {
			rec := rd.RecordBatch()
			if n >= len(want) {
				rd.Release()
				return fmt.Errorf("more than the %d batches read alone", len(want))
			}
			if !array.RecordApproxEqual(rec, want[n], exact...) {
				err := fmt.Errorf("batch %d differs from the table read alone: %s", n, recordDiff(rec, want[n]))
				rd.Release()
				return err
			}
			n++
		}
		err = rd.Err()
		rd.Release()
		if err != nil {
			return err
		}
	}
	if n != len(want) {
		return fmt.Errorf("%d batches, %d read alone", n, len(want))
	}
	return nil
}

// recordDiff names the first column of two same-schema batches that
// differs, with both values.
func recordDiff(got, want arrow.RecordBatch) string {
	if got.NumRows() != want.NumRows() || got.NumCols() != want.NumCols() {
		return fmt.Sprintf("%d rows × %d columns, want %d × %d", got.NumRows(), got.NumCols(), want.NumRows(), want.NumCols())
	}
	for i := range int(got.NumCols()) {
		if !array.ApproxEqual(got.Column(i), want.Column(i), exact...) {
			return fmt.Sprintf("column %s: got %v, want %v", got.ColumnName(i), got.Column(i), want.Column(i))
		}
	}
	return "schemas differ"
}
