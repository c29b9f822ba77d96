package loadgen

import (
	"strings"
	"testing"
	"time"

	"github.com/sstable-flight/sstable-flight/flightserver"
	"github.com/sstable-flight/sstable-flight/internal/ringtest"
)

const clusterRows = 3000

// TestRingFollowsLocations: against the real three-node cluster with a
// server per node, scans and point reads planned by one server are read
// where their locations say, every row once, each server serving about a
// third of the rows; with one server stopped they still complete, the
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
	for _, shape := range []string{ShapeScan, ShapePoint} {
		c := cfg
		c.Shape = shape
		rep := run(t, c)
		s := rep.Flight[0]
		checkNoErrors(t, s)
		if shape == ShapeScan && s.Rows != s.Ops*clusterRows {
			t.Fatalf("server 2 stopped: %d scans read %d rows, want %d each", s.Ops, s.Rows, clusterRows)
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
