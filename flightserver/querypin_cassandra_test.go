package flightserver_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/sstable-flight/sstable-flight/flightserver"
	"github.com/sstable-flight/sstable-flight/flightserver/catalog"
	"github.com/sstable-flight/sstable-flight/flightserver/request"
	"github.com/sstable-flight/sstable-flight/internal/testkit/cassandratest"
	"github.com/sstable-flight/sstable-flight/internal/testkit/testclock"
	"github.com/sstable-flight/sstable-flight/snapshot"
)

// TestQueryIDPinsOneRead: on the shared node, in a keyspace of its own,
// the plans of one query_id read the same SSTables at the same read time
// whatever Cassandra flushed and whatever time passed between them (a
// self-join's two scans read one snapshot), through GetFlightInfo and
// through a command sent to DoGet as its ticket; a plan without an id, or
// with another, sees the new SSTable and the TTL that expired meanwhile
// (so the test can fail). A pinned epoch that retired is ABORTED; a pin
// past its TTL is gone, and the id reads anew; bad ids are refused.
func TestQueryIDPinsOneRead(t *testing.T) {
	node := cassandratest.Shared(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	const ks = "h_server_pin"
	const ddl = "CREATE TABLE " + ks + ".t (k int PRIMARY KEY, v text)"
	s := node.FreshKeyspace(t, ks, ddl)
	t.Cleanup(func() { cassandratest.Exec(t, s, "DROP KEYSPACE IF EXISTS "+ks) })
	if err := node.DisableAutoCompaction(ctx, ks, "t"); err != nil {
		t.Fatal(err)
	}
	// write inserts keys [from, to) and flushes them into an SSTable of
	// their own.
	write := func(from, to int) {
		t.Helper()
		for k := from; k < to; k++ {
			if err := s.Query("INSERT INTO "+ks+".t (k, v) VALUES (?, ?)", k, fmt.Sprint("v", k)).Exec(); err != nil {
				t.Fatal(err)
			}
		}
		if err := node.Flush(ctx, ks, "t"); err != nil {
			t.Fatal(err)
		}
	}
	keys := func(from, to int, more ...int32) []int32 {
		var out []int32
		for k := from; k < to; k++ {
			out = append(out, int32(k))
		}
		return append(out, more...)
	}
	// Key 1000 lives an hour (from Cassandra's clock); the server's
	// clock starts after it was written and is moved past it below.
	cassandratest.Exec(t, s, "INSERT INTO "+ks+".t (k, v) VALUES (1000, 'ttl') USING TTL 3600")
	write(0, 100)
	clock := testclock.New(time.Now())
	// The table's schema as its DDL gives it: the node's whole schema
	// is other tests' too, and one table there this server cannot read
	// would leave this one to its SSTable headers' names.
	tables, err := catalog.ParseCQL(ddl)
	if err != nil {
		t.Fatal(err)
	}
	ts := startServer(t, "oa", func(c *flightserver.Config) {
		c.DataDir, c.Now = node.DataDir(), clock.Now
		c.Schemas = corpusSchemas{ks + ".t": tables[0]}
		c.QueryPinTTL = 24 * time.Hour // longer than the hours moved below
	})
	command := func(id string) []byte {
		c := `{"version":1,"keyspace":"` + ks + `","table":"t","splits":1`
		if id != "" {
			c += `,"query_id":"` + id + `"`
		}
		return []byte(c + "}")
	}
	plan := func(id string) (*request.Ticket, []int32) {
		t.Helper()
		info, err := ts.client.GetFlightInfo(ctx, &flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: command(id)})
		if err != nil {
			t.Fatalf("plan with query_id %q: %v", id, err)
		}
		tk, err := request.InspectTicket(info.Endpoint[0].Ticket.Ticket)
		if err != nil {
			t.Fatal(err)
		}
		return tk, readKeys(t, ts, info.Endpoint[0].Ticket)
	}
	direct := func(id string) []int32 {
		t.Helper()
		return readKeys(t, ts, &flight.Ticket{Ticket: command(id)})
	}
	expect := func(what string, got, want []int32) {
		t.Helper()
		if !slices.Equal(got, want) {
			t.Fatalf("%s read %d keys %v, want %d keys %v", what, len(got), got, len(want), want)
		}
	}

	a1, rows := plan("A")
	first := keys(0, 100, 1000)
	expect("the first plan of A", rows, first)

	// A second SSTable, and two hours (past the window and key 1000's
	// TTL) before the next plans.
	write(100, 200)
	clock.Add(2 * time.Hour)
	now := keys(0, 200)

	a2, rows := plan("A")
	expect("A's second plan", rows, first)
	if a2.Now != a1.Now || a2.Epoch != a1.Epoch {
		t.Fatalf("A's second plan: now %d, epoch %s; want its first plan's %d, %s", a2.Now, a2.Epoch, a1.Now, a1.Epoch)
	}
	expect("A as a command for DoGet", direct("A"), first)
	none, rows := plan("")
	expect("a plan without query_id", rows, now)
	if none.Epoch == a1.Epoch || none.Now != clock.Now().Unix() {
		t.Fatalf("a plan without query_id: now %d, epoch %s; want the clock's %d and a new epoch (A's is %s)", none.Now, none.Epoch, clock.Now().Unix(), a1.Epoch)
	}
	b, rows := plan("B")
	expect("a plan of another query_id", rows, now)
	if b.Epoch != none.Epoch || b.Now != none.Now {
		t.Fatalf("B: now %d, epoch %s; want the current %d, %s", b.Now, b.Epoch, none.Now, none.Epoch)
	}

	// A command sent to DoGet is a query's first plan as well as any.
	expect("D's first read, a command for DoGet", direct("D"), now)
	write(200, 210)
	clock.Add(time.Minute)
	d, rows := plan("D")
	expect("D's plan after a flush", rows, now)
	if d.Epoch != none.Epoch {
		t.Fatalf("D's plan: epoch %s, want the one its DoGet read, %s", d.Epoch, none.Epoch)
	}
	_, rows = plan("")
	expect("a plan without query_id after the flush", rows, keys(0, 210))

	// A's epoch, superseded and unused past the grace, retires: A's
	// next plan is ABORTED, as a ticket of that epoch is, not read from
	// another epoch.
	clock.Add(snapshot.DefaultGrace + time.Second)
	flightserver.SweepSnapshots(ts.srv)
	_, err = ts.client.GetFlightInfo(ctx, &flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: command("A")})
	if status.Code(err) != codes.Aborted || !strings.Contains(err.Error(), "query_id") {
		t.Fatalf("A planned after its epoch retired: %v, want ABORTED naming the query_id", err)
	}
	// The ABORTED dropped A's pin: the query run again under its id (as
	// Trino's retries keep the query id) reads anew, now.
	a2, rows2 := plan("A")
	expect("A run again after ABORTED", rows2, keys(0, 210))
	if a2.Now != clock.Now().Unix() {
		t.Fatalf("A run again after ABORTED: now %d, want the clock's %d", a2.Now, clock.Now().Unix())
	}

	// Past the pin's TTL the id is a new query's.
	clock.Add(24 * time.Hour)
	a3, rows := plan("A")
	expect("A after its pin's TTL", rows, keys(0, 210))
	if a3.Now != clock.Now().Unix() {
		t.Fatalf("A after its pin's TTL: now %d, want the clock's %d", a3.Now, clock.Now().Unix())
	}

	// Bad ids, through either door.
	for _, bad := range []string{`""`, `"` + strings.Repeat("q", 129) + `"`, `"tab\there"`, `42`} {
		cmd := []byte(`{"version":1,"keyspace":"` + ks + `","table":"t","splits":1,"query_id":` + bad + `}`)
		_, err := ts.client.GetFlightInfo(ctx, &flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: cmd})
		if status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), "query_id") {
			t.Errorf("GetFlightInfo with query_id %.20s: %v, want INVALID_ARGUMENT naming query_id", bad, err)
		}
		if _, err := readStream(ctx, ts, cmd); status.Code(err) != codes.InvalidArgument {
			t.Errorf("DoGet of a command with query_id %.20s: %v, want INVALID_ARGUMENT", bad, err)
		}
	}
}

// readKeys reads a ticket's stream (readRingRows: no key twice) and
// returns its keys, sorted.
func readKeys(t *testing.T, ts *testServer, ticket *flight.Ticket) []int32 {
	t.Helper()
	got := map[int32]string{}
	readRingRows(t, ts.client, ticket, got)
	return slices.Sorted(maps.Keys(got))
}
