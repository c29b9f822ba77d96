package laneb

import (
	"os"
	"strings"
	"testing"
)

// TestParseJoinEvidence reads a join's QueryInfo in Trino 476's shape
// (testdata: a real one, trimmed to what the rig reads): the probe is the
// source operator whose sourceId is a table scan of the catalog asked
// for, and the build side's scan of the memory catalog is not counted.
func TestParseJoinEvidence(t *testing.T) {
	info, err := os.ReadFile("testdata/join-queryinfo.json")
	if err != nil {
		t.Fatal(err)
	}
	ev, err := ParseJoinEvidence(info, OursCatalog)
	if err != nil {
		t.Fatal(err)
	}
	if !ev.ScanOpFound || ev.ProbeRows != 20000 || ev.ProbeReturned != 100 || ev.ProbeKept != 100 || ev.ProbeSplits != 2 || ev.DFSplits != 2 {
		t.Errorf("probe = %+v; want the kv scan's 20000 rows read, 100 returned and kept, 2 splits, 2 with the filter", ev)
	}
	if ev.Filters != 1 || ev.Completed != 1 || len(ev.Domains) != 1 || !strings.Contains(ev.Domains[0].Domain, "ranges=100") {
		t.Errorf("dynamic filters = %d/%d %+v; want one completed, of 100 ranges", ev.Completed, ev.Filters, ev.Domains)
	}
	// The dimension table's scan is the memory catalog's.
	mem, err := ParseJoinEvidence(info, MemoryCatalog)
	if err != nil {
		t.Fatal(err)
	}
	if !mem.ScanOpFound || mem.ProbeRows != 100 {
		t.Errorf("memory scan = %+v; want its 100 rows", mem)
	}
	// A catalog the plan does not scan is reported as not found, not as
	// zero rows read.
	if peer, err := ParseJoinEvidence(info, PeerCatalog); err != nil || peer.ScanOpFound {
		t.Errorf("cassandra: %+v, %v; want no scan found", peer, err)
	}
	if _, err := ParseJoinEvidence([]byte("{"), OursCatalog); err == nil {
		t.Error("truncated query info: no error")
	}
}

func TestJoinKeys(t *testing.T) {
	keys := JoinKeys(2_000_000, 100)
	if len(keys) != 100 || keys[0] != "k0000010000" || keys[99] != "k0001990000" {
		t.Fatalf("keys = %d, %q … %q", len(keys), keys[0], keys[len(keys)-1])
	}
	seen := map[string]bool{}
	for _, k := range JoinKeys(150, 100) {
		if seen[k] || k >= kvKey(150) {
			t.Errorf("key %s repeated or beyond 150 rows", k)
		}
		seen[k] = true
	}
	if n := len(JoinKeys(10, 100)); n != 10 {
		t.Errorf("10 rows gave %d keys, want 10", n)
	}
}
