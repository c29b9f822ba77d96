package cluster

import (
	"net/netip"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/sstable-flight/sstable-flight/token"
)

// testNode is node number id (host ID ...0id, broadcast 127.0.0.id) in dc
// and rack, owning tokens.
func testNode(id byte, dc, rack string, tokens ...token.Token) Node {
	var h uuid.UUID
	h[15] = id
	addr := netip.AddrFrom4([4]byte{127, 0, 0, id})
	return Node{HostID: h, Broadcast: addr, Native: netip.AddrPortFrom(addr, 9042), DC: dc, Rack: rack, Tokens: tokens}
}

func mustRing(t *testing.T, local byte, nodes ...Node) *Ring {
	t.Helper()
	var l uuid.UUID
	if local != 0 {
		l[15] = local
	}
	r, err := NewRing(l, nodes)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// lineRing is a ring of one token per node: node i (from 1) at token
// 10·i, in places[i-1], "dc/rack". The tests draw it as "10 A dc1/r1, 20
// B dc1/r1, …".
func lineRing(t *testing.T, places ...string) *Ring {
	t.Helper()
	var nodes []Node
	for i, p := range places {
		dc, rack, _ := strings.Cut(p, "/")
		nodes = append(nodes, testNode(byte(i+1), dc, rack, token.Token(10*(i+1))))
	}
	return mustRing(t, 0, nodes...)
}

// names renders replicas as the last octet of their broadcast addresses,
// "1,3,2", so expectations read as the ring diagrams in the tests.
func names(nodes []*Node) string {
	var b strings.Builder
	for i, n := range nodes {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('0' + n.Broadcast.As4()[3])
	}
	return b.String()
}

// placement is one expected range: its end token and its replicas in
// order, as names writes them.
type placement struct {
	end      token.Token
	replicas string
}

func checkPlacement(t *testing.T, r *Ring, s Replication, want []placement) {
	t.Helper()
	m, err := Replicas(r, s)
	if err != nil {
		t.Fatal(err)
	}
	if len(m) != len(want) {
		t.Fatalf("%s: %d ranges, want %d", s, len(m), len(want))
	}
	for i, w := range want {
		got := m[i]
		if got.Range.End != w.end || names(got.Replicas) != w.replicas {
			t.Errorf("%s: range %d = %s on [%s], want end %d on [%s]", s, i, got.Range, names(got.Replicas), w.end, w.replicas)
		}
	}
}
