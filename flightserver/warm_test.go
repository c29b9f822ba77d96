package flightserver_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"

	"github.com/sstable-flight/sstable-flight/flightserver"
	"github.com/sstable-flight/sstable-flight/snapshot"
)

// TestWarmReadsTouchNoStorage: once a table's directory, snapshot epoch
// and schema are known within the window, and its key and chunk cached,
// a keyed read (a command sent to DoGet, or planned by GetFlightInfo and
// read by DoGet) starts no operation of the storage guard: finding and
// leasing the table and ending the lease are updates in memory, made
// where the request runs. Before, each request ran them on goroutines
// of the guard (four per keyed read sent to DoGet: the lease of its plan
// and of its stream, and the release of each), which were a sixth of a
// warm keyed read's instructions.
func TestWarmReadsTouchNoStorage(t *testing.T) {
	ts := startServer(t, "oa", func(c *flightserver.Config) {
		c.Snapshot = snapshot.Config{Mode: snapshot.Live, Window: time.Minute}
	})
	ctx := context.Background()
	cmd, _ := json.Marshal(map[string]any{"version": 1, "keyspace": "corpus", "table": "many", "keys": []any{map[string]any{"id": 2492279}}})
	direct := func() {
		if err := drainTicket(ctx, ts, &flight.Ticket{Ticket: cmd}); err != nil {
			t.Fatal(err)
		}
	}
	planned := func() {
		info, err := ts.client.GetFlightInfo(ctx, &flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: cmd})
		if err != nil {
			t.Fatal(err)
		}
		if err := drainTicket(ctx, ts, info.Endpoint[0].Ticket); err != nil {
			t.Fatal(err)
		}
	}
	direct() // finds the table, cuts its epoch, reads its schema, caches the key and chunk
	planned()
	before := flightserver.StorageOps(ts.srv)
	for range 10 {
		direct()
		planned()
	}
	if n := flightserver.StorageOps(ts.srv) - before; n != 0 {
		t.Fatalf("20 warm keyed reads started %d storage guard operations, want 0", n)
	}
}
