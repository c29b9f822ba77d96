package token_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/sstable-flight/sstable-flight/token"
)

// TestSplitCoversOnce: the splits of (start, end] are contiguous,
// non-empty, in order and cover exactly the range, including the whole
// ring, wrap-around ranges and ranges narrower than the split count.
func TestSplitCoversOnce(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	cases := []token.Range{
		{Start: 0, End: 0}, {Start: math.MinInt64, End: math.MaxInt64}, {Start: -5, End: 5}, {Start: 5, End: -5},
		{Start: math.MaxInt64 - 3, End: math.MinInt64 + 3}, {Start: 10, End: 12}, {Start: 0, End: 1},
	}
	for range 200 {
		cases = append(cases, token.Range{Start: token.Token(r.Uint64()), End: token.Token(r.Uint64())})
	}
	for _, c := range cases {
		for _, n := range []int{1, 2, 3, 7, 64, 4096} {
			parts := c.Split(n)
			if len(parts) == 0 || len(parts) > n {
				t.Fatalf("%s in %d: %d parts", c, n, len(parts))
			}
			start, end := c.Start, c.End
			if start == end {
				start, end = math.MinInt64, math.MaxInt64
			}
			wraps := start > end
			if parts[0].Start != start || parts[len(parts)-1].End != end {
				t.Fatalf("%s in %d: parts %v do not start and end at the bounds", c, n, parts)
			}
			for i, p := range parts {
				if i > 0 {
					prev := parts[i-1].End
					// The only gap allowed is the wrap from max to min:
					// (x, max] then (min, y] covers every token, since
					// no token is MinInt64.
					if p.Start != prev && !(wraps && prev == math.MaxInt64 && p.Start == math.MinInt64) {
						t.Fatalf("%s in %d: gap or overlap between %v and %v", c, n, parts[i-1], p)
					}
				}
				if p.Start >= p.End && !(len(parts) == 1 && wraps) {
					t.Fatalf("%s in %d: empty or reversed part %v", c, n, p)
				}
			}
		}
	}
}

// TestSplitLessThanOne: n below 1 counts as 1.
func TestSplitLessThanOne(t *testing.T) {
	r := token.Range{Start: -5, End: 5}
	for _, n := range []int{0, -1} {
		if got := r.Split(n); len(got) != 1 || got[0] != r {
			t.Errorf("%s.Split(%d) = %v, want [%s]", r, n, got, r)
		}
	}
}

// TestSplitWrapAtTheEnds: a wrapping range that starts at Max or ends at
// Min splits into pieces of its own tokens only; it once split into a
// whole-ring piece ((Max, Max] read as start == end), so a scan of such a
// command range read every partition.
func TestSplitWrapAtTheEnds(t *testing.T) {
	for _, c := range []token.Range{{Start: math.MaxInt64, End: 5}, {Start: 5, End: math.MinInt64}, {Start: math.MaxInt64, End: math.MinInt64 + 1}} {
		for _, n := range []int{2, 3, 64} {
			for _, p := range c.Split(n) {
				if p.Start == p.End {
					t.Fatalf("%s in %d: piece %s is the whole ring", c, n, p)
				}
				for _, tok := range []token.Token{p.Start + 1, p.End} {
					if tok != math.MinInt64 && !c.Contains(tok) {
						t.Fatalf("%s in %d: piece %s holds %d, which the range does not", c, n, p, tok)
					}
				}
			}
		}
	}
}
