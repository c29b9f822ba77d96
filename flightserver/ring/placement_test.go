package ring

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/google/uuid"

	"github.com/sstable-flight/sstable-flight/cluster"
	"github.com/sstable-flight/sstable-flight/token"
)

// shares builds a ring of nodes (each node's tokens), places it with
// SimpleStrategy at rf, and returns each node's replicatedShare.
func shares(t *testing.T, rf int, tokens ...[]token.Token) []float64 {
	t.Helper()
	var nodes []cluster.Node
	for i, ts := range tokens {
		nodes = append(nodes, cluster.Node{HostID: uuid.UUID{byte(i + 1)}, Tokens: ts})
	}
	ring, err := cluster.NewRing(nodes[0].HostID, nodes)
	if err != nil {
		t.Fatal(err)
	}
	m, err := cluster.Replicas(ring, cluster.SimpleStrategy{RF: rf})
	if err != nil {
		t.Fatal(err)
	}
	out := make([]float64, len(nodes))
	for i, n := range nodes {
		out[i] = ReplicatedShare(m, n.HostID)
	}
	return out
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

// TestReplicatedShare: a node's share of the ring is the widths of the
// ranges it replicates, the range that wraps past the end of the ring
// counted whole (its two pieces), each range once whatever number of the
// node's tokens (vnodes) it meets; the shares of all nodes add up to the
// replication factor.
func TestReplicatedShare(t *testing.T) {
	const q = 1 << 62 // a quarter of the ring
	// Tokens -q (a), 0 (b), q (c): a's range wraps, (q, -q], half the
	// ring; b's and c's are a quarter each.
	three := [][]token.Token{{-q}, {0}, {q}}
	for _, tc := range []struct {
		name   string
		rf     int
		tokens [][]token.Token
		want   []float64
	}{
		{"one token is the whole ring", 1, [][]token.Token{{42}}, []float64{1}},
		{"wrap-around, RF 1", 1, three, []float64{0.5, 0.25, 0.25}},
		// Each range also on the next node clockwise: a's wrapping range
		// and c's (on a) ; b's and a's (on b); c's and b's (on c).
		{"wrap-around, RF 2", 2, three, []float64{0.75, 0.75, 0.5}},
		{"RF above the nodes: everything", 5, three, []float64{1, 1, 1}},
		// Node a's two adjacent tokens end two ranges of the walk, which
		// SimpleStrategy places on a and then the next other node.
		{"vnodes, RF 1", 1, [][]token.Token{{0, 100}, {q}}, []float64{1 - token.Range{Start: 100, End: q}.Fraction(), token.Range{Start: 100, End: q}.Fraction()}},
		{"vnodes, RF 2: each range once", 2, [][]token.Token{{0, 100}, {q}}, []float64{1, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := shares(t, tc.rf, tc.tokens...)
			for i := range got {
				if !near(got[i], tc.want[i]) {
					t.Errorf("node %d: share %v, want %v", i, got[i], tc.want[i])
				}
			}
		})
	}

	// 3 nodes of 16 random vnodes each, RF 2: every share in (0, 1], and
	// together twice the ring.
	rng := rand.New(rand.NewPCG(1, 2))
	vnodes := make([][]token.Token, 3)
	for i := range vnodes {
		for range 16 {
			vnodes[i] = append(vnodes[i], token.Token(rng.Int64()))
		}
	}
	got := shares(t, 2, vnodes...)
	sum := 0.0
	for i, s := range got {
		if s <= 0 || s > 1 {
			t.Errorf("vnode ring: node %d share %v, outside (0, 1]", i, s)
		}
		sum += s
	}
	if math.Abs(sum-2) > 1e-9 {
		t.Errorf("vnode ring at RF 2: shares %v add up to %v, want 2", got, sum)
	}
	if math.Abs(Scale(0)-1e9) > 1 || !near(Scale(0.5), 2) {
		t.Errorf("ringScale(0) = %v, ringScale(0.5) = %v: want the bound 1e9 and 2", Scale(0), Scale(0.5))
	}
}
