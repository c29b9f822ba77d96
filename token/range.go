package token

import (
	"cmp"
	"fmt"
	"slices"
)

// Range is the token range (Start, End], Cassandra's Range<Token>: a
// token range owned by a ring token starts after the token before it and
// ends at (includes) the token itself. When Start >= End the range wraps
// around the end of the ring: it holds the tokens above Start and those
// up to End. Start == End is the whole ring, as for a ring of one token.
type Range struct {
	Start, End Token
}

// Contains reports whether t falls in (Start, End].
func (r Range) Contains(t Token) bool {
	if r.Start < r.End {
		return r.Start < t && t <= r.End
	}
	return t > r.Start || t <= r.End
}

// Wraps reports whether the range passes the end of the ring (Start >=
// End), so that reading it in token order takes two pieces: (Start, Max]
// and (Min, End].
func (r Range) Wraps() bool { return r.Start >= r.End }

// Overlaps reports whether r and o share a token. Two arcs of the ring
// meet exactly when one holds the other's end: walking clockwise from a
// shared token, the first end reached lies in both.
func (r Range) Overlaps(o Range) bool {
	return r.Contains(o.End) || o.Contains(r.End)
}

// Fraction is r's share of the ring: its width over 2^64, 1 for the whole
// ring (Start == End). Murmur3 spreads partitions uniformly over tokens,
// so it is also r's expected share of a table's partitions.
func (r Range) Fraction() float64 {
	if r.Start == r.End {
		return 1
	}
	// In float64, as the width of a wrapping range overflows int64.
	w := float64(r.End) - float64(r.Start)
	if w < 0 {
		w += 1 << 64
	}
	return w / (1 << 64)
}

// Intersect returns the tokens of both r and o as ranges that do not
// wrap, in ring order: each range is cut where it wraps, into (s, Max]
// and (Min, e], and the pieces compared. It is empty when r and o share
// no token.
func (r Range) Intersect(o Range) []Range {
	var out []Range
	for _, x := range r.pieces() {
		for _, y := range o.pieces() {
			lo, hi := max(x.Start, y.Start), min(x.End, y.End)
			if lo < hi {
				out = append(out, Range{Start: lo, End: hi})
			}
		}
	}
	slices.SortFunc(out, func(p, q Range) int { return cmp.Compare(p.Start, q.Start) })
	return out
}

// pieces cuts r into ranges with Start < End: the whole ring is (Min,
// Max], a wrapping range its two pieces (either may be empty, and is then
// left out).
func (r Range) pieces() []Range {
	switch {
	case r.Start == r.End:
		return []Range{{Start: Min, End: Max}}
	case r.Start < r.End:
		return []Range{r}
	}
	out := []Range{}
	if r.Start < Max {
		out = append(out, Range{Start: r.Start, End: Max})
	}
	if r.End > Min {
		out = append(out, Range{Start: Min, End: r.End})
	}
	return out
}

// String prints the range as nodetool does, (start,end].
func (r Range) String() string { return fmt.Sprintf("(%d,%d]", r.Start, r.End) }
