package cluster

import (
	"testing"

	"github.com/sstable-flight/sstable-flight/token"
)

func TestUnowned(t *testing.T) {
	r := lineRing(t, "dc1/r1", "dc1/r1", "dc1/r1") // 10 A, 20 B, 30 C
	m, err := Replicas(r, SimpleStrategy{RF: 2})
	if err != nil {
		t.Fatal(err)
	}
	a := r.Nodes()[0].HostID // A replicates (30,10] (primary) and (20,30]
	if rr, bad := m.Unowned(token.Range{Start: 25, End: 5}, a); bad {
		t.Errorf("(25,5] reported unowned by A: %s", rr.Range)
	}
	if rr, bad := m.Unowned(token.Range{Start: 5, End: 15}, a); !bad || rr.Range != (token.Range{Start: 10, End: 20}) {
		t.Errorf("(5,15]: got %s %v, want (10,20] unowned", rr.Range, bad)
	}
}
