package token

import "math"

// Split cuts r into n contiguous ranges of equal width that cover it
// exactly once, in ring order: Murmur3 spreads partitions uniformly over
// tokens, so equal widths are equal work. n < 1 counts as 1; a range
// narrower than n tokens gets one piece per token.
//
// The whole ring (Start == End) is split as (Min, Max]: no real token is
// Min. A wrapping range is split as its two pieces, (Start, Max] then
// (Min, End], each given pieces in proportion to its width and at least
// one; with n == 1 it is returned whole, still wrapping.
func (r Range) Split(n int) []Range {
	if n < 1 {
		n = 1
	}
	start, end := r.Start, r.End
	if start == end {
		start, end = Min, Max
	}
	if start > end {
		// (Max, end] holds (Min, end]'s tokens and (start, Min] holds
		// (start, Max]'s (no token is Min, nor above Max): split the half
		// that holds them, never the empty (Max, Max] or (Min, Min], which
		// a start equal to its end would read as the whole ring.
		switch {
		case n == 1 || start == Max && end == Min:
			return []Range{{Start: start, End: end}}
		case start == Max:
			return Range{Start: Min, End: end}.Split(n)
		case end == Min:
			return Range{Start: start, End: Max}.Split(n)
		}
		width1 := float64(math.MaxInt64) - float64(start)
		width2 := float64(end) - float64(math.MinInt64)
		n1 := max(1, min(n-1, int(float64(n)*width1/(width1+width2))))
		return append(Range{Start: start, End: Max}.Split(n1), Range{Start: Min, End: end}.Split(n-n1)...)
	}
	width := uint64(end - start) // fits: end > start
	if uint64(n) > width {
		n = int(width)
	}
	out := make([]Range, 0, n)
	lo := start
	for i := 1; i <= n; i++ {
		hi := end
		if i < n {
			hi = start + Token(width/uint64(n)*uint64(i))
		}
		out = append(out, Range{Start: lo, End: hi})
		lo = hi
	}
	return out
}
