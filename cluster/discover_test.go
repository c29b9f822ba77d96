package cluster

import (
	"context"
	"net/netip"
	"reflect"
	"testing"
	"time"

	"github.com/sstable-flight/sstable-flight/internal/testkit/cassandratest"
	"github.com/sstable-flight/sstable-flight/token"
)

// TestDiscoverSingleNode reads the shared node's ring: one node, its one
// token 0 (the harness's initial_token), SimpleSnitch's DC and rack, its
// CQL address, and the replication of keyspaces of each strategy.
func TestDiscoverSingleNode(t *testing.T) {
	n := cassandratest.Shared(t)
	s := n.FreshKeyspace(t, "ring_discover_simple")
	for _, q := range []string{
		"DROP KEYSPACE IF EXISTS ring_discover_nts",
		"CREATE KEYSPACE ring_discover_nts WITH replication = {'class': 'NetworkTopologyStrategy', 'datacenter1': 3}",
	} {
		if err := s.Query(q).Exec(); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	top, err := Discover(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	nodes := top.Ring.Nodes()
	if len(nodes) != 1 {
		t.Fatalf("ring of %d nodes, want 1", len(nodes))
	}
	got := nodes[0]
	want := netip.MustParseAddrPort(n.Addr())
	if got.Native != want || got.Broadcast != want.Addr() || got.DC != "datacenter1" || got.Rack != "rack1" ||
		!reflect.DeepEqual(got.Tokens, []token.Token{0}) {
		t.Errorf("node %+v, want native %s, dc datacenter1/rack1, token 0", got, want)
	}
	if local, ok := top.Ring.Local(); !ok || local.HostID != got.HostID {
		t.Errorf("local node %v, want %s", local, got.HostID)
	}
	for ks, want := range map[string]Replication{
		"ring_discover_simple": SimpleStrategy{RF: 1},
		"ring_discover_nts":    NetworkTopologyStrategy{DCs: map[string]int{"datacenter1": 3}},
		"system":               LocalStrategy{},
		"system_schema":        LocalStrategy{},
	} {
		t.Run(ks, func(t *testing.T) {
			if got := top.Keyspaces[ks]; !reflect.DeepEqual(got, want) {
				t.Errorf("keyspace %s: %v, want %v", ks, got, want)
			}
		})
	}
	if len(top.Unsupported) != 0 {
		t.Errorf("unsupported keyspaces: %v", top.Unsupported)
	}
	m, err := top.Replicas("ring_discover_nts")
	if err != nil {
		t.Fatal(err)
	}
	if len(m) != 1 || m[0].Range != (token.Range{Start: 0, End: 0}) || len(m[0].Replicas) != 1 || m[0].Replicas[0].HostID != got.HostID {
		t.Errorf("placement %v, want the whole ring (0,0] on the one node", m)
	}
	if _, err := top.Replicas("ring_no_such_keyspace"); err == nil {
		t.Error("placement of an unknown keyspace: no error")
	}
}
