package cluster

import (
	"context"
	"encoding/binary"
	"fmt"
	"net/netip"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sstable-flight/sstable-flight/internal/testkit/cassandratest"
	"github.com/sstable-flight/sstable-flight/token"
)

// oracleKeyspaces are the keyspaces whose placement is checked against
// Cassandra's on the shared cluster (DefaultPlaces: dc1 with rack1,
// rack1, rack2). {'dc1': 2} must pass a rack1 node to reach rack2;
// {'dc1': 3} must put two replicas on rack1, in Cassandra's order;
// factor 5 is above the node count.
var oracleKeyspaces = []struct {
	name, replication string
	want              Replication
}{
	{"ring_oracle_simple2", "{'class': 'SimpleStrategy', 'replication_factor': 2}", SimpleStrategy{RF: 2}},
	{"ring_oracle_simple5", "{'class': 'SimpleStrategy', 'replication_factor': 5}", SimpleStrategy{RF: 5}},
	{"ring_oracle_nts2", "{'class': 'NetworkTopologyStrategy', 'dc1': 2}", NetworkTopologyStrategy{DCs: map[string]int{"dc1": 2}}},
	{"ring_oracle_nts3", "{'class': 'NetworkTopologyStrategy', 'dc1': 3}", NetworkTopologyStrategy{DCs: map[string]int{"dc1": 3}}},
}

// TestReplicasMatchDescribering is the oracle of the package: on a real
// three-node cluster with 16 tokens per node, Replicas must give every
// range `nodetool describering` gives, with the same endpoints in the
// same order (describering lists them in placement order, primary
// first), and `nodetool getendpoints` must name the replicas of a few
// keys in the order For gives.
func TestReplicasMatchDescribering(t *testing.T) {
	c := cassandratest.SharedCluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	s, err := c.Nodes[0].Session()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, ks := range oracleKeyspaces {
		for _, q := range []string{
			"DROP KEYSPACE IF EXISTS " + ks.name,
			"CREATE KEYSPACE " + ks.name + " WITH replication = " + ks.replication,
			"CREATE TABLE " + ks.name + ".kv (k int PRIMARY KEY, v text)",
		} {
			if err := s.Query(q).Exec(); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
	}
	top, err := Discover(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(top.Ring.Tokens()); got != 16*len(c.Nodes) {
		t.Fatalf("ring of %d tokens, want %d", got, 16*len(c.Nodes))
	}
	for _, ks := range oracleKeyspaces {
		t.Run(ks.name, func(t *testing.T) {
			if got := top.Keyspaces[ks.name]; fmt.Sprint(got) != fmt.Sprint(ks.want) {
				t.Fatalf("replication %v, want %v", got, ks.want)
			}
			m, err := top.Replicas(ks.name)
			if err != nil {
				t.Fatal(err)
			}
			out, err := c.Nodes[0].NodeTool(ctx, "describering", ks.name)
			if err != nil {
				t.Fatal(err)
			}
			want := parseDescribering(t, out)
			if len(want) != len(m) {
				t.Fatalf("describering has %d ranges, Replicas %d", len(want), len(m))
			}
			mismatches := 0
			for _, rr := range m {
				got := broadcasts(rr.Replicas)
				if w, ok := want[rr.Range]; !ok {
					t.Errorf("range %s on %v: not in describering", rr.Range, got)
					mismatches++
				} else if !slices.Equal(got, w) {
					t.Errorf("range %s: Replicas %v, describering %v", rr.Range, got, w)
					mismatches++
				}
				if mismatches > 5 {
					t.Fatal("more than 5 ranges differ")
				}
			}
			// A few keys through getendpoints: the token of a key, the
			// range that holds it and its replicas, in order.
			for _, k := range []int32{1, 17} {
				out, err := c.Nodes[0].NodeTool(ctx, "getendpoints", ks.name, "kv", strconv.Itoa(int(k)))
				if err != nil {
					t.Fatal(err)
				}
				key := binary.BigEndian.AppendUint32(nil, uint32(k))
				got := broadcasts(m.For(token.Of(key)).Replicas)
				if w := strings.Fields(string(out)); !slices.Equal(got, w) {
					t.Errorf("key %d (token %d): For gives %v, getendpoints %v", k, token.Of(key), got, w)
				}
			}
		})
	}
}

// TestDiscoverCluster reads the ring from each node of the shared
// cluster: every view must be the same three nodes, each with its own
// address, CQL port (the harness gives each node its own), DC and rack,
// and 16 tokens; the local node is the one asked.
func TestDiscoverCluster(t *testing.T) {
	c := cassandratest.SharedCluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var first []Node
	for i, cn := range c.Nodes {
		s, err := cn.Session()
		if err != nil {
			t.Fatal(err)
		}
		top, err := Discover(ctx, s)
		s.Close()
		if err != nil {
			t.Fatalf("node %d: %v", i+1, err)
		}
		nodes := top.Ring.Nodes()
		if len(nodes) != len(c.Nodes) {
			t.Fatalf("node %d sees %d nodes, want %d", i+1, len(nodes), len(c.Nodes))
		}
		local, ok := top.Ring.Local()
		if !ok || local.Native != netip.MustParseAddrPort(cn.Addr()) {
			t.Errorf("node %d: local node %v, want the one at %s", i+1, local, cn.Addr())
		}
		for _, want := range c.Nodes {
			var got *Node
			for k := range nodes {
				if nodes[k].Native == netip.MustParseAddrPort(want.Addr()) {
					got = &nodes[k]
				}
			}
			switch {
			case got == nil:
				var natives []string
				for _, n := range nodes {
					natives = append(natives, n.Native.String())
				}
				t.Errorf("node %d's view has no node at %s, only at %v", i+1, want.Addr(), natives)
			case got.Broadcast.String() != want.IP() || got.DC != want.DC || got.Rack != want.Rack || len(got.Tokens) != 16:
				t.Errorf("node %d's view of %s: %s with %d tokens, want %s/%s with 16", i+1, want.Addr(), got, len(got.Tokens), want.DC, want.Rack)
			}
		}
		slices.SortFunc(nodes, func(a, b Node) int { return a.Broadcast.Compare(b.Broadcast) })
		if first == nil {
			first = slices.Clone(nodes)
		} else if fmt.Sprint(first) != fmt.Sprint(nodes) {
			t.Errorf("node %d's view differs from node 1's:\n%v\n%v", i+1, nodes, first)
		}
	}
}

func broadcasts(nodes []*Node) []string {
	var out []string
	for _, n := range nodes {
		out = append(out, n.Broadcast.String())
	}
	return out
}

var describeringRange = regexp.MustCompile(`TokenRange\(start_token:(-?\d+), end_token:(-?\d+), endpoints:\[([^\]]*)\]`)

// parseDescribering reads `nodetool describering`: each range (start,
// end] and its endpoints as listed.
func parseDescribering(t *testing.T, out []byte) map[token.Range][]string {
	t.Helper()
	ranges := map[token.Range][]string{}
	for _, m := range describeringRange.FindAllStringSubmatch(string(out), -1) {
		start, err1 := strconv.ParseInt(m[1], 10, 64)
		end, err2 := strconv.ParseInt(m[2], 10, 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("describering range %q: bad tokens", m[0])
		}
		var eps []string
		for _, e := range strings.Split(m[3], ",") {
			eps = append(eps, strings.TrimSpace(e))
		}
		ranges[token.Range{Start: token.Token(start), End: token.Token(end)}] = eps
	}
	if len(ranges) == 0 {
		t.Fatalf("describering printed no ranges:\n%s", out)
	}
	return ranges
}
