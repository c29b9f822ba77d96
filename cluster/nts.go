package cluster

import (
	"errors"
	"slices"
)

// dcFill is one data centre's progress in NetworkTopologyStrategy's walk
// (Cassandra's NetworkTopologyStrategy.DatacenterEndpoints).
type dcFill struct {
	// left is how many replicas the DC still takes: its factor, capped
	// at its node count.
	left int
	// repeats is how many replicas may still go to a rack that already
	// has one: the factor less the DC's rack count. It is computed from
	// the factor, not the capped count, as Cassandra does.
	repeats int
}

// place walks the ring once per range, clockwise from the range's end
// token, as Cassandra 4.0 and later do (calculateNaturalReplicas):
//
//   - A node whose DC has no factor, or whose DC is full, is passed, and
//     so is a node already taken (it has more tokens on the ring).
//   - A node on a rack (of its DC) that no replica is on yet is taken.
//   - A node on a rack that already has one is taken only while the DC's
//     rack repeats last, that is when the DC has fewer racks than its
//     factor; it is taken at once, in ring order, not after the distinct
//     racks (which Cassandra 2.x and 3.0 did).
//   - The walk ends when every DC is full or the ring is exhausted.
//
// NB: the order of the result is the order of acceptance, and the first
// is the primary replica; it need not be the owner of the range's end
// token (that node's DC may have no factor).
func (s NetworkTopologyStrategy) place(r *Ring) (ReplicaMap, error) {
	for dc, rf := range s.DCs {
		if rf < 0 {
			return nil, errors.New("compute replicas: NetworkTopologyStrategy with a negative factor for " + dc)
		}
	}
	fills := make(map[string]*dcFill, len(s.DCs))
	racks := map[[2]string]bool{}
	return perRange(r, func(i int, dst []int) []int {
		clear(fills)
		clear(racks)
		toFill := 0
		for dc, rf := range s.DCs {
			nodes := r.dcNodes[dc]
			if rf <= 0 || nodes == 0 {
				continue
			}
			fills[dc] = &dcFill{left: min(rf, nodes), repeats: rf - r.dcRacks[dc]}
			toFill++
		}
		for k := 0; k < len(r.tokens) && toFill > 0; k++ {
			n := r.owner[(i+k)%len(r.tokens)]
			node := &r.nodes[n]
			f := fills[node.DC]
			if f == nil || f.left == 0 || slices.Contains(dst, n) {
				continue
			}
			loc := [2]string{node.DC, node.Rack}
			switch {
			case !racks[loc]:
				racks[loc] = true
			case f.repeats > 0:
				f.repeats--
			default:
				// Its rack has a replica and the DC has racks enough
				// left for the rest.
				continue
			}
			dst = append(dst, n)
			if f.left--; f.left == 0 {
				toFill--
			}
		}
		return dst
	}), nil
}
