package cluster

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/sstable-flight/sstable-flight/token"
)

// TestWrapAround: the range after the last token, (100, -100], belongs to
// the owner of the first token, and tokens above the last one and at the
// ring's minimum fall in it.
func TestWrapAround(t *testing.T) {
	r := mustRing(t, 0,
		testNode(1, "dc1", "r1", -100),
		testNode(2, "dc1", "r1", 0),
		testNode(3, "dc1", "r1", 100))
	checkPlacement(t, r, SimpleStrategy{RF: 2}, []placement{
		{-100, "1,2"}, // (100, -100]: wraps
		{0, "2,3"},
		{100, "3,1"},
	})
	m, err := Replicas(r, SimpleStrategy{RF: 2})
	if err != nil {
		t.Fatal(err)
	}
	if m[0].Range != (token.Range{Start: 100, End: -100}) {
		t.Fatalf("first range %s, want (100,-100]", m[0].Range)
	}
	for tok, want := range map[token.Token]token.Token{
		101: -100, math.MaxInt64: -100, math.MinInt64: -100, -100: -100,
		-99: 0, 0: 0, 1: 100, 100: 100,
	} {
		t.Run(fmt.Sprint(tok), func(t *testing.T) {
			if got := m.For(tok).Range.End; got != want {
				t.Errorf("For(%d) is the range ending at %d, want %d", tok, got, want)
			}
		})
	}
}

// TestVnodesInterleaved: with several tokens per node a walk passes a
// node it already took.
func TestVnodesInterleaved(t *testing.T) {
	// Ring: 10 A, 20 A, 30 B, 40 C, 50 C.
	r := mustRing(t, 0,
		testNode(1, "dc1", "r1", 20, 10),
		testNode(2, "dc1", "r1", 30),
		testNode(3, "dc1", "r1", 50, 40))
	checkPlacement(t, r, SimpleStrategy{RF: 2}, []placement{
		{10, "1,2"}, {20, "1,2"}, {30, "2,3"}, {40, "3,1"}, {50, "3,1"},
	})
	checkPlacement(t, r, SimpleStrategy{RF: 3}, []placement{
		{10, "1,2,3"}, {20, "1,2,3"}, {30, "2,3,1"}, {40, "3,1,2"}, {50, "3,1,2"},
	})
}

// TestVnodes16: three nodes of 16 random tokens each, as num_tokens 16
// gives. Every token ends one range, the ranges cover the ring once, the
// primary of each is its end token's owner, and For finds the range that
// Contains a token.
func TestVnodes16(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var nodes []Node
	for id := byte(1); id <= 3; id++ {
		var toks []token.Token
		for range 16 {
			toks = append(toks, token.Token(rng.Int64()-rng.Int64()/2))
		}
		nodes = append(nodes, testNode(id, "dc1", "r1", toks...))
	}
	r := mustRing(t, 0, nodes...)
	if len(r.Tokens()) != 48 {
		t.Fatalf("%d ring tokens, want 48", len(r.Tokens()))
	}
	m, err := Replicas(r, SimpleStrategy{RF: 2})
	if err != nil {
		t.Fatal(err)
	}
	primaries := map[string]int{}
	for i, rr := range m {
		owner, _ := r.Owner(rr.Range.End)
		if rr.Replicas[0] != owner {
			t.Errorf("range %s: primary %s, want the end token's owner %s", rr.Range, rr.Replicas[0], owner)
		}
		if len(rr.Replicas) != 2 || rr.Replicas[0] == rr.Replicas[1] {
			t.Errorf("range %s: replicas [%s], want 2 distinct", rr.Range, names(rr.Replicas))
		}
		prev := m[(i+len(m)-1)%len(m)]
		if rr.Range.Start != prev.Range.End {
			t.Errorf("range %s does not start where %s ends", rr.Range, prev.Range)
		}
		primaries[names(rr.Replicas[:1])]++
	}
	for _, n := range []string{"1", "2", "3"} {
		if primaries[n] != 16 {
			t.Errorf("node %s primary for %d ranges, want 16", n, primaries[n])
		}
	}
	for range 1000 {
		tok := token.Token(rng.Uint64())
		got := m.For(tok)
		if !got.Range.Contains(tok) {
			t.Fatalf("For(%d) = %s, which does not contain it", tok, got.Range)
		}
		n := 0
		for _, rr := range m {
			if rr.Range.Contains(tok) {
				n++
			}
		}
		if n != 1 {
			t.Fatalf("token %d in %d ranges, want 1", tok, n)
		}
	}
}

// TestOneNode: a single node of one token owns the whole ring, (t, t],
// whatever the factor.
func TestOneNode(t *testing.T) {
	r := mustRing(t, 1, testNode(1, "dc1", "r1", 42))
	for _, s := range []Replication{
		SimpleStrategy{RF: 3},
		NetworkTopologyStrategy{DCs: map[string]int{"dc1": 3}},
		EverywhereStrategy{},
	} {
		t.Run(fmt.Sprint(s), func(t *testing.T) {
			m, err := Replicas(r, s)
			if err != nil {
				t.Fatal(err)
			}
			if len(m) != 1 || m[0].Range != (token.Range{Start: 42, End: 42}) || names(m[0].Replicas) != "1" {
				t.Errorf("%s: %v, want one range (42,42] on node 1", s, m)
			}
			if got := m.For(math.MinInt64); got.Range != m[0].Range {
				t.Errorf("%s: For(min) = %s", s, got.Range)
			}
		})
	}
}

// TestFactorAboveNodeCount: with fewer nodes than the factor every node
// is a replica, once.
func TestFactorAboveNodeCount(t *testing.T) {
	r := mustRing(t, 0,
		testNode(1, "dc1", "r1", 10, 30),
		testNode(2, "dc1", "r2", 20, 40))
	want := []placement{{10, "1,2"}, {20, "2,1"}, {30, "1,2"}, {40, "2,1"}}
	checkPlacement(t, r, SimpleStrategy{RF: 5}, want)
	checkPlacement(t, r, NetworkTopologyStrategy{DCs: map[string]int{"dc1": 5}}, want)
}

func TestZeroFactor(t *testing.T) {
	r := lineRing(t, "dc1/r1", "dc1/r1")
	checkPlacement(t, r, SimpleStrategy{RF: 0}, []placement{{10, ""}, {20, ""}})
	checkPlacement(t, r, NetworkTopologyStrategy{DCs: map[string]int{"dc1": 0}}, []placement{{10, ""}, {20, ""}})
}

func TestEverywhereStrategy(t *testing.T) {
	// Ring: 10 A, 20 B, 30 A, 40 C.
	r := mustRing(t, 0,
		testNode(1, "dc1", "r1", 10, 30),
		testNode(2, "dc2", "r1", 20),
		testNode(3, "dc1", "r2", 40))
	checkPlacement(t, r, EverywhereStrategy{}, []placement{
		{10, "1,2,3"}, {20, "2,1,3"}, {30, "1,3,2"}, {40, "3,1,2"},
	})
}

func TestLocalStrategy(t *testing.T) {
	nodes := []Node{testNode(1, "dc1", "r1", 10), testNode(2, "dc1", "r1", 20)}
	m, err := Replicas(mustRing(t, 2, nodes...), LocalStrategy{})
	if err != nil {
		t.Fatal(err)
	}
	if len(m) != 1 || m[0].Range != (token.Range{Start: token.Min, End: token.Min}) || names(m[0].Replicas) != "2" {
		t.Fatalf("LocalStrategy: %v, want the whole ring on the local node 2", m)
	}
	if got := m.For(15); names(got.Replicas) != "2" {
		t.Errorf("For(15) on [%s]", names(got.Replicas))
	}
	if _, err := Replicas(mustRing(t, 0, nodes...), LocalStrategy{}); err == nil {
		t.Error("LocalStrategy on a ring without a local node: no error")
	}
}

func TestNewRingRefuses(t *testing.T) {
	for name, nodes := range map[string][]Node{
		"token twice":   {testNode(1, "dc1", "r1", 10), testNode(2, "dc1", "r1", 10)},
		"host ID twice": {testNode(1, "dc1", "r1", 10), testNode(1, "dc1", "r1", 20)},
		"no tokens":     {testNode(1, "dc1", "r1")},
		"no host ID":    {{Tokens: []token.Token{1}}},
		"no nodes":      nil,
	} {
		t.Run(name, func(t *testing.T) {
			if r, err := NewRing([16]byte{}, nodes); err == nil {
				t.Errorf("%s: NewRing = %v, want an error", name, r.Tokens())
			}
		})
	}
}

// TestNodeWithoutTokens: a node that owns no token (not yet joined) is no
// part of the ring, and does not count among its DC's nodes or racks.
func TestNodeWithoutTokens(t *testing.T) {
	r := mustRing(t, 0,
		testNode(1, "dc1", "r1", 10),
		testNode(2, "dc1", "r1", 20),
		testNode(3, "dc1", "r2"))
	if len(r.Nodes()) != 2 {
		t.Fatalf("ring has %d nodes, want 2", len(r.Nodes()))
	}
	// Were node 3's rack counted, dc1 would have two racks for RF 2 and
	// no rack repeat allowed, leaving one replica per range.
	checkPlacement(t, r, NetworkTopologyStrategy{DCs: map[string]int{"dc1": 2}}, []placement{{10, "1,2"}, {20, "2,1"}})
}
