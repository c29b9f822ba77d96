package flightserver_test

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/sstable-flight/sstable-flight/cluster"
	"github.com/sstable-flight/sstable-flight/flightserver"
	"github.com/sstable-flight/sstable-flight/flightserver/arrowenc"
	"github.com/sstable-flight/sstable-flight/internal/testkit/cassandratest"
	"github.com/sstable-flight/sstable-flight/internal/testkit/ringtest"
	"github.com/sstable-flight/sstable-flight/token"
)

// ringRows is how many partitions the ring tests write: enough that each
// server's share of rows is its share of the ring within a percent or two.
const ringRows = 6000

// ringFixture is internal/testkit/ringtest's ring over keyspace plan_ring, with a
// client of each server.
type ringFixture struct {
	*ringtest.Fixture
	clients []flight.Client
}

func newRingFixture(t *testing.T) *ringFixture {
	t.Helper()
	f := &ringFixture{Fixture: ringtest.New(t, ringtest.Options{Keyspace: "plan_ring", Rows: ringRows,
		Allocator: arrowenc.NewPoolAllocator})}
	for _, uri := range f.URIs {
		f.clients = append(f.clients, dialURI(t, uri))
	}
	return f
}

func dialURI(t *testing.T, uri string) flight.Client {
	t.Helper()
	c, err := flight.NewClientWithMiddleware(strings.TrimPrefix(uri, "grpc://"), nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// ticketPayload reads a sealed ticket's JSON payload (ticket.go: a
// five-byte header, the payload, a 32-byte MAC).
func ticketPayload(t *testing.T, b []byte) (tk struct {
	Range *[2]token.Token `json:"range"`
	Keys  [][]byte        `json:"keys"`
	Ring  bool            `json:"ring"`
}) {
	t.Helper()
	if err := json.Unmarshal(b[5:len(b)-32], &tk); err != nil {
		t.Fatal(err)
	}
	return tk
}

// readRingRows reads one ticket from client c into got, failing on a key
// read twice; it returns the rows read.
func readRingRows(t *testing.T, c flight.Client, ticket *flight.Ticket, got map[int32]string) int {
	t.Helper()
	stream, err := c.DoGet(context.Background(), ticket)
	if err != nil {
		t.Fatal(err)
	}
	rd, err := flight.NewRecordReader(stream)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Release()
	n := 0
	for rd.Next() {
		rec := rd.RecordBatch()
		ki, vi := rec.Schema().FieldIndices("k")[0], rec.Schema().FieldIndices("v")[0]
		ks, vs := rec.Column(ki).(*array.Int32), rec.Column(vi).(*array.String)
		for r := range int(rec.NumRows()) {
			k := ks.Value(r)
			if _, dup := got[k]; dup {
				t.Fatalf("key %d read twice", k)
			}
			got[k] = vs.Value(r)
			n++
		}
	}
	if err := rd.Err(); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestRingScan: a full scan planned by any one server, each endpoint read
// from its first location, returns exactly SELECT * at consistency ALL;
// every endpoint's locations are the servers of its range's replicas, the
// first one's node replicating it; each server serves a third of the rows
// (within 10% of them); the plan says it reads one replica per range.
func TestRingScan(t *testing.T) {
	f := newRingFixture(t)
	for planner := range f.clients {
		t.Run(fmt.Sprintf("via%d", planner+1), func(t *testing.T) {
			info, err := f.clients[planner].GetFlightInfo(context.Background(),
				&flight.FlightDescriptor{Type: flight.DescriptorPATH, Path: []string{"plan_ring", "kv"}})
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Contains(info.AppMetadata, []byte(`"consistency":"ONE"`)) {
				t.Errorf("app_metadata %s does not say single-replica (ONE)", info.AppMetadata)
			}
			got := map[int32]string{}
			served := make([]int, len(f.clients))
			for _, ep := range info.Endpoint {
				tk := ticketPayload(t, ep.Ticket.Ticket)
				if tk.Range == nil || !tk.Ring {
					t.Fatalf("endpoint ticket %+v: want a ring ticket of a range", tk)
				}
				r := token.Range{Start: token.Token(tk.Range[0]), End: token.Token(tk.Range[1])}
				rr := f.M.For(r.End)
				if !rr.Range.Contains(r.End) || r.Start < rr.Range.Start && rr.Range.Start < rr.Range.End {
					t.Fatalf("split %s is not within one ring range (%s)", r, rr.Range)
				}
				if len(ep.Location) != len(rr.Replicas) {
					t.Fatalf("split %s: %d locations, want its %d replicas' servers", r, len(ep.Location), len(rr.Replicas))
				}
				for _, loc := range ep.Location {
					i, ok := f.ByURI[loc.Uri]
					if !ok || !rr.Replicates(f.Node(t, i)) {
						t.Fatalf("split %s: location %s is not the server of a replica (%v)", r, loc.Uri, rr.Replicas)
					}
				}
				first := f.ByURI[ep.Location[0].Uri]
				served[first] += readRingRows(t, f.clients[first], ep.Ticket, got)
			}
			if len(got) != len(f.Want) {
				t.Fatalf("scan read %d rows, CQL at ALL has %d", len(got), len(f.Want))
			}
			for k, v := range f.Want {
				if got[k] != v {
					t.Fatalf("key %d: read %q, CQL has %q", k, got[k], v)
				}
			}
			for i, n := range served {
				share := float64(n) / float64(len(f.Want))
				t.Logf("server %d served %d rows (%.1f%%)", i+1, n, 100*share)
				if share < 1.0/3-0.1 || share > 1.0/3+0.1 {
					t.Errorf("server %d served %.1f%% of the rows, want 1/3 ± 10%%", i+1, 100*share)
				}
			}
		})
	}
}

// TestRingPointReadAndOwnership: a fully bound key plans one endpoint on
// its replicas' servers; node-info names each server's node; a ticket
// for a range a server's node does not replicate is FAILED_PRECONDITION
// naming the range, and one it does replicate reads.
func TestRingPointReadAndOwnership(t *testing.T) {
	f := newRingFixture(t)
	ctx := context.Background()
	for i, c := range f.clients {
		body, err := actionResult(ctx, c, &flight.Action{Type: flightserver.ActionNodeInfo})
		if err != nil {
			t.Fatal(err)
		}
		var info flightserver.NodeInfo
		if err := json.Unmarshal(body, &info); err != nil || info.HostID != f.Node(t, i).String() {
			t.Fatalf("server %d node-info %s (%v), want host %s", i+1, body, err, f.Node(t, i))
		}
	}

	cmd := []byte(`{"version":1,"keyspace":"plan_ring","table":"kv","keys":[{"k":42}]}`)
	info, err := f.clients[0].GetFlightInfo(ctx, &flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: cmd})
	if err != nil {
		t.Fatal(err)
	}
	if len(info.Endpoint) != 1 {
		t.Fatalf("a point read planned %d endpoints, want 1", len(info.Endpoint))
	}
	ep := info.Endpoint[0]
	key := []byte{0, 0, 0, 42}
	rr := f.M.For(token.Of(key))
	if len(ep.Location) != len(rr.Replicas) {
		t.Fatalf("point read: %d locations, want %d", len(ep.Location), len(rr.Replicas))
	}
	for _, loc := range ep.Location {
		if !rr.Replicates(f.Node(t, f.ByURI[loc.Uri])) {
			t.Fatalf("point read location %s is not a replica's server", loc.Uri)
		}
	}
	got := map[int32]string{}
	readRingRows(t, f.clients[f.ByURI[ep.Location[0].Uri]], ep.Ticket, got)
	if len(got) != 1 || got[42] != f.Want[42] {
		t.Fatalf("point read %v, want k=42 %q", got, f.Want[42])
	}

	// Every server refuses the scan endpoints whose range its node does
	// not replicate, and reads those it does.
	scan, err := f.clients[0].GetFlightInfo(ctx, &flight.FlightDescriptor{Type: flight.DescriptorPATH, Path: []string{"plan_ring", "kv"}})
	if err != nil {
		t.Fatal(err)
	}
	refused := 0
	for _, ep := range scan.Endpoint {
		tk := ticketPayload(t, ep.Ticket.Ticket)
		r := token.Range{Start: token.Token(tk.Range[0]), End: token.Token(tk.Range[1])}
		for i, c := range f.clients {
			if f.M.For(r.End).Replicates(f.Node(t, i)) {
				continue
			}
			stream, err := c.DoGet(ctx, ep.Ticket)
			if err == nil {
				_, err = stream.Recv()
			}
			if status.Code(err) != codes.FailedPrecondition || !strings.Contains(err.Error(), r.String()) {
				t.Fatalf("server %d read range %s its node does not replicate: %v, want FAILED_PRECONDITION naming it", i+1, r, err)
			}
			refused++
		}
	}
	if refused == 0 {
		t.Fatal("every server replicates every range: nothing was refused")
	}

	// A planner whose peer list swaps nodes 2 and 3 proves neither: each
	// answers node-info for the other node. It plans only on node 1's
	// server, and a range only nodes 2 and 3 replicate is UNAVAILABLE.
	lis, err := net.Listen("tcp", net.JoinHostPort(f.Nodes[0].IP(), "0"))
	if err != nil {
		t.Fatal(err)
	}
	swapped := cluster.StaticPeers{f.Nodes[0].IP(): "grpc://" + lis.Addr().String(), f.Nodes[1].IP(): f.URIs[2], f.Nodes[2].IP(): f.URIs[1]}
	f.Serve(t, 0, f.Nodes[0], lis, swapped)
	bad := dialURI(t, "grpc://"+lis.Addr().String())
	_, err = bad.GetFlightInfo(ctx, &flight.FlightDescriptor{Type: flight.DescriptorPATH, Path: []string{"plan_ring", "kv"}})
	if status.Code(err) != codes.Unavailable || !strings.Contains(err.Error(), "proved it serves its node") {
		t.Fatalf("scan through a planner with swapped peers: %v, want UNAVAILABLE: no proven server", err)
	}
	for k := int32(0); k < 200; k++ {
		key := []byte{0, 0, byte(k >> 8), byte(k)}
		if !f.M.For(token.Of(key)).Replicates(f.Node(t, 0)) {
			continue
		}
		cmd := fmt.Appendf(nil, `{"version":1,"keyspace":"plan_ring","table":"kv","keys":[{"k":%d}]}`, k)
		info, err := bad.GetFlightInfo(ctx, &flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: cmd})
		if err != nil {
			t.Fatal(err)
		}
		if locs := info.Endpoint[0].Location; len(locs) != 1 || locs[0].Uri != "grpc://"+lis.Addr().String() {
			t.Fatalf("point read of %d through a planner with swapped peers: locations %v, want only its own server", k, locs)
		}
		break
	}

	// A keyspace created after the servers read their rings is planned
	// at once: the planner reads its ring again rather than wait for the
	// next refresh (30 s).
	s, err := f.Nodes[0].Session()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// A name of this run's: one an earlier run left would be in the
	// ring the servers read at start.
	ks := fmt.Sprintf("plan_ring_new%d", time.Now().UnixNano())
	cassandratest.Exec(t, s, "CREATE KEYSPACE "+ks+" WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 2}",
		"CREATE TABLE "+ks+".kv (k int PRIMARY KEY, v text)")
	defer cassandratest.Exec(t, s, "DROP KEYSPACE "+ks)
	// The schema is the catalog's, refreshed on its own check or on
	// demand; the ring is what is under test.
	if _, err := actionResult(ctx, f.clients[0], &flight.Action{Type: flightserver.ActionRefreshSchema}); err != nil {
		t.Fatal(err)
	}
	fresh, err := f.clients[0].GetFlightInfo(ctx, &flight.FlightDescriptor{Type: flight.DescriptorPATH, Path: []string{ks, "kv"}})
	if err != nil {
		t.Fatalf("plan a keyspace created after the ring was read: %v", err)
	}
	if len(fresh.Endpoint) == 0 || len(fresh.Endpoint[0].Location) != 2 {
		t.Fatalf("plan of the new keyspace: %d endpoints, want ring ranges on 2 replicas each", len(fresh.Endpoint))
	}

	// With node 2's server stopped the scan planned by server 1 still
	// reads every row once, each endpoint from the first of its
	// locations that answers, as a client falls back.
	f.Stops[1]()
	scan, err = f.clients[0].GetFlightInfo(ctx, &flight.FlightDescriptor{Type: flight.DescriptorPATH, Path: []string{"plan_ring", "kv"}})
	if err != nil {
		t.Fatal(err)
	}
	if stream, err := f.clients[1].DoGet(ctx, scan.Endpoint[0].Ticket); err == nil {
		if _, err = stream.Recv(); status.Code(err) != codes.Unavailable {
			t.Fatalf("DoGet on the stopped server: %v, want UNAVAILABLE", err)
		}
	} else if status.Code(err) != codes.Unavailable {
		t.Fatalf("DoGet on the stopped server: %v, want UNAVAILABLE", err)
	}
	got = map[int32]string{}
	for _, ep := range scan.Endpoint {
		read := false
		for _, loc := range ep.Location {
			i := f.ByURI[loc.Uri]
			if i == 1 {
				continue // stopped (UNAVAILABLE, above): a client moves on
			}
			readRingRows(t, f.clients[i], ep.Ticket, got)
			read = true
			break
		}
		if !read {
			t.Fatalf("endpoint %v: no location but the stopped server", ep.Location)
		}
	}
	if len(got) != len(f.Want) {
		t.Fatalf("scan with a server stopped read %d rows, CQL at ALL has %d", len(got), len(f.Want))
	}
}

// TestRingLimit: a limited scan over the ring says in app_metadata that
// its limit holds per endpoint, plans one endpoint per run of ranges
// with one replica set (fewer than the ring's ranges), and a client that
// reads its endpoints in order and stops after limit rows gets exactly
// the table's first limit rows in token order.
func TestRingLimit(t *testing.T) {
	f := newRingFixture(t)
	const limit = 100
	cmd := fmt.Appendf(nil, `{"version":1,"keyspace":"plan_ring","table":"kv","limit":%d}`, limit)
	info, err := f.clients[0].GetFlightInfo(context.Background(), &flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: cmd})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(info.AppMetadata, []byte(`"limit_scope":"endpoint"`)) || !info.Ordered {
		t.Fatalf("limited ring plan: app_metadata %s, ordered %v: want the limit's per-endpoint scope said, and ordered", info.AppMetadata, info.Ordered)
	}
	if len(info.Endpoint) >= len(f.M) {
		t.Errorf("limited ring plan: %d endpoints for %d ring ranges, want adjacent ranges of one replica set joined", len(info.Endpoint), len(f.M))
	}
	token := func(k int32) token.Token {
		return token.Of([]byte{byte(k >> 24), byte(k >> 16), byte(k >> 8), byte(k)})
	}
	got := map[int32]string{}
	for _, ep := range info.Endpoint {
		if len(got) >= limit {
			break
		}
		if n := readRingRows(t, f.clients[f.ByURI[ep.Location[0].Uri]], ep.Ticket, got); n > limit {
			t.Fatalf("an endpoint read %d rows, over its limit %d", n, limit)
		}
	}
	first := func(m map[int32]string) []int32 {
		ks := make([]int32, 0, len(m))
		for k := range m {
			ks = append(ks, k)
		}
		slices.SortFunc(ks, func(a, b int32) int { return cmp.Compare(token(a), token(b)) })
		return ks[:min(limit, len(ks))]
	}
	if g, w := first(got), first(f.Want); !slices.Equal(g, w) {
		t.Fatalf("the first %d rows read in endpoint order are not the table's first %d in token order:\n got %v\nwant %v", limit, limit, g, w)
	}
}
