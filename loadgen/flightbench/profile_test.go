package flightbench

import (
	"testing"
)

func TestParsePprofTop(t *testing.T) {
	out := `File: sstable-flight
Type: cpu
Time: 2026-12-02 10:11:12 UTC
Duration: 10.01s, Total samples = 8.50s (84.92%)
Showing nodes accounting for 8.10s, 95.29% of 8.50s total
Dropped 120 nodes (cum <= 0.04s)
      flat  flat%   sum%        cum   cum%
         0     0%     0%      7.90s 92.94%  runtime.goexit
     0.01s  0.12%  0.12%      6.10s 71.76%  google.golang.org/grpc.(*Server).serveStreams.func2.1
     1.20s 14.12% 14.24%      1.20s 14.12%  github.com/pierrec/lz4/v4/internal/lz4block.decodeBlock
     0.30s  3.53% 17.77%      0.90s 10.59%  runtime.mallocgc (inline)
`
	samples, entries, err := parsePprofTop(out)
	if err != nil {
		t.Fatal(err)
	}
	if samples != "8.50s (84.92%)" || len(entries) != 4 {
		t.Fatalf("samples %q, %d entries", samples, len(entries))
	}
	want := ProfileEntry{Function: "github.com/pierrec/lz4/v4/internal/lz4block.decodeBlock", FlatPct: 14.12, CumPct: 14.12}
	if entries[2] != want || entries[3].Function != "runtime.mallocgc (inline)" || !plumbing(entries[0].Function) || !plumbing(entries[1].Function) || plumbing(entries[2].Function) {
		t.Errorf("entries %+v", entries)
	}
	if _, _, err := parsePprofTop("no profile here"); err == nil {
		t.Error("output without a table accepted")
	}
}
