package flightbench

import (
	"slices"
	"testing"
)

// A1 is the point ramp's first step, at concurrency 1, whatever the
// ramp asked.
func TestPointRamp(t *testing.T) {
	for _, tc := range []struct{ in, want []int }{
		{[]int{1, 4, 16, 32}, []int{1, 4, 16, 32}},
		{[]int{4, 16}, []int{1, 4, 16}},
		{[]int{16, 1, 4}, []int{1, 16, 4}},
		{[]int{1}, []int{1}},
	} {
		if got := pointRamp(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("pointRamp(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
}
