package loadgen

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
)

// reporter writes each step as it ends: a row of the terminal table, a
// JSONL object and a CSV row, so a long ramp shows (and keeps) its
// results step by step.
type reporter struct {
	cfg       *Config
	csv       *csv.Writer
	csvHeader bool
}

func newReporter(cfg *Config) *reporter {
	r := &reporter{cfg: cfg}
	if cfg.CSV != nil {
		r.csv = csv.NewWriter(cfg.CSV)
	}
	return r
}

// header prints a table's title and column names.
func (r *reporter) header(arm string) {
	c := r.cfg
	mode := fmt.Sprintf("closed loop, %s steps", c.Step)
	conc := "conc"
	if c.Rate > 0 {
		mode = fmt.Sprintf("open loop at %g ops/s, %s steps", c.Rate, c.Step)
		conc = "inflt"
	}
	if c.Warmup > 0 {
		mode += fmt.Sprintf(" after %s warm-up", c.Warmup)
	}
	fmt.Fprintf(c.Out, "\n%s %s.%s %s: %s, seed %d\n", arm, c.Keyspace, c.Table, r.shapeDesc(arm), mode, c.Seed)
	fmt.Fprintf(c.Out, "%5s %9s %10s %11s %8s %9s %9s %9s %9s %9s %6s %7s %8s %7s %11s\n",
		conc, "ops", "ops/s", "rows/s", "MB/s", "p50 ms", "p90 ms", "p99 ms", "p999 ms", "max ms", "err", "unavail", "rss MiB", "cpu s", "rows/cpu-s")
}

func (r *reporter) shapeDesc(arm string) string {
	c := r.cfg
	switch c.Shape {
	case ShapeIn:
		return fmt.Sprintf("in (%d keys)", c.K)
	case ShapeMix:
		var parts []string
		for _, m := range c.Mix {
			parts = append(parts, fmt.Sprintf("%s:%d", m.Shape, m.Weight))
		}
		return "mix " + strings.Join(parts, ",")
	case ShapeLimit:
		return fmt.Sprintf("limit %d", c.K)
	case ShapeScan:
		if arm == "cql" {
			return fmt.Sprintf("scan (pages of %d)", c.CQLPageSize)
		}
		return fmt.Sprintf("scan (%d splits)", c.ScanSplits)
	case ShapeRange:
		return fmt.Sprintf("range (1/%d of the ring)", c.RangeFraction)
	}
	return c.Shape
}

// served prints what each location served over the run, when the plans
// named any location (a ring plan); a single server's run prints none.
func (r *reporter) served(locs []LocationServed) {
	if len(locs) == 0 || len(locs) == 1 && locs[0].Location == PlannerLocation {
		return
	}
	var total int64
	for _, l := range locs {
		total += l.Rows
	}
	out := r.cfg.Out
	fmt.Fprintf(out, "\nrows served per location (whole run):\n")
	for _, l := range locs {
		share := 0.0
		if total > 0 {
			share = 100 * float64(l.Rows) / float64(total)
		}
		fmt.Fprintf(out, "  %-40s %11d rows %5.1f%%  %8d endpoints  %6d skipped\n", l.Location, l.Rows, share, l.Endpoints, l.Skipped)
	}
}

// step writes one step everywhere it goes.
func (r *reporter) step(s Step) error {
	out := r.cfg.Out
	fmt.Fprintf(out, "%5d %9d %10.1f %11.1f %8.2f %9s %9s %9s %9s %9s %6d %7d %8s %7s %11s\n",
		s.Concurrency, s.Ops, s.OpsPerSec, s.RowsPerSec, s.BytesPerSec/1e6,
		FormatMS(s.P50US), FormatMS(s.P90US), FormatMS(s.P99US), FormatMS(s.P999US), FormatMS(s.MaxUS), s.Errors, s.Unavailable,
		optInt(s.ServerRSSBytes, 1<<20), optFloat(s.ServerCPUSeconds, "%.2f"), optFloat(s.RowsPerCPUSecond, "%.0f"))
	if s.Errors > 0 {
		fmt.Fprintf(out, "      errors: %s\n", FormatErrorCodes(s.ErrorsByCode))
	}
	if s.Clamped > 0 {
		fmt.Fprintf(out, "      %d latencies over 60 s recorded as 60 s\n", s.Clamped)
	}
	if r.cfg.JSONL != nil {
		b, err := json.Marshal(s)
		if err != nil {
			return fmt.Errorf("write jsonl: %w", err)
		}
		if _, err := r.cfg.JSONL.Write(append(b, '\n')); err != nil {
			return fmt.Errorf("write jsonl: %w", err)
		}
	}
	if r.csv != nil {
		if !r.csvHeader {
			r.csvHeader = true
			if err := r.csv.Write(csvColumns); err != nil {
				return fmt.Errorf("write csv: %w", err)
			}
		}
		if err := r.csv.Write(csvRow(s)); err != nil {
			return fmt.Errorf("write csv: %w", err)
		}
		r.csv.Flush()
		if err := r.csv.Error(); err != nil {
			return fmt.Errorf("write csv: %w", err)
		}
	}
	return nil
}

// ratios prints one line per figure and a column per step: Flight/CQL
// for throughput and CQL/Flight for latency, so above 1 always means
// Flight did better.
func (r *reporter) ratios(fl, cq []Step) {
	out := r.cfg.Out
	n := min(len(fl), len(cq))
	if n == 0 {
		return
	}
	fmt.Fprintf(out, "\nratios, same ops and keys (> 1: Flight better)\n%-22s", "figure")
	for i := range n {
		fmt.Fprintf(out, " %9s", fmt.Sprintf("c=%d", fl[i].Concurrency))
	}
	fmt.Fprintln(out)
	type fig struct {
		name string
		f    func(Step) float64
		thru bool
	}
	for _, g := range []fig{
		{"ops/s     Flight/CQL", func(s Step) float64 { return s.OpsPerSec }, true},
		{"rows/s    Flight/CQL", func(s Step) float64 { return s.RowsPerSec }, true},
		{"p50       CQL/Flight", func(s Step) float64 { return float64(s.P50US) }, false},
		{"p90       CQL/Flight", func(s Step) float64 { return float64(s.P90US) }, false},
		{"p99       CQL/Flight", func(s Step) float64 { return float64(s.P99US) }, false},
		{"p999      CQL/Flight", func(s Step) float64 { return float64(s.P999US) }, false},
		{"max       CQL/Flight", func(s Step) float64 { return float64(s.MaxUS) }, false},
	} {
		fmt.Fprintf(out, "%-22s", g.name)
		for i := range n {
			a, b := g.f(fl[i]), g.f(cq[i])
			if !g.thru {
				a, b = b, a
			}
			fmt.Fprintf(out, " %9s", ratio(a, b))
		}
		fmt.Fprintln(out)
	}
}

func ratio(a, b float64) string {
	if b == 0 || a == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2fx", a/b)
}

// FormatMS spells µs as milliseconds with three decimals (µs resolution),
// as every table of the rig does.
func FormatMS(us int64) string { return strconv.FormatFloat(float64(us)/1000, 'f', 3, 64) }

func optInt(v *int64, div int64) string {
	if v == nil {
		return "-"
	}
	return strconv.FormatInt(*v/div, 10)
}

func optFloat(v *float64, format string) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprintf(format, *v)
}

// FormatErrorCodes spells an error count map as "Code=n ..." in a stable order.
func FormatErrorCodes(m map[string]int64) string {
	keys := slices.Sorted(maps.Keys(m))
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + strconv.FormatInt(m[k], 10)
	}
	return strings.Join(parts, " ")
}

var csvColumns = []string{
	"arm", "keyspace", "table", "shape", "mode", "concurrency", "target_rate", "started", "seconds",
	"ops", "errors", "unavailable", "errors_by_code", "rows", "bytes", "ops_per_s", "rows_per_s", "bytes_per_s",
	"p50_us", "p90_us", "p99_us", "p999_us", "max_us", "mean_us", "clamped_60s",
	"server_rss_bytes", "server_cpu_seconds", "rows_per_cpu_second", "server_sheds",
}

func csvRow(s Step) []string {
	i := func(v int64) string { return strconv.FormatInt(v, 10) }
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	oi := func(v *int64) string {
		if v == nil {
			return ""
		}
		return i(*v)
	}
	of := func(v *float64) string {
		if v == nil {
			return ""
		}
		return f(*v)
	}
	return []string{
		s.Arm, s.Keyspace, s.Table, s.Shape, s.Mode, strconv.Itoa(s.Concurrency), f(s.TargetRate), s.Started.UTC().Format(time.RFC3339Nano), f(s.Seconds),
		i(s.Ops), i(s.Errors), i(s.Unavailable), FormatErrorCodes(s.ErrorsByCode), i(s.Rows), i(s.Bytes), f(s.OpsPerSec), f(s.RowsPerSec), f(s.BytesPerSec),
		i(s.P50US), i(s.P90US), i(s.P99US), i(s.P999US), i(s.MaxUS), f(s.MeanUS), i(s.Clamped),
		oi(s.ServerRSSBytes), of(s.ServerCPUSeconds), of(s.RowsPerCPUSecond), oi(s.ServerSheds),
	}
}
