package flightbench

import (
	"strings"
	"testing"
	"time"

	"github.com/sstable-flight/sstable-flight/loadgen/testbed"
)

// The Markdown keeps measured, target, met, CQL and ratio in their own
// columns, and never phrases a target as achieved.
func TestMarkdownTables(t *testing.T) {
	m := goodMeasurements()
	m.Point.Flight[0].P99US = 2500
	m.Profiles = map[string]*CPUProfile{"A4": {Seconds: 10, Path: "cpu-A4.pb.gz", Samples: "9s (90%)",
		TopCum:  []ProfileEntry{{Function: "flightserver.(*service).DoGet", FlatPct: 0.5, CumPct: 80}},
		TopFlat: []ProfileEntry{{Function: "lz4.decodeBlock", FlatPct: 21.5, CumPct: 21.5}}}}
	h := testbed.Header{Date: time.Date(2026, 12, 2, 10, 11, 0, 0, time.UTC), CPU: "Test CPU", Cores: 2, MemoryBytes: 24 << 30,
		GoVersion: "go1.26.8", Commit: "abc1234", Cassandra: "5.0.9 (oa)", Command: "make bench-flight",
		Dataset: testbed.Dataset{Keyspace: "lanea", KVRows: 1_000_000, ValueBytes: 100, TSPartitions: 100_000, TSRowsPerPartition: 10}}
	md := NewReport(h, DefaultTargets(), m, nil).Markdown(1, "Lane A")
	for _, want := range []string{
		"# Lane A\n\n- date: 2026-12-02 10:11 UTC\n",
		"- commit: abc1234\n",
		"`lanea.kv` 1,000,000 rows (text key, 100-byte text value)",
		"`lanea.ts` 100,000 partitions × 10 rows = 1,000,000 rows",
		"- result: 4 of 5 goals met (A1 **not met**, A2 met, A3 met, A4 met, A5 met)\n",
		"## A1 — warm keyed read: **not met**\n",
		"| measure | measured | target | met | CQL, same run | Flight vs CQL |\n",
		"| p50 latency | 0.400 ms | ≤ 0.500 ms | met | 1.200 ms | 3.00× |\n",
		"| p99 latency | 2.500 ms | ≤ 2.000 ms | **not met** | 3.000 ms | 1.20× |\n",
		"| p50, compared with CQL's p50 | 0.400 ms | not slower than CQL | met | 1.200 ms | 3.00× |\n",
		"| best ops/s, Flight/CQL | 3.60× | ≥ 1.00× | met |  |  |\n",
		"| 4 | 9.00k | 0.420 ms | 1.800 ms | 2.50k | 1.500 ms | 4.000 ms | 3.60× |\n",
		"| first query of lanea.kv | 11.000 ms (plan 9.000 ms + read 2.000 ms) | ≤ 25.000 ms | met |  |  |\n",
		"| idle RSS right after start (largest of the starts) | 32.0 MiB | ≤ 40.0 MiB | met |  |  |\n",
		"| rows/s, Flight/CQL | 15.00× | ≥ 6.00× | met |  |  |\n",
		"Current bottleneck, by own time: `lz4.decodeBlock` (21.5% flat).",
		"| `flightserver.(*service).DoGet` | 80.0% | 0.5% | `lz4.decodeBlock` | 21.5% | 21.5% |\n",
		"| UNAVAILABLE (shed by admission) | 900 |  |  |  |  |\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
	if t.Failed() {
		t.Logf("markdown:\n%s", md)
	}
}
