package flightserver_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sstable-flight/sstable-flight/flightserver"
	"github.com/sstable-flight/sstable-flight/flightserver/request"
	"github.com/sstable-flight/sstable-flight/internal/testkit/testclock"
	"github.com/sstable-flight/sstable-flight/snapshot"
)

// planTicket plans a read of the table and returns its first ticket.
func planTicket(t *testing.T, ts *testServer, keyspace, table string) *request.Ticket {
	t.Helper()
	info, err := ts.client.GetFlightInfo(context.Background(), path(keyspace, table))
	if err != nil {
		t.Fatal(err)
	}
	tk, err := request.InspectTicket(info.Endpoint[0].Ticket.Ticket)
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

// TestInjectedClockDrivesWindows: Config.Now is the clock of every
// freshness decision, the snapshot window's and the table cache's, not
// only of the tickets' read time. The fake clock moves past the window in
// no real time: only a server that reads it sees the change.
func TestInjectedClockDrivesWindows(t *testing.T) {
	start := time.Unix(1_800_000_000, 0)
	for _, tc := range []struct {
		name string
		// change alters the table's directory (one the server already
		// listed) and the data directory around it.
		change func(t *testing.T, data, tableDir string)
		// stale says what a server that missed the change still serves.
		stale string
	}{
		{"snapshot window", func(t *testing.T, data, tableDir string) {
			// A compaction's end: generation 3 is gone from the directory.
			gen3, _ := filepath.Glob(filepath.Join(tableDir, "oa-3-big-*"))
			for _, f := range gen3 {
				if err := os.Remove(f); err != nil {
					t.Fatal(err)
				}
			}
		}, "cut before the SSTables changed"},
		{"table directory cache", func(t *testing.T, data, tableDir string) {
			// The table dropped and created again, the new directory
			// holding the SSTables: the server takes it once it looks
			// again.
			renamed := filepath.Join(data, "corpus", "deletions-ffffffffffffffffffffffffffffffff")
			if err := os.Mkdir(renamed, 0o755); err != nil {
				t.Fatal(err)
			}
			files, _ := filepath.Glob(filepath.Join(tableDir, "*"))
			for _, f := range files {
				if err := os.Link(f, filepath.Join(renamed, filepath.Base(f))); err != nil {
					t.Fatal(err)
				}
			}
		}, "of the old directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := copyCorpusTable(t, "deletions")
			clock := testclock.New(start)
			ts := startServer(t, "oa", func(c *flightserver.Config) {
				c.DataDir, c.Now = data, clock.Now
			})
			first := planTicket(t, ts, "corpus", "deletions")
			if first.Now != start.Unix() {
				t.Fatalf("ticket read time %d, want the fake clock's %d", first.Now, start.Unix())
			}
			dirs, _ := filepath.Glob(filepath.Join(data, "corpus", "deletions-*"))
			tc.change(t, data, dirs[0])
			clock.Add(snapshot.DefaultWindow - time.Millisecond)
			if got := planTicket(t, ts, "corpus", "deletions"); got.Epoch != first.Epoch {
				t.Fatalf("within the window: epoch %s, want the first query's %s", got.Epoch, first.Epoch)
			}
			clock.Add(time.Millisecond)
			if got := planTicket(t, ts, "corpus", "deletions"); got.Epoch == first.Epoch {
				t.Fatalf("the fake clock past the window: still epoch %s, %s", got.Epoch, tc.stale)
			}
		})
	}
}
