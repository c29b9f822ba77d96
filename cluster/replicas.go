package cluster

import (
	"errors"
	"slices"

	"github.com/sstable-flight/sstable-flight/token"
)

// RangeReplicas is one token range and the nodes that replicate it, in
// Cassandra's placement order: the first is the range's primary replica
// (for SimpleStrategy the owner of the range's end token).
type RangeReplicas struct {
	Range token.Range
	// Replicas point into the Ring: read, never modify.
	Replicas []*Node
}

// ReplicaMap is a keyspace's placement: every range of the ring with its
// replicas, ordered by the ranges' end tokens, so the first entry is the
// range that wraps around the end of the ring. Together the ranges cover
// the ring once.
type ReplicaMap []RangeReplicas

// For returns the range that holds token t and its replicas.
func (m ReplicaMap) For(t token.Token) RangeReplicas {
	i, _ := slices.BinarySearchFunc(m, t, func(rr RangeReplicas, t token.Token) int {
		switch {
		case rr.Range.End < t:
			return -1
		case rr.Range.End > t:
			return 1
		}
		return 0
	})
	if i == len(m) {
		// Above the last end token: the range that wraps.
		i = 0
	}
	return m[i]
}

// Replicas computes, for every token range of ring, its replicas under
// strategy, exactly as Cassandra places them
// (AbstractReplicationStrategy.getRangeAddresses: each ring token ends
// one range, whose replicas calculateNaturalReplicas finds walking the
// ring clockwise from that token).
func Replicas(ring *Ring, strategy Replication) (ReplicaMap, error) {
	if ring == nil || strategy == nil {
		return nil, errors.New("compute replicas: no ring or no strategy")
	}
	return strategy.place(ring)
}

// perRange builds the map of a strategy whose replicas depend on the
// range: walk(i, dst) appends the node indices of the range that ring
// token i ends.
func perRange(r *Ring, walk func(i int, dst []int) []int) ReplicaMap {
	m := make(ReplicaMap, len(r.tokens))
	var idx []int
	for i := range r.tokens {
		idx = walk(i, idx[:0])
		nodes := make([]*Node, len(idx))
		for k, n := range idx {
			nodes[k] = &r.nodes[n]
		}
		m[i] = RangeReplicas{Range: r.rangeAt(i), Replicas: nodes}
	}
	return m
}

func (s SimpleStrategy) place(r *Ring) (ReplicaMap, error) {
	if s.RF < 0 {
		return nil, errors.New("compute replicas: SimpleStrategy with a negative replication factor")
	}
	return perRange(r, func(i int, dst []int) []int {
		// TokenMetadata.ringIterator from the range's end token: every
		// token once, clockwise; a node already taken (vnodes) is passed.
		for k := 0; k < len(r.tokens) && len(dst) < s.RF; k++ {
			n := r.owner[(i+k)%len(r.tokens)]
			if !slices.Contains(dst, n) {
				dst = append(dst, n)
			}
		}
		return dst
	}), nil
}

// place walks as SimpleStrategy does, with a factor of every node.
func (EverywhereStrategy) place(r *Ring) (ReplicaMap, error) {
	return SimpleStrategy{RF: len(r.nodes)}.place(r)
}

func (LocalStrategy) place(r *Ring) (ReplicaMap, error) {
	local, ok := r.Local()
	if !ok {
		return nil, errors.New("compute replicas: LocalStrategy needs the ring's local node, and the ring has none")
	}
	// Cassandra's LocalStrategy gives its one replica the range (min,
	// min]: the whole ring.
	return ReplicaMap{{Range: token.Range{Start: token.Min, End: token.Min}, Replicas: []*Node{local}}}, nil
}
