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
