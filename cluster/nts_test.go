package cluster

import "testing"

// TestNTSDistinctRacks: with as many racks as the factor, a node on a
// rack that has a replica is passed for the next rack.
func TestNTSDistinctRacks(t *testing.T) {
	r := lineRing(t, "dc1/r1", "dc1/r1", "dc1/r2", "dc1/r2")
	checkPlacement(t, r, NetworkTopologyStrategy{DCs: map[string]int{"dc1": 2}}, []placement{
		{10, "1,3"}, {20, "2,3"}, {30, "3,1"}, {40, "4,1"},
	})
	// SimpleStrategy on the same ring ignores racks.
	checkPlacement(t, r, SimpleStrategy{RF: 2}, []placement{
		{10, "1,2"}, {20, "2,3"}, {30, "3,4"}, {40, "4,1"},
	})
}

// TestNTSFewerRacksThanFactor: with 2 racks and factor 3 one rack takes
// two replicas, and the repeat is the first node of a seen rack in ring
// order, taken when the walk meets it. Cassandra 2.x instead took the
// distinct racks first and the skipped nodes after (the range ending at
// 10 would be 1,3,2 there); 4.0 and later, 5.0 included, give 1,2,3.
func TestNTSFewerRacksThanFactor(t *testing.T) {
	r := lineRing(t, "dc1/r1", "dc1/r1", "dc1/r2", "dc1/r1")
	checkPlacement(t, r, NetworkTopologyStrategy{DCs: map[string]int{"dc1": 3}}, []placement{
		{10, "1,2,3"}, {20, "2,3,4"}, {30, "3,4,1"}, {40, "4,1,3"},
	})
}

// TestNTSTwoDCs: the walk fills both DCs at once; a full DC's nodes are
// passed; racks are per DC, so r1 of dc2 is not r1 of dc1.
func TestNTSTwoDCs(t *testing.T) {
	r := lineRing(t, "dc1/r1", "dc2/r1", "dc1/r2", "dc2/r1", "dc1/r1")
	want := []placement{
		{10, "1,2,3"}, {20, "2,3,5"}, {30, "3,4,5"}, {40, "4,5,3"}, {50, "5,2,3"},
	}
	checkPlacement(t, r, NetworkTopologyStrategy{DCs: map[string]int{"dc1": 2, "dc2": 1}}, want)
	// A DC no node is in is ignored, and so is a factor of 0.
	checkPlacement(t, r, NetworkTopologyStrategy{DCs: map[string]int{"dc1": 2, "dc2": 1, "dc9": 3}}, want)
	checkPlacement(t, r, NetworkTopologyStrategy{DCs: map[string]int{"dc2": 1, "dc1": 0}}, []placement{
		{10, "2"}, {20, "2"}, {30, "4"}, {40, "4"}, {50, "2"},
	})
	// The primary is the first node taken: for a range whose end token's
	// owner is in a DC without a factor, a node further on.
	checkPlacement(t, r, NetworkTopologyStrategy{DCs: map[string]int{"dc2": 2}}, []placement{
		{10, "2,4"}, {20, "2,4"}, {30, "4,2"}, {40, "4,2"}, {50, "2,4"},
	})
}
