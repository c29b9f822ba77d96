package ringtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/google/uuid"

	"github.com/sstable-flight/sstable-flight/cluster"
	"github.com/sstable-flight/sstable-flight/flightserver"
	"github.com/sstable-flight/sstable-flight/flightserver/catalog"
	"github.com/sstable-flight/sstable-flight/flightserver/tables"
	"github.com/sstable-flight/sstable-flight/internal/testkit/cassandratest"
	"github.com/sstable-flight/sstable-flight/snapshot"
)

// Options is one fixture's keyspace and servers.
type Options struct {
	Keyspace string // dropped and created with table kv (k int PRIMARY KEY, v text)
	Rows     int    // partitions written
	// Scheme of the servers' peer URIs: "grpc" (default) or "grpc+tls"
	// (then Mutate must give each server its certificate).
	Scheme string
	// Mutate, when set, changes server i's config before it starts.
	Mutate func(i int, cfg *flightserver.Config)
	// Allocator makes each server's allocator (default Go's), checked
	// to be empty when the server stops.
	Allocator func() memory.Allocator
}

// Fixture is a running ring: server i serves Nodes[i] at URIs[i].
type Fixture struct {
	Nodes   []*cassandratest.Node
	Top     *cluster.Topology
	M       cluster.ReplicaMap // the keyspace's placement
	URIs    []string
	ByURI   map[string]int
	Want    map[int32]string // SELECT * at consistency ALL
	KeyFile string
	Stops   []func() // Stops[i] shuts server i down (and is run at cleanup)
	opt     Options
}

// New writes the keyspace and starts the three servers.
func New(t *testing.T, opt Options) *Fixture {
	t.Helper()
	if opt.Scheme == "" {
		opt.Scheme = "grpc"
	}
	c := cassandratest.SharedCluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	f := &Fixture{Nodes: c.Nodes, ByURI: map[string]int{}, Want: map[int32]string{}, opt: opt}
	s, err := c.Nodes[0].Session()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	ks := opt.Keyspace
	cassandratest.Exec(t, s, "DROP KEYSPACE IF EXISTS "+ks,
		"CREATE KEYSPACE "+ks+" WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 2}",
		"CREATE TABLE "+ks+".kv (k int PRIMARY KEY, v text)")
	var wg sync.WaitGroup
	errs := make(chan error, opt.Rows)
	for w := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := w; k < opt.Rows; k += 16 {
				if err := s.Query("INSERT INTO "+ks+".kv (k, v) VALUES (?, ?)", k, fmt.Sprintf("v%d", k)).Consistency(gocql.All).Exec(); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("write %s.kv at ALL: %v", ks, err)
	}
	for _, n := range c.Nodes {
		if out, err := n.NodeTool(ctx, "flush", ks); err != nil {
			t.Fatalf("flush %s: %v: %s", n.IP(), err, out)
		}
	}
	iter := s.Query("SELECT k, v FROM " + ks + ".kv").Consistency(gocql.All).Iter()
	var (
		k int32
		v string
	)
	for iter.Scan(&k, &v) {
		f.Want[k] = v
	}
	if err := iter.Close(); err != nil {
		t.Fatal(err)
	}
	if len(f.Want) != opt.Rows {
		t.Fatalf("CQL at ALL: %d rows, want %d", len(f.Want), opt.Rows)
	}
	if f.Top, err = cluster.Discover(ctx, s); err != nil {
		t.Fatal(err)
	}
	if f.M, err = f.Top.Replicas(ks); err != nil {
		t.Fatal(err)
	}

	key := make([]byte, 32)
	rand.Read(key)
	f.KeyFile = filepath.Join(t.TempDir(), "ticket.key")
	if err := os.WriteFile(f.KeyFile, []byte(hex.EncodeToString(key)+"\n"), 0o600); err != nil {
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
		uri := opt.Scheme + "://" + l.Addr().String()
		f.ByURI[uri] = len(f.URIs)
		f.URIs = append(f.URIs, uri)
		peers[n.IP()] = uri
	}
	for i, n := range c.Nodes {
		f.Serve(t, i, n, lis[i], peers)
	}
	return f
}

// Serve runs a server over node's data directory on lis, with peers; i
// is the server's index for Options.Mutate. Its stop function is
// appended to Stops.
func (f *Fixture) Serve(t *testing.T, i int, n *cassandratest.Node, lis net.Listener, peers cluster.PeerSource) {
	t.Helper()
	s, err := n.Session()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	base := memory.Allocator(memory.NewGoAllocator())
	if f.opt.Allocator != nil {
		base = f.opt.Allocator()
	}
	mem := memory.NewCheckedAllocator(base)
	cfg := flightserver.Config{
		DataDir:       n.DataDir(),
		Allocator:     mem,
		Logger:        slog.New(slog.NewTextHandler(io.Discard, nil)),
		Snapshot:      snapshot.Config{Mode: snapshot.Live},
		Schemas:       tables.NewCatalogSchemas(catalog.New(catalog.Options{Session: s})),
		TicketKeyFile: f.KeyFile,
		Cluster: &flightserver.ClusterConfig{
			Discover: func(ctx context.Context) (*cluster.Topology, error) { return cluster.Discover(ctx, s) },
			Peers:    peers,
		},
	}
	if f.opt.Mutate != nil {
		f.opt.Mutate(i, &cfg)
	}
	srv, err := flightserver.New(cfg)
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
	f.Stops = append(f.Stops, stop)
	t.Cleanup(stop)
}

// Node is the host ID of server i's node.
func (f *Fixture) Node(t *testing.T, i int) uuid.UUID {
	t.Helper()
	ip := f.Nodes[i].IP()
	for _, n := range f.Top.Ring.Nodes() {
		if n.Broadcast.String() == ip {
			return n.HostID
		}
	}
	t.Fatalf("no ring node at %s", ip)
	return uuid.Nil
}
