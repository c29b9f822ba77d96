package flightbench

import (
	"fmt"
	"time"

	"github.com/sstable-flight/sstable-flight/loadgen"
)

// Targets are the Flight server's performance targets, as
// docs/PERFORMANCE.md lists them: what the project asks for, never a
// result. Every report row computes met or not met from the measured
// figure beside its target.
type Targets struct {
	KeyedP50         time.Duration `json:"keyed_p50_ns"`         // A1
	KeyedP99         time.Duration `json:"keyed_p99_ns"`         // A1
	KeyedQPSRatio    float64       `json:"keyed_qps_ratio"`      // A2: best Flight qps / best CQL qps
	FirstTouch       time.Duration `json:"first_touch_ns"`       // A3, per table
	IdleRSSBytes     int64         `json:"idle_rss_bytes"`       // A3
	ScanRowsPerCore  float64       `json:"scan_rows_per_core"`   // A4: rows per server CPU second
	ScanRatio        float64       `json:"scan_ratio"`           // A4: Flight rows/s / CQL rows/s
	OverloadRSSBytes int64         `json:"overload_rss_bytes"`   // A5: peak RSS during the step
	OverloadClients  int           `json:"overload_clients"`     // A5: the load, not a figure
	OverloadDuration time.Duration `json:"overload_duration_ns"` // A5
}

// DefaultTargets are docs/PERFORMANCE.md's figures.
func DefaultTargets() Targets {
	return Targets{
		KeyedP50:         500 * time.Microsecond,
		KeyedP99:         2 * time.Millisecond,
		KeyedQPSRatio:    1,
		FirstTouch:       25 * time.Millisecond,
		IdleRSSBytes:     40 << 20,
		ScanRowsPerCore:  2e6,
		ScanRatio:        6,
		OverloadRSSBytes: 512 << 20,
		OverloadClients:  80,
		OverloadDuration: 30 * time.Second,
	}
}

// Goal is one serving goal's table: what was measured, what the target
// is, whether it was met, and CQL's figure from the same run.
type Goal struct {
	ID    string    `json:"id"`
	Title string    `json:"title"`
	What  string    `json:"what"` // the shape and load, in one line
	Rows  []GoalRow `json:"rows"`
	// Met: every row with a target met; nil when no row has one.
	Met     *bool       `json:"met"`
	Extra   *TextTable  `json:"extra,omitempty"` // e.g. the ramp behind A2
	Profile *CPUProfile `json:"profile,omitempty"`
	Notes   []string    `json:"notes,omitempty"`
}

// GoalRow is one figure. Target is empty for a figure given for context;
// Met is then nil. A missing measurement reads "no data" and is not met.
type GoalRow struct {
	Measure  string   `json:"measure"`
	Measured string   `json:"measured"`
	Value    *float64 `json:"value"`
	Unit     string   `json:"unit,omitempty"`
	Target   string   `json:"target,omitempty"`
	Met      *bool    `json:"met"`
	CQL      string   `json:"cql,omitempty"`
	CQLValue *float64 `json:"cql_value,omitempty"`
	// Ratio compares Flight with CQL so that above 1 means Flight did
	// better: Flight/CQL for throughput, CQL/Flight for latency.
	Ratio *float64 `json:"ratio,omitempty"`
}

// TextTable is a small table of preformatted cells.
type TextTable struct {
	Header []string   `json:"header"`
	Rows   [][]string `json:"rows"`
}

const noData = "no data"

func ptr[T any](v T) *T { return &v }

// finish computes the goal's Met from its rows.
func (g *Goal) finish() Goal {
	for _, r := range g.Rows {
		if r.Met == nil {
			continue
		}
		if g.Met == nil {
			g.Met = ptr(true)
		}
		if !*r.Met {
			g.Met = ptr(false)
		}
	}
	return *g
}

// latencyRow is a latency in µs against an upper bound, with CQL's.
func latencyRow(measure string, us int64, ok bool, target time.Duration, cqlUS int64, cqlOK bool) GoalRow {
	r := GoalRow{Measure: measure, Measured: noData, Unit: "ms", Met: ptr(false)}
	if target > 0 {
		r.Target = "≤ " + fmtMS(target.Microseconds())
	} else {
		r.Met = nil
	}
	if ok {
		r.Measured, r.Value = fmtMS(us), ptr(float64(us)/1000)
		if target > 0 {
			r.Met = ptr(us <= target.Microseconds())
		}
	}
	if cqlOK {
		r.CQL, r.CQLValue = fmtMS(cqlUS), ptr(float64(cqlUS)/1000)
		if ok && us > 0 {
			r.Ratio = ptr(float64(cqlUS) / float64(us))
		}
	}
	return r
}

// errorRow requires no error other than UNAVAILABLE in the Flight steps.
func errorRow(fl, cq []loadgen.Step) GoalRow {
	var errs, unavail, cerrs int64
	for _, s := range fl {
		errs, unavail = errs+s.Errors, unavail+s.Unavailable
	}
	for _, s := range cq {
		cerrs += s.Errors + s.Unavailable
	}
	r := GoalRow{Measure: "failed ops (UNAVAILABLE apart)", Measured: fmt.Sprint(errs), Value: ptr(float64(errs)),
		Target: "0", Met: ptr(errs == 0 && len(fl) > 0)}
	if len(fl) == 0 {
		r.Measured, r.Value = noData, nil
	}
	if unavail > 0 {
		r.Measured += fmt.Sprintf(" (+%d UNAVAILABLE)", unavail)
	}
	if len(cq) > 0 {
		r.CQL, r.CQLValue = fmt.Sprint(cerrs), ptr(float64(cerrs))
	}
	return r
}

// stepAt is the first step run at concurrency conc that completed ops.
func stepAt(steps []loadgen.Step, conc int) (loadgen.Step, bool) {
	for _, s := range steps {
		if s.Concurrency == conc && s.Ops > 0 {
			return s, true
		}
	}
	return loadgen.Step{}, false
}

// best is the step with the highest value of f (and at least one op).
func best(steps []loadgen.Step, f func(loadgen.Step) float64) (loadgen.Step, bool) {
	var b loadgen.Step
	found := false
	for _, s := range steps {
		if s.Ops > 0 && (!found || f(s) > f(b)) {
			b, found = s, true
		}
	}
	return b, found
}

// KeyedReadLatency (A1) is the warm keyed read: the concurrency-1 step
// of the point ramp.
func KeyedReadLatency(fl, cq []loadgen.Step, t Targets) Goal {
	g := Goal{ID: "A1", Title: "warm keyed read", What: "point reads of lanea.kv, one at a time (concurrency 1), after warm-up"}
	f, fok := stepAt(fl, 1)
	c, cok := stepAt(cq, 1)
	g.Rows = append(g.Rows,
		latencyRow("p50 latency", f.P50US, fok, t.KeyedP50, c.P50US, cok),
		latencyRow("p99 latency", f.P99US, fok, t.KeyedP99, c.P99US, cok))
	vs := latencyRow("p50, compared with CQL's p50", f.P50US, fok, 0, c.P50US, cok)
	vs.Target, vs.Met = "not slower than CQL", ptr(false)
	if fok && cok {
		vs.Met = ptr(f.P50US <= c.P50US)
	}
	g.Rows = append(g.Rows, vs, errorRow(onlyConc(fl, 1), onlyConc(cq, 1)))
	if fok {
		g.Rows = append(g.Rows, GoalRow{Measure: "ops/s at concurrency 1", Measured: fmtRate(f.OpsPerSec), Value: ptr(f.OpsPerSec), Unit: "ops/s",
			CQL: optRate(c.OpsPerSec, cok), CQLValue: optVal(c.OpsPerSec, cok), Ratio: ratioOf(f.OpsPerSec, c.OpsPerSec, cok)})
	}
	return g.finish()
}

func onlyConc(steps []loadgen.Step, conc int) []loadgen.Step {
	var out []loadgen.Step
	for _, s := range steps {
		if s.Concurrency == conc {
			out = append(out, s)
		}
	}
	return out
}

// KeyedThroughput (A2) is keyed throughput: the best step of each
// arm's point ramp.
func KeyedThroughput(fl, cq []loadgen.Step, t Targets) Goal {
	g := Goal{ID: "A2", Title: "keyed throughput", What: "point reads of lanea.kv, closed-loop ramp " + rampOf(fl) + ", best step of each arm"}
	top, f, fok, c, cok := bestRow(fl, cq, "best ops/s", "ops/s", func(s loadgen.Step) float64 { return s.OpsPerSec })
	if cok {
		top.CQL += fmt.Sprintf(" at concurrency %d", c.Concurrency)
	}
	r := GoalRow{Measure: "best ops/s, Flight/CQL", Measured: noData, Unit: "x", Target: "≥ " + fmtRatio(t.KeyedQPSRatio), Met: ptr(false)}
	if fok && cok && c.OpsPerSec > 0 {
		v := f.OpsPerSec / c.OpsPerSec
		r.Measured, r.Value, r.Met = fmtRatio(v), ptr(v), ptr(v >= t.KeyedQPSRatio)
	}
	g.Rows = append(g.Rows, top, r, errorRow(fl, cq))
	g.Extra = rampTable(fl, cq)
	return g.finish()
}

func rampOf(steps []loadgen.Step) string {
	s := ""
	for i, st := range steps {
		if i > 0 {
			s += ","
		}
		s += fmt.Sprint(st.Concurrency)
	}
	if s == "" {
		return "(none run)"
	}
	return s
}

// rampTable lists both arms' steps side by side.
func rampTable(fl, cq []loadgen.Step) *TextTable {
	t := &TextTable{Header: []string{"concurrency", "Flight ops/s", "Flight p50", "Flight p99", "CQL ops/s", "CQL p50", "CQL p99", "ops/s Flight/CQL"}}
	for i, f := range fl {
		row := []string{fmt.Sprint(f.Concurrency), fmtRate(f.OpsPerSec), fmtMS(f.P50US), fmtMS(f.P99US), "-", "-", "-", "-"}
		if i < len(cq) {
			c := cq[i]
			row[4], row[5], row[6] = fmtRate(c.OpsPerSec), fmtMS(c.P50US), fmtMS(c.P99US)
			if c.OpsPerSec > 0 {
				row[7] = fmtRatio(f.OpsPerSec / c.OpsPerSec)
			}
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// ColdTouch is the first query of one table after the server started:
// GetFlightInfo of one point read, then DoGet of its endpoint.
type ColdTouch struct {
	Table        string `json:"table"`
	Pid          int    `json:"server_pid"`
	IdleRSSBytes int64  `json:"idle_rss_bytes"` // scraped after SERVING, before any query
	PlanUS       int64  `json:"plan_us"`        // GetFlightInfo
	ReadUS       int64  `json:"read_us"`        // DoGet to the stream's end
	TotalUS      int64  `json:"total_us"`
	Rows         int64  `json:"rows"`
	WantRows     int64  `json:"want_rows"`
	Err          string `json:"error,omitempty"`
}

// ColdStart (A3) is the cold first touch of every table and the idle RSS.
func ColdStart(touches []ColdTouch, t Targets) Goal {
	g := Goal{ID: "A3", Title: "cold first touch", What: "the first query of each table after the server process started: GetFlightInfo + DoGet of one point read, wall time"}
	var rss int64
	rssOK := false
	for _, c := range touches {
		r := GoalRow{Measure: "first query of " + c.Table, Measured: noData, Unit: "ms", Target: "≤ " + fmtMS(t.FirstTouch.Microseconds()), Met: ptr(false)}
		switch {
		case c.Err != "":
			r.Measured = "failed: " + c.Err
		case c.Rows != c.WantRows:
			r.Measured = fmt.Sprintf("%s, but %d rows read, want %d", fmtMS(c.TotalUS), c.Rows, c.WantRows)
		default:
			r.Measured = fmt.Sprintf("%s (plan %s + read %s)", fmtMS(c.TotalUS), fmtMS(c.PlanUS), fmtMS(c.ReadUS))
			r.Value, r.Met = ptr(float64(c.TotalUS)/1000), ptr(c.TotalUS <= t.FirstTouch.Microseconds())
		}
		g.Rows = append(g.Rows, r)
		if c.IdleRSSBytes > 0 {
			rss, rssOK = max(rss, c.IdleRSSBytes), true
		}
	}
	r := GoalRow{Measure: "idle RSS right after start (largest of the starts)", Measured: noData, Unit: "MiB", Target: "≤ " + fmtMiB(t.IdleRSSBytes), Met: ptr(false)}
	if rssOK {
		r.Measured, r.Value, r.Met = fmtMiB(rss), ptr(float64(rss)/(1<<20)), ptr(rss <= t.IdleRSSBytes)
	}
	g.Rows = append(g.Rows, r)
	if len(touches) == 0 {
		g.Rows = append([]GoalRow{{Measure: "first query", Measured: noData, Target: "≤ " + fmtMS(t.FirstTouch.Microseconds()), Met: ptr(false)}}, g.Rows...)
	}
	g.Notes = append(g.Notes, "Each table is touched by a freshly started server process (restarted between tables); "+
		"the connection is opened with ListActions first, so the time is the query's. "+
		"The operating system's page cache still holds the files Cassandra just wrote: this is a cold process, not a cold disk.")
	return g.finish()
}

// ScanFeedRate (A4) is the scan feed rate: the best scan step of each arm.
func ScanFeedRate(fl, cq []loadgen.Step, t Targets) Goal {
	g := Goal{ID: "A4", Title: "scan feed rate", What: "full scans of lanea.kv (every endpoint read concurrently) against CQL's paging SELECT *"}
	top, f, fok, c, cok := bestRow(fl, cq, "rows/s", "rows/s", func(s loadgen.Step) float64 { return s.RowsPerSec })
	core := GoalRow{Measure: "rows per server CPU second (rows/s per core)", Measured: noData, Unit: "rows/cpu-s",
		Target: "≥ " + fmtRate(t.ScanRowsPerCore), Met: ptr(false)}
	if fok && f.RowsPerCPUSecond != nil {
		v := *f.RowsPerCPUSecond
		core.Measured, core.Value, core.Met = fmtRate(v), ptr(v), ptr(v >= t.ScanRowsPerCore)
		if f.ServerCPUSeconds != nil {
			core.Measured += fmt.Sprintf(" (%.2f CPU s over %.1f s)", *f.ServerCPUSeconds, f.Seconds)
		}
	}
	vs := GoalRow{Measure: "rows/s, Flight/CQL", Measured: noData, Unit: "x", Target: "≥ " + fmtRatio(t.ScanRatio), Met: ptr(false)}
	if fok && cok && c.RowsPerSec > 0 {
		v := f.RowsPerSec / c.RowsPerSec
		vs.Measured, vs.Value, vs.Met = fmtRatio(v), ptr(v), ptr(v >= t.ScanRatio)
	}
	g.Rows = append(g.Rows, top, core, vs, errorRow(fl, cq))
	if fok && f.ServerRSSBytes != nil {
		g.Rows = append(g.Rows, GoalRow{Measure: "server peak RSS during the step", Measured: fmtMiB(*f.ServerRSSBytes),
			Value: ptr(float64(*f.ServerRSSBytes) / (1 << 20)), Unit: "MiB"})
	}
	g.Notes = append(g.Notes, "Server CPU is process_cpu_seconds_total from the server's /metrics, its delta from the start of the measured window "+
		"to the end of the last op started in it; a scan running across the window's start adds CPU but no rows, so the per-core figure errs low.")
	return g.finish()
}

// OverloadResult is the A5 step and what was checked around it.
type OverloadResult struct {
	Step         loadgen.Step `json:"step"`
	PidBefore    int          `json:"pid_before"`
	PidAfter     int          `json:"pid_after"`          // 0: the process was gone
	SameProcess  bool         `json:"same_process"`       // alive, same pid and same process_start_time_seconds
	ServingAfter bool         `json:"serving_after"`      // health SERVING after the step
	PeakRSSHWM   int64        `json:"peak_rss_hwm_bytes"` // VmHWM: the process's lifetime peak, all goals so far
}

// Overload (A5) is the overload step: alive, bounded memory, sheds counted apart.
func Overload(o *OverloadResult, t Targets) Goal {
	g := Goal{ID: "A5", Title: "overload", What: fmt.Sprintf("%d concurrent full-scan clients of lanea.kv for %s", t.OverloadClients, t.OverloadDuration)}
	if o == nil {
		g.Rows = []GoalRow{{Measure: "server alive", Measured: noData, Target: "same pid, alive", Met: ptr(false)}}
		return g.finish()
	}
	s := o.Step
	alive := GoalRow{Measure: "server process at the end", Target: "same pid, alive and SERVING", Met: ptr(o.SameProcess && o.ServingAfter)}
	switch {
	case o.PidAfter == 0:
		alive.Measured = fmt.Sprintf("gone (pid %d)", o.PidBefore)
	case !o.SameProcess:
		alive.Measured = fmt.Sprintf("pid %d → %d, not the same process", o.PidBefore, o.PidAfter)
	case !o.ServingAfter:
		alive.Measured = fmt.Sprintf("pid %d alive, but not SERVING", o.PidAfter)
	default:
		alive.Measured = fmt.Sprintf("pid %d alive and SERVING", o.PidAfter)
	}
	rss := GoalRow{Measure: "peak RSS during the step (scraped every second)", Measured: noData, Unit: "MiB",
		Target: "≤ " + fmtMiB(t.OverloadRSSBytes), Met: ptr(false)}
	if s.ServerRSSBytes != nil {
		rss.Measured, rss.Value, rss.Met = fmtMiB(*s.ServerRSSBytes), ptr(float64(*s.ServerRSSBytes)/(1<<20)), ptr(*s.ServerRSSBytes <= t.OverloadRSSBytes)
	}
	errs := GoalRow{Measure: "failed ops other than UNAVAILABLE", Measured: fmt.Sprint(s.Errors), Value: ptr(float64(s.Errors)), Target: "0", Met: ptr(s.Errors == 0)}
	if s.Errors > 0 {
		errs.Measured += " (" + loadgen.FormatErrorCodes(withoutUnavailable(s.ErrorsByCode)) + ")"
	}
	g.Rows = append(g.Rows, alive, rss, errs,
		GoalRow{Measure: "UNAVAILABLE (shed by admission)", Measured: fmt.Sprint(s.Unavailable), Value: ptr(float64(s.Unavailable))},
		GoalRow{Measure: "completed scans", Measured: fmt.Sprintf("%d (%s rows/s)", s.Ops, fmtRate(s.RowsPerSec)), Value: ptr(float64(s.Ops))})
	if o.PeakRSSHWM > 0 {
		g.Rows = append(g.Rows, GoalRow{Measure: "lifetime peak RSS of the process (VmHWM, every goal so far)", Measured: fmtMiB(o.PeakRSSHWM),
			Value: ptr(float64(o.PeakRSSHWM) / (1 << 20)), Unit: "MiB"})
	}
	return g.finish()
}

func withoutUnavailable(m map[string]int64) map[string]int64 {
	out := map[string]int64{}
	for k, v := range m {
		if k != loadgen.Unavailable {
			out[k] = v
		}
	}
	return out
}

func ratioOf(a, b float64, ok bool) *float64 {
	if !ok || a == 0 || b == 0 {
		return nil
	}
	return ptr(a / b)
}

func optRate(v float64, ok bool) string {
	if !ok {
		return ""
	}
	return fmtRate(v)
}

func optVal(v float64, ok bool) *float64 {
	if !ok {
		return nil
	}
	return ptr(v)
}

// fmtMS spells µs as milliseconds with µs resolution.
func fmtMS(us int64) string { return loadgen.FormatMS(us) + " ms" }

// fmtRate spells a rate with k and M suffixes and three significant digits.
func fmtRate(v float64) string {
	switch {
	case v >= 1e6:
		return sig3(v/1e6) + "M"
	case v >= 1e3:
		return sig3(v/1e3) + "k"
	}
	return sig3(v)
}

// sig3 spells x ≥ 0 with three significant digits and no exponent.
func sig3(x float64) string {
	switch {
	case x >= 100:
		return fmt.Sprintf("%.0f", x)
	case x >= 10:
		return fmt.Sprintf("%.1f", x)
	}
	return fmt.Sprintf("%.2f", x)
}

func fmtMiB(b int64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }

func fmtRatio(r float64) string { return fmt.Sprintf("%.2f×", r) }

// bestRow is a goal's first row: each arm's best step by rate, Flight's
// with its concurrency, and their ratio. It returns the steps too.
func bestRow(fl, cq []loadgen.Step, measure, unit string, rate func(loadgen.Step) float64) (row GoalRow, f loadgen.Step, fok bool, c loadgen.Step, cok bool) {
	f, fok = best(fl, rate)
	c, cok = best(cq, rate)
	row = GoalRow{Measure: measure, Measured: noData, Unit: unit, CQL: optRate(rate(c), cok), CQLValue: optVal(rate(c), cok)}
	if fok {
		row.Measured, row.Value = fmt.Sprintf("%s at concurrency %d", fmtRate(rate(f)), f.Concurrency), ptr(rate(f))
		row.Ratio = ratioOf(rate(f), rate(c), cok)
	}
	return row, f, fok, c, cok
}
