package cassandratest

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// TestSharedClusterIsUp checks the shared cluster as the harness promises
// it: three nodes on 127.0.0.1, .2 and .3, each reporting over CQL the DC
// and rack of DefaultPlaces (so GossipingPropertyFileSnitch read each
// node's own properties file), distinct CQL and JMX ports, one storage
// port, and every node Up and Normal in the last node's view.
func TestSharedClusterIsUp(t *testing.T) {
	c := SharedCluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if len(c.Nodes) != 3 {
		t.Fatalf("%d nodes, want 3", len(c.Nodes))
	}
	places := DefaultPlaces(3)
	ports := map[int]bool{}
	for i, n := range c.Nodes {
		if n.IP() != NodeIP(i) {
			t.Errorf("node %d on %s, want %s", i+1, n.IP(), NodeIP(i))
		}
		if n.Storage != c.Nodes[0].Storage {
			t.Errorf("node %d storage port %d, node 1's %d", i+1, n.Storage, c.Nodes[0].Storage)
		}
		for _, p := range []int{n.CQLPort, n.JMXPort} {
			if ports[p] {
				t.Errorf("node %d: port %d used twice", i+1, p)
			}
			ports[p] = true
		}
		s, err := n.Session()
		if err != nil {
			t.Fatal(err)
		}
		var dc, rack, addr string
		err = s.Query("SELECT data_center, rack, rpc_address FROM system.local").Scan(&dc, &rack, &addr)
		s.Close()
		if err != nil {
			t.Fatal(err)
		}
		if dc != places[i].DC || rack != places[i].Rack || addr != n.IP() {
			t.Errorf("node %d reports %s/%s at %s, want %s/%s at %s", i+1, dc, rack, addr, places[i].DC, places[i].Rack, n.IP())
		}
	}
	if err := c.waitNormal(ctx, c.Nodes[len(c.Nodes)-1], time.Minute); err != nil {
		t.Fatal(err)
	}
}

func TestDefaultPlaces(t *testing.T) {
	for n, want := range map[int]string{1: "rack1", 2: "rack1 rack2", 3: "rack1 rack1 rack2", 4: "rack1 rack1 rack2 rack2"} {
		t.Run(fmt.Sprintf("%d nodes", n), func(t *testing.T) {
			var got string
			for i, p := range DefaultPlaces(n) {
				if p.DC != "dc1" {
					t.Errorf("%d nodes: node %d in %s", n, i, p.DC)
				}
				if i > 0 {
					got += " "
				}
				got += p.Rack
			}
			if got != want {
				t.Errorf("%d nodes: racks %q, want %q", n, got, want)
			}
		})
	}
}
