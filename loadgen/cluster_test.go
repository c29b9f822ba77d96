package loadgen

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"

	"github.com/sstable-flight/sstable-flight/cluster"
	"github.com/sstable-flight/sstable-flight/flightserver"
	"github.com/sstable-flight/sstable-flight/internal/testkit/ringtest"
)

const clusterRows = 3000

// TestRingFollowsLocations: against the real three-node cluster with a
// server per node, scans and point reads planned by one server are read
// where their locations say, every row once, each server serving about a
// third of the rows; with one server stopped they (and limited scans,
// endpoints read in order until the limit) still complete, the
// endpoints that named it first moving on to the next replica's server.
func TestRingFollowsLocations(t *testing.T) {
	f := ringtest.New(t, ringtest.Options{Keyspace: "clusterc_loadgen", Rows: clusterRows,
		Mutate: func(i int, cfg *flightserver.Config) {
			// The planner keeps listing the server stopped below (its
			// proof is still fresh), so that clients meet it.
			cfg.Cluster.PeerTTL = 10 * time.Minute
		}})
	cfg := Config{Addr: strings.TrimPrefix(f.URIs[0], "grpc://"), Keyspace: "clusterc_loadgen", Table: "kv",
		Shape: ShapeScan, Ramp: []int{2}, Step: 500 * time.Millisecond, Seed: 1}
	rep := run(t, cfg)
	s := rep.Flight[0]
	checkNoErrors(t, s)
	if s.Rows != s.Ops*clusterRows {
		t.Fatalf("%d scans read %d rows, want %d each", s.Ops, s.Rows, clusterRows)
	}
	byURI := map[string]LocationServed{}
	for _, l := range rep.Served {
		byURI[l.Location] = l
	}
	for i, uri := range f.URIs {
		share := float64(byURI[uri].Rows) / float64(s.Rows)
		t.Logf("server %d (%s) served %d rows (%.1f%%)", i+1, uri, byURI[uri].Rows, 100*share)
		if share < 1.0/3-0.1 || share > 1.0/3+0.1 {
			t.Errorf("server %d served %.1f%% of the rows, want 1/3 ± 10%%", i+1, 100*share)
		}
	}

	f.Stops[1]()
	for _, shape := range []string{ShapeScan, ShapePoint, ShapeLimit} {
		c := cfg
		c.Shape = shape
		rep := run(t, c)
		s := rep.Flight[0]
		checkNoErrors(t, s)
		if shape == ShapeScan && s.Rows != s.Ops*clusterRows {
			t.Fatalf("server 2 stopped: %d scans read %d rows, want %d each", s.Ops, s.Rows, clusterRows)
		}
		if shape == ShapeLimit && s.Rows != s.Ops*10 {
			t.Fatalf("server 2 stopped: %d limit-10 ops read %d rows, want 10 each", s.Ops, s.Rows)
		}
		if shape == ShapePoint && s.Rows != s.Ops {
			t.Fatalf("server 2 stopped: %d point reads read %d rows, want one each", s.Ops, s.Rows)
		}
		for _, l := range rep.Served {
			t.Logf("%s, server 2 stopped: %s served %d rows over %d endpoints, skipped %d", shape, l.Location, l.Rows, l.Endpoints, l.Skipped)
			if l.Location == f.URIs[1] && (l.Rows != 0 || l.Skipped == 0) {
				t.Errorf("%s: the stopped server: %+v, want no rows and some skips", shape, l)
			}
		}
	}
}

// TestRingOverTLS: three servers on the real cluster serving grpc+tls
// with certificates of a private CA, each verifying its peers against
// that CA (--peer-ca), plan scans that a client verifying the same CA
// (--ca-file) reads whole, from all three; a server verifying its peers
// against the system's roots proves none of them and cannot plan.
func TestRingOverTLS(t *testing.T) {
	pki := ringtest.NewPKI(t)
	f := ringtest.New(t, ringtest.Options{Keyspace: "clusterc_tls", Rows: 1500, Scheme: "grpc+tls",
		Mutate: func(i int, cfg *flightserver.Config) {
			cfg.TLSCert, cfg.TLSKey = pki.Cert, pki.Key
			if i < 3 { // the fourth server, below, lacks it
				cfg.Cluster.PeerCA = pki.CA
			}
		}})
	cfg := Config{Addr: strings.TrimPrefix(f.URIs[0], "grpc+tls://"), CAFile: pki.CA, Keyspace: "clusterc_tls", Table: "kv",
		Shape: ShapeScan, Ramp: []int{2}, Step: 500 * time.Millisecond, Seed: 1}
	rep := run(t, cfg)
	s := rep.Flight[0]
	checkNoErrors(t, s)
	if s.Rows != s.Ops*1500 {
		t.Fatalf("%d scans over TLS read %d rows, want 1500 each", s.Ops, s.Rows)
	}
	for _, l := range rep.Served {
		t.Logf("over TLS: %s served %d rows", l.Location, l.Rows)
		if !strings.HasPrefix(l.Location, "grpc+tls://") || l.Rows == 0 {
			t.Errorf("location %+v: want a grpc+tls server that served rows", l)
		}
	}
	if len(rep.Served) != len(f.URIs) {
		t.Errorf("%d locations served, want all %d servers", len(rep.Served), len(f.URIs))
	}

	lis, err := net.Listen("tcp", net.JoinHostPort(f.Nodes[0].IP(), "0"))
	if err != nil {
		t.Fatal(err)
	}
	peers := cluster.StaticPeers{}
	for i, n := range f.Nodes {
		peers[n.IP()] = f.URIs[i]
	}
	peers[f.Nodes[0].IP()] = "grpc+tls://" + lis.Addr().String()
	f.Serve(t, len(f.Nodes), f.Nodes[0], lis, peers)
	c := cfg
	c.Addr = lis.Addr().String()
	fc, err := DialFlight(&c)
	if err != nil {
		t.Fatal(err)
	}
	defer fc.Close()
	_, err = fc.GetFlightInfo(context.Background(), &flight.FlightDescriptor{Type: flight.DescriptorPATH, Path: []string{"clusterc_tls", "kv"}})
	if codeOf(err) != Unavailable || !strings.Contains(err.Error(), "proved it serves its node") {
		t.Fatalf("plan by a server without --peer-ca: %v, want UNAVAILABLE: no peer proven", err)
	}
}
