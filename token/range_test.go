package token_test

import (
	"math"
	"testing"

	"github.com/sstable-flight/sstable-flight/token"
)

func TestRangeContains(t *testing.T) {
	for _, c := range []struct {
		r    token.Range
		t    token.Token
		want bool
	}{
		{token.Range{Start: -10, End: 10}, -10, false},
		{token.Range{Start: -10, End: 10}, -9, true},
		{token.Range{Start: -10, End: 10}, 10, true},
		{token.Range{Start: -10, End: 10}, 11, false},
		// The range after the last token wraps through the ring's end.
		{token.Range{Start: 100, End: -100}, 101, true},
		{token.Range{Start: 100, End: -100}, math.MaxInt64, true},
		{token.Range{Start: 100, End: -100}, math.MinInt64, true},
		{token.Range{Start: 100, End: -100}, -100, true},
		{token.Range{Start: 100, End: -100}, -99, false},
		{token.Range{Start: 100, End: -100}, 100, false},
		{token.Range{Start: 100, End: -100}, 0, false},
		// A ring of one token: (t, t] is the whole ring.
		{token.Range{Start: 5, End: 5}, 5, true},
		{token.Range{Start: 5, End: 5}, 6, true},
		{token.Range{Start: 5, End: 5}, math.MinInt64, true},
		{token.Range{Start: token.Min, End: token.Min}, 0, true},
	} {
		if got := c.r.Contains(c.t); got != c.want {
			t.Errorf("%s.Contains(%d) = %v, want %v", c.r, c.t, got, c.want)
		}
	}
}

func TestRangeOverlaps(t *testing.T) {
	for _, c := range []struct {
		a, b token.Range
		want bool
	}{
		{token.Range{Start: 0, End: 10}, token.Range{Start: 10, End: 20}, false}, // (0,10] and (10,20] only touch
		{token.Range{Start: 0, End: 10}, token.Range{Start: 9, End: 20}, true},
		{token.Range{Start: 0, End: 10}, token.Range{Start: 2, End: 3}, true},
		{token.Range{Start: 30, End: 5}, token.Range{Start: 0, End: 10}, true}, // wraps into (0,10]
		{token.Range{Start: 30, End: 5}, token.Range{Start: 10, End: 20}, false},
		{token.Range{Start: 30, End: 5}, token.Range{Start: 40, End: 50}, true},
		{token.Range{Start: 7, End: 7}, token.Range{Start: 10, End: 20}, true}, // the whole ring
	} {
		if got := c.a.Overlaps(c.b); got != c.want {
			t.Errorf("%s overlaps %s = %v, want %v", c.a, c.b, got, c.want)
		}
		if got := c.b.Overlaps(c.a); got != c.want {
			t.Errorf("%s overlaps %s = %v, want %v", c.b, c.a, got, c.want)
		}
	}
}

func TestRangeWraps(t *testing.T) {
	for _, c := range []struct {
		r    token.Range
		want bool
	}{
		{token.Range{Start: -10, End: 10}, false},
		{token.Range{Start: 10, End: -10}, true},
		{token.Range{Start: 5, End: 5}, true}, // the whole ring passes its end
		{token.Range{Start: token.Min, End: token.Max}, false},
	} {
		if got := c.r.Wraps(); got != c.want {
			t.Errorf("%s.Wraps() = %v, want %v", c.r, got, c.want)
		}
	}
}

func TestIntersect(t *testing.T) {
	whole := token.Range{Start: token.Min, End: token.Min}
	for _, c := range []struct {
		a, b token.Range
		want []token.Range
	}{
		{token.Range{Start: 0, End: 10}, whole, []token.Range{{Start: 0, End: 10}}},
		{token.Range{Start: 10, End: 0}, whole, []token.Range{{Start: token.Min, End: 0}, {Start: 10, End: math.MaxInt64}}},
		{token.Range{Start: 10, End: 0}, token.Range{Start: -5, End: 20}, []token.Range{{Start: -5, End: 0}, {Start: 10, End: 20}}},
		{token.Range{Start: 0, End: 10}, token.Range{Start: 10, End: 20}, nil},
	} {
		got := c.a.Intersect(c.b)
		if len(got) != len(c.want) {
			t.Errorf("%s ∩ %s = %v, want %v", c.a, c.b, got, c.want)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%s ∩ %s = %v, want %v", c.a, c.b, got, c.want)
			}
		}
	}
}

// TestFraction: a range's share of the ring is its width over 2^64, and
// the whole ring's is 1 however it is written.
func TestFraction(t *testing.T) {
	q := token.Token(1 << 62)
	for _, c := range []struct {
		r    token.Range
		want float64
	}{
		{token.Range{Start: 7, End: 7}, 1},
		{token.Range{Start: token.Min, End: token.Min}, 1},
		{token.Range{Start: token.Min, End: token.Max}, 1}, // 2^64-1 tokens round to the ring in float64
		{token.Range{Start: -q, End: q}, 0.5},
		{token.Range{Start: q, End: -q}, 0.5}, // wraps
		{token.Range{Start: 0, End: q}, 0.25},
		{token.Range{Start: 0, End: 100}, 100 / math.Exp2(64)},
		{token.Range{Start: 100, End: 0}, 1 - 100/math.Exp2(64)},
	} {
		if got := c.r.Fraction(); got != c.want {
			t.Errorf("%s.Fraction() = %v, want %v", c.r, got, c.want)
		}
	}
}
