package loadgen

import (
	"math"
	"math/rand/v2"
)

// plan decides what op number i reads, from the seed and i alone: both
// arms, every worker count and a rerun with the same seed read the same
// keys and ranges for the same op numbers, whichever worker runs them.
type plan struct {
	seed     uint64
	keys     []Key
	k        int // keys per in op
	fraction int // range ops cover 1/fraction of the ring
}

func (p *plan) rng(op uint64) *rand.Rand { return rand.New(rand.NewPCG(p.seed, op)) }

// keysFor is the key of a point op (n = 1) or the n distinct keys of an
// in op (fewer when fewer were sampled).
func (p *plan) keysFor(op uint64, n int) []Key {
	r := p.rng(op)
	n = min(n, len(p.keys))
	if n == 1 {
		return []Key{p.keys[r.IntN(len(p.keys))]}
	}
	// Distinct: the server reads a repeated key once, CQL's IN may not.
	picked := make(map[int]bool, n)
	out := make([]Key, 0, n)
	for len(out) < n {
		i := r.IntN(len(p.keys))
		if !picked[i] {
			picked[i] = true
			out = append(out, p.keys[i])
		}
	}
	return out
}

// rangeFor is the token range (start, end] of a range op: a uniformly
// placed slice of 1/fraction of the ring. It may wrap (start > end);
// fraction 1 gives start == end, the whole ring.
func (p *plan) rangeFor(op uint64) (start, end int64) {
	r := p.rng(op)
	start = int64(r.Uint64())
	width := uint64(math.MaxUint64)/uint64(p.fraction) + 1 // 2^64 / fraction, rounded up
	if p.fraction == 1 {
		width = 0
	}
	return start, int64(uint64(start) + width)
}

// sliceFor is a slice op's key and bounds: two of the key's sampled
// clustering values, in clustering order (lo first), inclusive. A key
// with one sampled row gives a slice of that row.
func (p *plan) sliceFor(op uint64) (Key, ClusteringValue, ClusteringValue) {
	r := p.rng(op)
	k := p.keys[r.IntN(len(p.keys))]
	i, j := r.IntN(len(k.Clustering)), r.IntN(len(k.Clustering))
	if i > j {
		i, j = j, i
	}
	return k, k.Clustering[i], k.Clustering[j]
}

// mixStream separates the mix's draws from the ops' own.
const mixStream = 1 << 61

// shapeFor draws op i's shape from the mix by weight.
func (p *plan) shapeFor(op uint64, mix []MixEntry) string {
	total := 0
	for _, m := range mix {
		total += m.Weight
	}
	n := rand.New(rand.NewPCG(p.seed^mixStream, op)).IntN(total)
	for _, m := range mix {
		if n < m.Weight {
			return m.Shape
		}
		n -= m.Weight
	}
	return mix[len(mix)-1].Shape
}
