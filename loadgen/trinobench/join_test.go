package trinobench

import (
	"os"
	"strings"
	"testing"

	"github.com/sstable-flight/sstable-flight/loadgen/testbed"
)

// TestParseJoinEvidence reads the QueryInfo of real joins through each
// catalog (a smoke run's, trimmed to what the rig reads, in Trino 476's
// shape): the probe is the source operator whose sourceId is a table
// scan of the catalog asked for; the build side's scan of the memory
// catalog is not counted. Ours read the 100 keys; cassandra scanned.
func TestParseJoinEvidence(t *testing.T) {
	for _, c := range []struct {
		catalog                      string
		read, kept, splits, dfSplits int64
	}{{OursCatalog, 100, 100, 1, 1}, {PeerCatalog, 20000, 20000, 19, 19}} {
		info, err := os.ReadFile("testdata/join-queryinfo-" + c.catalog + ".json")
		if err != nil {
			t.Fatal(err)
		}
		ev, err := ParseJoinEvidence(info, c.catalog)
		if err != nil {
			t.Fatal(err)
		}
		if !ev.ScanOpFound || ev.ProbeRows != c.read || ev.ProbeReturned != c.read || ev.ProbeKept != c.kept || ev.ProbeSplits != c.splits || ev.DFSplits != c.dfSplits {
			t.Errorf("%s: probe = %+v; want %d rows read and returned, %d kept, %d splits, %d with the filter", c.catalog, ev, c.read, c.kept, c.splits, c.dfSplits)
		}
		if ev.Filters != 1 || ev.Completed != 1 || len(ev.Domains) != 1 || !strings.Contains(ev.Domains[0].Domain, "ranges=100") {
			t.Errorf("%s: dynamic filters = %d/%d %+v; want one completed, of 100 ranges", c.catalog, ev.Completed, ev.Filters, ev.Domains)
		}
		// The dimension table's scan is the memory catalog's.
		mem, err := ParseJoinEvidence(info, MemoryCatalog)
		if err != nil || !mem.ScanOpFound || mem.ProbeRows != 100 {
			t.Errorf("%s: memory scan = %+v, %v; want its 100 rows", c.catalog, mem, err)
		}
		// A catalog the plan does not scan is reported as not found, not as
		// zero rows read.
		other := map[string]string{OursCatalog: PeerCatalog, PeerCatalog: OursCatalog}[c.catalog]
		if o, err := ParseJoinEvidence(info, other); err != nil || o.ScanOpFound {
			t.Errorf("%s's join read as %s: %+v, %v; want no scan found", c.catalog, other, o, err)
		}
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
		if seen[k] || k >= testbed.KVKey(150) {
			t.Errorf("key %s repeated or beyond 150 rows", k)
		}
		seen[k] = true
	}
	if n := len(JoinKeys(10, 100)); n != 10 {
		t.Errorf("10 rows gave %d keys, want 10", n)
	}
}

// TestExplainSplitWait reads the kv scan's split generation wait from a
// smoke run's EXPLAIN ANALYZE through each catalog: ours waited for the
// dynamic filter, cassandra did not; the memory scan's wait is not taken
// for kv's.
func TestExplainSplitWait(t *testing.T) {
	for catalog, want := range map[string]string{OursCatalog: "454.87ms", PeerCatalog: "0.02ms"} {
		text, err := os.ReadFile("testdata/join-explain-analyze-" + catalog + ".txt")
		if err != nil {
			t.Fatal(err)
		}
		if got := ExplainSplitWait(string(text), catalog); got != want {
			t.Errorf("%s: split wait %q, want %q", catalog, got, want)
		}
		if got := ExplainSplitWait(string(text), "hive"); got != "" {
			t.Errorf("%s: a catalog not scanned has split wait %q", catalog, got)
		}
	}
}
