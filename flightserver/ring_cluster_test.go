package flightserver_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/memory"
	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/google/uuid"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/sstable-flight/sstable-flight/cluster"
	"github.com/sstable-flight/sstable-flight/flightserver"
	"github.com/sstable-flight/sstable-flight/flightserver/catalog"
	"github.com/sstable-flight/sstable-flight/internal/cassandratest"
	"github.com/sstable-flight/sstable-flight/snapshot"
)

// ringRows is how many partitions the ring tests write: enough that each
// server's share of rows is its share of the ring within a percent or two.
const ringRows = 6000

// ringFixture is the shared three-node cluster with keyspace plan_ring
// at RF 2 (SimpleStrategy) written through CQL at consistency ALL and
// flushed on every node, and one server per node reading that node's
// data directory in place, all three sharing one ticket key and finding
// each other through a static peer list.
type ringFixture struct {
	nodes   []*cassandratest.Node
	top     *cluster.Topology
	m       cluster.ReplicaMap
	uris    []string // server i serves nodes[i]
	byURI   map[string]int
	clients []flight.Client
	want    map[int32]string // SELECT * at consistency ALL
	keyFile string
	stops   []func() // stops[i] shuts server i down
}

func newRingFixture(t *testing.T) *ringFixture {
	t.Helper()
	c := cassandratest.SharedCluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	f := &ringFixture{nodes: c.Nodes, byURI: map[string]int{}, want: map[int32]string{}}
	s, err := c.Nodes[0].Session()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	cassandratest.Exec(t, s, "DROP KEYSPACE IF EXISTS plan_ring",
		"CREATE KEYSPACE plan_ring WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 2}",
		"CREATE TABLE plan_ring.kv (k int PRIMARY KEY, v text)")
	var wg sync.WaitGroup
	errs := make(chan error, ringRows)
	for w := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := w; k < ringRows; k += 16 {
				if err := s.Query("INSERT INTO plan_ring.kv (k, v) VALUES (?, ?)", k, fmt.Sprintf("v%d", k)).Consistency(gocql.All).Exec(); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("write plan_ring.kv at ALL: %v", err)
	}
	for _, n := range c.Nodes {
		if out, err := n.NodeTool(ctx, "flush", "plan_ring"); err != nil {
			t.Fatalf("flush %s: %v: %s", n.IP(), err, out)
		}
	}
	iter := s.Query("SELECT k, v FROM plan_ring.kv").Consistency(gocql.All).Iter()
	var (
		k int32
		v string
	)
	for iter.Scan(&k, &v) {
		f.want[k] = v
	}
	if err := iter.Close(); err != nil {
		t.Fatal(err)
	}
	if len(f.want) != ringRows {
		t.Fatalf("CQL at ALL: %d rows, want %d", len(f.want), ringRows)
	}
	if f.top, err = cluster.Discover(ctx, s); err != nil {
		t.Fatal(err)
	}
	if f.m, err = f.top.Replicas("plan_ring"); err != nil {
		t.Fatal(err)
	}

	key := make([]byte, 32)
	rand.Read(key)
	f.keyFile = filepath.Join(t.TempDir(), "ticket.key")
	if err := os.WriteFile(f.keyFile, []byte(hex.EncodeToString(key)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// Listen first, so that the peer list names every server before
	// any starts.
	var lis []net.Listener
	peers := cluster.StaticPeers{}
	for _, n := range c.Nodes {
		l, err := net.Listen("tcp", net.JoinHostPort(n.IP(), "0"))
		if err != nil {
			t.Fatal(err)
		}
		lis = append(lis, l)
		uri := "grpc://" + l.Addr().String()
		f.byURI[uri] = len(f.uris)
		f.uris = append(f.uris, uri)
		peers[n.IP()] = uri
	}
	for i, n := range c.Nodes {
		f.serve(t, n, lis[i], peers)
		f.clients = append(f.clients, dialURI(t, f.uris[i]))
	}
	return f
}

// serve runs a server over node's data directory on lis, with peers.
func (f *ringFixture) serve(t *testing.T, n *cassandratest.Node, lis net.Listener, peers cluster.PeerSource) {
	t.Helper()
	s, err := n.Session()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	mem := memory.NewCheckedAllocator(flightserver.NewPoolAllocator())
	srv, err := flightserver.New(flightserver.Config{
		DataDir:       n.DataDir(),
		Allocator:     mem,
		Logger:        slog.New(slog.NewTextHandler(io.Discard, nil)),
		Snapshot:      snapshot.Config{Mode: snapshot.Live},
		Schemas:       flightserver.NewCatalogSchemas(catalog.New(catalog.Options{Session: s})),
		TicketKeyFile: f.keyFile,
		Cluster: &flightserver.ClusterConfig{
			Discover: func(ctx context.Context) (*cluster.Topology, error) { return cluster.Discover(ctx, s) },
			Peers:    peers,
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { srv.Serve(lis); close(done) }()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			srv.Shutdown(ctx)
			<-done
			mem.AssertSize(t, 0)
		})
	}
	f.stops = append(f.stops, stop)
	t.Cleanup(stop)
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
	Range *[2]flightserver.Token `json:"range"`
	Keys  [][]byte               `json:"keys"`
	Ring  bool                   `json:"ring"`
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
				r := cluster.Range{Start: cluster.Token(tk.Range[0]), End: cluster.Token(tk.Range[1])}
				rr := f.m.For(r.End)
				if !rr.Range.Contains(r.End) || r.Start < rr.Range.Start && rr.Range.Start < rr.Range.End {
					t.Fatalf("split %s is not within one ring range (%s)", r, rr.Range)
				}
				if len(ep.Location) != len(rr.Replicas) {
					t.Fatalf("split %s: %d locations, want its %d replicas' servers", r, len(ep.Location), len(rr.Replicas))
				}
				for _, loc := range ep.Location {
					i, ok := f.byURI[loc.Uri]
					if !ok || !rr.Replicates(f.node(t, i)) {
						t.Fatalf("split %s: location %s is not the server of a replica (%v)", r, loc.Uri, rr.Replicas)
					}
				}
				first := f.byURI[ep.Location[0].Uri]
				served[first] += readRingRows(t, f.clients[first], ep.Ticket, got)
			}
			if len(got) != len(f.want) {
				t.Fatalf("scan read %d rows, CQL at ALL has %d", len(got), len(f.want))
			}
			for k, v := range f.want {
				if got[k] != v {
					t.Fatalf("key %d: read %q, CQL has %q", k, got[k], v)
				}
			}
			for i, n := range served {
				share := float64(n) / float64(len(f.want))
				t.Logf("server %d served %d rows (%.1f%%)", i+1, n, 100*share)
				if share < 1.0/3-0.1 || share > 1.0/3+0.1 {
					t.Errorf("server %d served %.1f%% of the rows, want 1/3 ± 10%%", i+1, 100*share)
				}
			}
		})
	}
}

// node is the host ID of server i's node.
func (f *ringFixture) node(t *testing.T, i int) uuid.UUID {
	t.Helper()
	ip := f.nodes[i].IP()
	for _, n := range f.top.Ring.Nodes() {
		if n.Broadcast.String() == ip {
			return n.HostID
		}
	}
	t.Fatalf("no ring node at %s", ip)
	return uuid.Nil
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
		if err := json.Unmarshal(body, &info); err != nil || info.HostID != f.node(t, i).String() {
			t.Fatalf("server %d node-info %s (%v), want host %s", i+1, body, err, f.node(t, i))
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
	rr := f.m.For(cluster.KeyToken(key))
	if len(ep.Location) != len(rr.Replicas) {
		t.Fatalf("point read: %d locations, want %d", len(ep.Location), len(rr.Replicas))
	}
	for _, loc := range ep.Location {
		if !rr.Replicates(f.node(t, f.byURI[loc.Uri])) {
			t.Fatalf("point read location %s is not a replica's server", loc.Uri)
		}
	}
	got := map[int32]string{}
	readRingRows(t, f.clients[f.byURI[ep.Location[0].Uri]], ep.Ticket, got)
	if len(got) != 1 || got[42] != f.want[42] {
		t.Fatalf("point read %v, want k=42 %q", got, f.want[42])
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
		r := cluster.Range{Start: cluster.Token(tk.Range[0]), End: cluster.Token(tk.Range[1])}
		for i, c := range f.clients {
			if f.m.For(r.End).Replicates(f.node(t, i)) {
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
	lis, err := net.Listen("tcp", net.JoinHostPort(f.nodes[0].IP(), "0"))
	if err != nil {
		t.Fatal(err)
	}
	swapped := cluster.StaticPeers{f.nodes[0].IP(): "grpc://" + lis.Addr().String(), f.nodes[1].IP(): f.uris[2], f.nodes[2].IP(): f.uris[1]}
	f.serve(t, f.nodes[0], lis, swapped)
	bad := dialURI(t, "grpc://"+lis.Addr().String())
	_, err = bad.GetFlightInfo(ctx, &flight.FlightDescriptor{Type: flight.DescriptorPATH, Path: []string{"plan_ring", "kv"}})
	if status.Code(err) != codes.Unavailable || !strings.Contains(err.Error(), "proved it serves its node") {
		t.Fatalf("scan through a planner with swapped peers: %v, want UNAVAILABLE: no proven server", err)
	}
	for k := int32(0); k < 200; k++ {
		key := []byte{0, 0, byte(k >> 8), byte(k)}
		if !f.m.For(cluster.KeyToken(key)).Replicates(f.node(t, 0)) {
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
	s, err := f.nodes[0].Session()
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
	f.stops[1]()
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
			i := f.byURI[loc.Uri]
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
	if len(got) != len(f.want) {
		t.Fatalf("scan with a server stopped read %d rows, CQL at ALL has %d", len(got), len(f.want))
	}
}
