package cluster

import "testing"

func TestRangeOverlaps(t *testing.T) {
	for _, c := range []struct {
		a, b Range
		want bool
	}{
		{Range{0, 10}, Range{10, 20}, false}, // (0,10] and (10,20] only touch
		{Range{0, 10}, Range{9, 20}, true},
		{Range{0, 10}, Range{2, 3}, true},
		{Range{30, 5}, Range{0, 10}, true}, // wraps into (0,10]
		{Range{30, 5}, Range{10, 20}, false},
		{Range{30, 5}, Range{40, 50}, true},
		{Range{7, 7}, Range{10, 20}, true}, // the whole ring
	} {
		if got := c.a.Overlaps(c.b); got != c.want {
			t.Errorf("%s overlaps %s = %v, want %v", c.a, c.b, got, c.want)
		}
		if got := c.b.Overlaps(c.a); got != c.want {
			t.Errorf("%s overlaps %s = %v, want %v", c.b, c.a, got, c.want)
		}
	}
}

func TestUnowned(t *testing.T) {
	r := lineRing(t, "dc1/r1", "dc1/r1", "dc1/r1") // 10 A, 20 B, 30 C
	m, err := Replicas(r, SimpleStrategy{RF: 2})
	if err != nil {
		t.Fatal(err)
	}
	a := r.Nodes()[0].HostID // A replicates (30,10] (primary) and (20,30]
	if rr, bad := m.Unowned(Range{25, 5}, a); bad {
		t.Errorf("(25,5] reported unowned by A: %s", rr.Range)
	}
	if rr, bad := m.Unowned(Range{5, 15}, a); !bad || rr.Range != (Range{10, 20}) {
		t.Errorf("(5,15]: got %s %v, want (10,20] unowned", rr.Range, bad)
	}
}
