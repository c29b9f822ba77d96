package flightbench

import (
	"errors"
	"strings"
	"testing"

	"github.com/sstable-flight/sstable-flight/loadgen"
	"github.com/sstable-flight/sstable-flight/loadgen/testbed"
)

// rampSteps builds a ramp's steps from (concurrency, ops/s, p50 µs, p99 µs).
func rampSteps(arm string, rows ...[4]float64) []loadgen.Step {
	var out []loadgen.Step
	for _, r := range rows {
		out = append(out, loadgen.Step{Arm: arm, Concurrency: int(r[0]), Ops: 100, OpsPerSec: r[1], RowsPerSec: r[1],
			P50US: int64(r[2]), P99US: int64(r[3]), Seconds: 10})
	}
	return out
}

func scanStep(arm string, rowsPerSec float64, rowsPerCPU *float64) loadgen.Step {
	s := loadgen.Step{Arm: arm, Concurrency: 1, Ops: 3, RowsPerSec: rowsPerSec, Seconds: 10}
	if rowsPerCPU != nil {
		cpu := 10 * rowsPerSec / *rowsPerCPU
		s.RowsPerCPUSecond, s.ServerCPUSeconds = rowsPerCPU, &cpu
	}
	return s
}

// goodMeasurements meets every default target.
func goodMeasurements() *Measurements {
	rss := int64(200 << 20)
	return &Measurements{
		Point: ShapeSteps{
			Flight: rampSteps("flight", [4]float64{1, 2500, 400, 1500}, [4]float64{4, 9000, 420, 1800}),
			CQL:    rampSteps("cql", [4]float64{1, 800, 1200, 3000}, [4]float64{4, 2500, 1500, 4000}),
		},
		Cold: []ColdTouch{
			{Table: "lanea.kv", IdleRSSBytes: 30 << 20, PlanUS: 9000, ReadUS: 2000, TotalUS: 11000, Rows: 1, WantRows: 1},
			{Table: "lanea.ts", IdleRSSBytes: 32 << 20, PlanUS: 8000, ReadUS: 1000, TotalUS: 9000, Rows: 10, WantRows: 10},
		},
		Scan: ShapeSteps{
			Flight: []loadgen.Step{scanStep("flight", 3e6, ptr(2.5e6))},
			CQL:    []loadgen.Step{scanStep("cql", 2e5, nil)},
		},
		Overload: &OverloadResult{Step: loadgen.Step{Ops: 40, Unavailable: 900, ServerRSSBytes: &rss, ErrorsByCode: map[string]int64{loadgen.Unavailable: 900}},
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
func TestGoalsMetAndNot(t *testing.T) {
	for _, tc := range []struct {
		name   string
		mutate func(*Measurements)
		failed string // the goals not met
	}{
		{"all met", func(*Measurements) {}, ""},
		{"p99 over 2 ms", func(m *Measurements) { m.Point.Flight[0].P99US = 2001 }, "A1"},
		{"p50 slower than CQL", func(m *Measurements) { m.Point.CQL[0].P50US = 399 }, "A1"},
		{"point errors", func(m *Measurements) { m.Point.Flight[0].Errors = 1 }, "A1 A2"},
		{"CQL faster at its best", func(m *Measurements) { m.Point.CQL[1].OpsPerSec = 9001 }, "A2"},
		{"errors at concurrency 4", func(m *Measurements) { m.Point.Flight[1].Errors = 2 }, "A2"},
		{"first touch over 25 ms", func(m *Measurements) { m.Cold[1].TotalUS = 25001 }, "A3"},
		{"first touch read the wrong rows", func(m *Measurements) { m.Cold[1].Rows = 9 }, "A3"},
		{"first touch failed", func(m *Measurements) { m.Cold[0].Err = "boom" }, "A3"},
		{"idle RSS over 40 MiB", func(m *Measurements) { m.Cold[0].IdleRSSBytes = 40<<20 + 1 }, "A3"},
		{"scan under 2M rows per core", func(m *Measurements) { m.Scan.Flight[0].RowsPerCPUSecond = ptr(1.9e6) }, "A4"},
		{"scan under 6x CQL", func(m *Measurements) { m.Scan.CQL[0].RowsPerSec = 5.1e5 }, "A4"},
		{"scan without server figures", func(m *Measurements) { m.Scan.Flight[0].RowsPerCPUSecond = nil }, "A4"},
		{"overload restarted the server", func(m *Measurements) { m.Overload.SameProcess, m.Overload.PidAfter = false, 8 }, "A5"},
		{"overload killed the server", func(m *Measurements) { m.Overload.SameProcess, m.Overload.PidAfter = false, 0 }, "A5"},
		{"overload RSS over the bound", func(m *Measurements) { m.Overload.Step.ServerRSSBytes = ptr(int64(513 << 20)) }, "A5"},
		{"overload error other than UNAVAILABLE", func(m *Measurements) {
			m.Overload.Step.Errors, m.Overload.Step.ErrorsByCode["Internal"] = 1, 1
		}, "A5"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := goodMeasurements()
			tc.mutate(m)
			met := metOf(t, NewReport(testbed.Header{}, DefaultTargets(), m, nil).Goals)
			for _, id := range []string{"A1", "A2", "A3", "A4", "A5"} {
				if want := !strings.Contains(tc.failed, id); met[id] != want {
					t.Errorf("%s met = %v, want %v", id, met[id], want)
				}
			}
		})
	}
}

// Shedding under overload is the designed answer, not a failure.
func TestOverloadShedsCountedApart(t *testing.T) {
	g := Overload(goodMeasurements().Overload, DefaultTargets())
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
func TestGoalsWithoutData(t *testing.T) {
	r := NewReport(testbed.Header{}, DefaultTargets(), nil, errors.New("interrupted"))
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

func TestFormats(t *testing.T) {
	for v, want := range map[float64]string{0: "0.00", 12.34: "12.3", 999: "999", 1000: "1.00k", 45_600: "45.6k", 2e6: "2.00M", 14_700_000: "14.7M"} {
		if got := fmtRate(v); got != want {
			t.Errorf("fmtRate(%g) = %q, want %q", v, got, want)
		}
	}
	if got := commas(1234567); got != "1,234,567" {
		t.Errorf("commas = %q", got)
	}
}
