package loadgen

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// laneASteps builds a ramp's steps from (concurrency, ops/s, p50 µs, p99 µs).
func laneASteps(arm string, rows ...[4]float64) []Step {
	var out []Step
	for _, r := range rows {
		out = append(out, Step{Arm: arm, Concurrency: int(r[0]), Ops: 100, OpsPerSec: r[1], RowsPerSec: r[1],
			P50US: int64(r[2]), P99US: int64(r[3]), Seconds: 10})
	}
	return out
}

func scanStep(arm string, rowsPerSec float64, rowsPerCPU *float64) Step {
	s := Step{Arm: arm, Concurrency: 1, Ops: 3, RowsPerSec: rowsPerSec, Seconds: 10}
	if rowsPerCPU != nil {
		cpu := 10 * rowsPerSec / *rowsPerCPU
		s.RowsPerCPUSecond, s.ServerCPUSeconds = rowsPerCPU, &cpu
	}
	return s
}

// goodLaneA meets every default target.
func goodLaneA() *LaneAMeasurements {
	rss := int64(200 << 20)
	return &LaneAMeasurements{
		Point: ShapeSteps{
			Flight: laneASteps("flight", [4]float64{1, 2500, 400, 1500}, [4]float64{4, 9000, 420, 1800}),
			CQL:    laneASteps("cql", [4]float64{1, 800, 1200, 3000}, [4]float64{4, 2500, 1500, 4000}),
		},
		Cold: []ColdTouch{
			{Table: "lanea.kv", IdleRSSBytes: 30 << 20, PlanUS: 9000, ReadUS: 2000, TotalUS: 11000, Rows: 1, WantRows: 1},
			{Table: "lanea.ts", IdleRSSBytes: 32 << 20, PlanUS: 8000, ReadUS: 1000, TotalUS: 9000, Rows: 10, WantRows: 10},
		},
		Scan: ShapeSteps{
			Flight: []Step{scanStep("flight", 3e6, ptr(2.5e6))},
			CQL:    []Step{scanStep("cql", 2e5, nil)},
		},
		Overload: &OverloadResult{Step: Step{Ops: 40, Unavailable: 900, ServerRSSBytes: &rss, ErrorsByCode: map[string]int64{Unavailable: 900}},
			PidBefore: 7, PidAfter: 7, SameProcess: true, ServingAfter: true},
	}
}

func metOf(t *testing.T, goals []Goal) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	for _, g := range goals {
		if g.Met == nil {
			t.Fatalf("%s: no row with a target", g.ID)
		}
		out[g.ID] = *g.Met
	}
	return out
}

// Each goal is met by figures within its targets and not met when one
// figure crosses its target, whatever the others do.
func TestLaneAGoalsMetAndNot(t *testing.T) {
	for _, tc := range []struct {
		name   string
		mutate func(*LaneAMeasurements)
		failed string // the goals not met
	}{
		{"all met", func(*LaneAMeasurements) {}, ""},
		{"p99 over 2 ms", func(m *LaneAMeasurements) { m.Point.Flight[0].P99US = 2001 }, "A1"},
		{"p50 slower than CQL", func(m *LaneAMeasurements) { m.Point.CQL[0].P50US = 399 }, "A1"},
		{"point errors", func(m *LaneAMeasurements) { m.Point.Flight[0].Errors = 1 }, "A1 A2"},
		{"CQL faster at its best", func(m *LaneAMeasurements) { m.Point.CQL[1].OpsPerSec = 9001 }, "A2"},
		{"errors at concurrency 4", func(m *LaneAMeasurements) { m.Point.Flight[1].Errors = 2 }, "A2"},
		{"first touch over 25 ms", func(m *LaneAMeasurements) { m.Cold[1].TotalUS = 25001 }, "A3"},
		{"first touch read the wrong rows", func(m *LaneAMeasurements) { m.Cold[1].Rows = 9 }, "A3"},
		{"first touch failed", func(m *LaneAMeasurements) { m.Cold[0].Err = "boom" }, "A3"},
		{"idle RSS over 40 MiB", func(m *LaneAMeasurements) { m.Cold[0].IdleRSSBytes = 40<<20 + 1 }, "A3"},
		{"scan under 2M rows per core", func(m *LaneAMeasurements) { m.Scan.Flight[0].RowsPerCPUSecond = ptr(1.9e6) }, "A4"},
		{"scan under 6x CQL", func(m *LaneAMeasurements) { m.Scan.CQL[0].RowsPerSec = 5.1e5 }, "A4"},
		{"scan without server figures", func(m *LaneAMeasurements) { m.Scan.Flight[0].RowsPerCPUSecond = nil }, "A4"},
		{"overload restarted the server", func(m *LaneAMeasurements) { m.Overload.SameProcess, m.Overload.PidAfter = false, 8 }, "A5"},
		{"overload killed the server", func(m *LaneAMeasurements) { m.Overload.SameProcess, m.Overload.PidAfter = false, 0 }, "A5"},
		{"overload RSS over the bound", func(m *LaneAMeasurements) { m.Overload.Step.ServerRSSBytes = ptr(int64(513 << 20)) }, "A5"},
		{"overload error other than UNAVAILABLE", func(m *LaneAMeasurements) {
			m.Overload.Step.Errors, m.Overload.Step.ErrorsByCode["Internal"] = 1, 1
		}, "A5"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := goodLaneA()
			tc.mutate(m)
			met := metOf(t, NewLaneAReport(LaneAHeader{}, DefaultLaneATargets(), m, nil).Goals)
			for _, id := range []string{"A1", "A2", "A3", "A4", "A5"} {
				if want := !strings.Contains(tc.failed, id); met[id] != want {
					t.Errorf("%s met = %v, want %v", id, met[id], want)
				}
			}
		})
	}
}

// Shedding under overload is the designed answer, not a failure.
func TestLaneAOverloadShedsCountedApart(t *testing.T) {
	g := GoalA5(goodLaneA().Overload, DefaultLaneATargets())
	if g.Met == nil || !*g.Met {
		t.Fatalf("A5 with 900 UNAVAILABLE and no other error: not met: %+v", g.Rows)
	}
	var shed *GoalRow
	for i := range g.Rows {
		if strings.HasPrefix(g.Rows[i].Measure, "UNAVAILABLE") {
			shed = &g.Rows[i]
		}
	}
	if shed == nil || shed.Measured != "900" || shed.Met != nil {
		t.Errorf("UNAVAILABLE row = %+v, want 900 with no target", shed)
	}
}

// With nothing measured (a run stopped at once) every goal reads "no data"
// and none is met.
func TestLaneAGoalsWithoutData(t *testing.T) {
	r := NewLaneAReport(LaneAHeader{}, DefaultLaneATargets(), nil, errors.New("interrupted"))
	for id, met := range metOf(t, r.Goals) {
		if met {
			t.Errorf("%s met without data", id)
		}
	}
	md := r.Markdown(1, "t")
	if !strings.Contains(md, "no data") || !strings.Contains(md, "**incomplete run**: interrupted") {
		t.Errorf("markdown lacks no data / incomplete:\n%s", md)
	}
}

// The Markdown keeps measured, target, met, CQL and ratio in their own
// columns, and never phrases a target as achieved.
func TestLaneAMarkdownTables(t *testing.T) {
	m := goodLaneA()
	m.Point.Flight[0].P99US = 2500
	m.Profiles = map[string]*CPUProfile{"A4": {Seconds: 10, Path: "cpu-A4.pb.gz", Samples: "9s (90%)",
		TopCum:  []ProfileEntry{{Function: "flightserver.(*service).DoGet", FlatPct: 0.5, CumPct: 80}},
		TopFlat: []ProfileEntry{{Function: "lz4.decodeBlock", FlatPct: 21.5, CumPct: 21.5}}}}
	h := LaneAHeader{Date: time.Date(2026, 12, 2, 10, 11, 0, 0, time.UTC), CPU: "Test CPU", Cores: 2, MemoryBytes: 24 << 30,
		GoVersion: "go1.26.8", Commit: "abc1234", Cassandra: "5.0.9 (oa)", Command: "make bench-lane-a",
		Dataset: LaneADataset{Keyspace: "lanea", KVRows: 1_000_000, ValueBytes: 100, TSPartitions: 100_000, TSRowsPerPartition: 10}}
	md := NewLaneAReport(h, DefaultLaneATargets(), m, nil).Markdown(1, "Lane A")
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

const laneADoc = "# Performance\r\n\nintro | kept\n\n" + LaneABeginMarker + "\nold record\nmore\n" + LaneAEndMarker + "\n\n## Later\ntail without newline"

// Rewriting the section changes only the lines between the markers; the
// bytes before and after are the file's own, and a second rewrite with
// the same section changes nothing.
func TestLaneADocReplaceBetweenMarkers(t *testing.T) {
	out, err := ReplaceLaneASection([]byte(laneADoc), []byte("new | record"))
	if err != nil {
		t.Fatal(err)
	}
	pre := laneADoc[:strings.Index(laneADoc, LaneABeginMarker)+len(LaneABeginMarker)+1]
	post := laneADoc[strings.Index(laneADoc, LaneAEndMarker):]
	if want := pre + "new | record\n" + post; string(out) != want {
		t.Fatalf("got\n%q\nwant\n%q", out, want)
	}
	again, err := ReplaceLaneASection(out, []byte("new | record\n"))
	if err != nil || !bytes.Equal(again, out) {
		t.Errorf("second rewrite changed the file (err %v):\n%q", err, again)
	}
	empty, err := ReplaceLaneASection(out, nil)
	if err != nil || string(empty) != pre+post {
		t.Errorf("empty section: %q, %v", empty, err)
	}
}

// Without markers the section is appended under its own heading, and the
// file before it is kept whole.
func TestLaneADocAppendsSection(t *testing.T) {
	for _, doc := range []string{"# Performance\n\ntext\n", "# Performance\n\ntext", ""} {
		out, err := ReplaceLaneASection([]byte(doc), []byte("record\n"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(out), doc) {
			t.Errorf("%q: the file's text was changed: %q", doc, out)
		}
		tail := "## Lane A (issue #7)\n\n" + LaneABeginMarker + "\nrecord\n" + LaneAEndMarker + "\n"
		if !strings.HasSuffix(string(out), tail) || strings.Count(string(out), tail) != 1 {
			t.Errorf("%q: got %q, want it to end with %q", doc, out, tail)
		}
		if doc != "" && !strings.Contains(string(out), "text\n\n## Lane A") {
			t.Errorf("%q: no blank line before the new section: %q", doc, out)
		}
		// Once appended, the markers are found: a rewrite replaces.
		again, err := ReplaceLaneASection(out, []byte("newer\n"))
		if want := strings.Replace(string(out), "\nrecord\n", "\nnewer\n", 1); err != nil || string(again) != want {
			t.Errorf("%q: rewrite after append: %q, %v", doc, again, err)
		}
	}
}

// Markers that do not delimit one section are refused rather than guessed.
func TestLaneADocRefusesBrokenMarkers(t *testing.T) {
	b, e := LaneABeginMarker+"\n", LaneAEndMarker+"\n"
	for name, doc := range map[string]string{
		"begin only":  "a\n" + b + "x\n",
		"end only":    "a\n" + e,
		"reversed":    e + "x\n" + b,
		"two begins":  b + b + "x\n" + e,
		"two ends":    b + "x\n" + e + e,
		"two records": b + e + b + e,
	} {
		if _, err := ReplaceLaneASection([]byte(doc), []byte("r\n")); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	// A marker inside a line is text, not a marker.
	doc := "see `" + LaneABeginMarker + "` in the text\n"
	out, err := ReplaceLaneASection([]byte(doc), []byte("r\n"))
	if err != nil || !strings.HasPrefix(string(out), doc) {
		t.Errorf("inline marker: %q, %v", out, err)
	}
}

func TestLaneAParsePprofTop(t *testing.T) {
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

// A1 is the point ramp's first step, at concurrency 1, whatever the
// ramp asked.
func TestLaneAPointRamp(t *testing.T) {
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

func TestLaneAFormats(t *testing.T) {
	for v, want := range map[float64]string{0: "0.00", 12.34: "12.3", 999: "999", 1000: "1.00k", 45_600: "45.6k", 2e6: "2.00M", 14_700_000: "14.7M"} {
		if got := fmtRate(v); got != want {
			t.Errorf("fmtRate(%g) = %q, want %q", v, got, want)
		}
	}
	if got := commas(1234567); got != "1,234,567" {
		t.Errorf("commas = %q", got)
	}
}

// UpdateLaneADoc rewrites the file in place, keeping its mode.
func TestLaneAUpdateDocFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "PERFORMANCE.md")
	if err := os.WriteFile(path, []byte(laneADoc), 0o640); err != nil {
		t.Fatal(err)
	}
	if err := UpdateLaneADoc(path, []byte("fresh\n")); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Replace(laneADoc, "old record\nmore\n", "fresh\n", 1); string(got) != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if info, err := os.Stat(path); err != nil || info.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, %v", info.Mode(), err)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("temporary file left behind: %v", entries)
	}
}
