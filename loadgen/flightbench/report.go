package flightbench

import (
	"fmt"
	"strings"

	"github.com/sstable-flight/sstable-flight/loadgen/testbed"
)

// Report is a Lane A record: the header, the targets, each goal's
// table, and every raw figure behind them (report.json keeps it all).
type Report struct {
	Header       testbed.Header `json:"header"`
	Targets      Targets        `json:"targets"`
	Goals        []Goal         `json:"goals"`
	Measurements *Measurements  `json:"measurements"`
	Incomplete   string         `json:"incomplete,omitempty"` // why the run ended early
}

// NewReport computes the goals from the measurements. A run that
// ended with an error still gives a report: what was not measured reads
// "no data" and is not met.
func NewReport(h testbed.Header, t Targets, m *Measurements, runErr error) *Report {
	if m == nil {
		m = &Measurements{}
	}
	r := &Report{Header: h, Targets: t, Measurements: m}
	if runErr != nil {
		r.Incomplete = runErr.Error()
	}
	// The goals keep their record IDs (A1…A5, the report's and
	// docs/PERFORMANCE.md's headings) in Goal.ID; the functions are named
	// for what they measure.
	latency := KeyedReadLatency(m.Point.Flight, m.Point.CQL, t)
	latency.Profile = m.Profiles["A1"]
	scan := ScanFeedRate(m.Scan.Flight, m.Scan.CQL, t)
	scan.Profile = m.Profiles["A4"]
	r.Goals = []Goal{latency, KeyedThroughput(m.Point.Flight, m.Point.CQL, t), ColdStart(m.Cold, t), scan, Overload(m.Overload, t)}
	return r
}

// Markdown renders the report with its title at heading level (1 for
// report.md, 3 inside docs/PERFORMANCE.md) and each goal one level below.
func (r *Report) Markdown(level int, title string) string {
	var b strings.Builder
	h := strings.Repeat("#", level)
	fmt.Fprintf(&b, "%s %s\n\n", h, title)
	r.header(&b)
	for _, g := range r.Goals {
		writeGoal(&b, h+"#", g)
	}
	return b.String()
}

func (r *Report) header(b *strings.Builder) {
	hd := r.Header
	fmt.Fprintf(b, "- date: %s\n", hd.Date.Format("2006-01-02 15:04 UTC"))
	fmt.Fprintf(b, "- machine: %s, %d cores, %.1f GiB memory (shared with the Cassandra node and the load generator)\n",
		hd.CPU, hd.Cores, float64(hd.MemoryBytes)/(1<<30))
	fmt.Fprintf(b, "- Go: %s; Cassandra: %s\n", hd.GoVersion, hd.Cassandra)
	fmt.Fprintf(b, "- commit: %s\n", hd.Commit)
	fmt.Fprintf(b, "- command: `%s`\n", hd.Command)
	fmt.Fprintf(b, "- data: %s\n", datasetLine(hd.Dataset))
	fmt.Fprintf(b, "- load: %s\n", hd.Load)
	var met, measured []string
	for _, g := range r.Goals {
		measured = append(measured, g.ID+" "+metWord(g.Met))
		if g.Met != nil && *g.Met {
			met = append(met, g.ID)
		}
	}
	fmt.Fprintf(b, "- result: %d of %d goals met (%s)\n", len(met), len(r.Goals), strings.Join(measured, ", "))
	if r.Incomplete != "" {
		fmt.Fprintf(b, "- **incomplete run**: %s\n", cell(r.Incomplete))
	}
	b.WriteString("\nTargets are issue #7's; \"met\" is computed from the measured figure in the same row. " +
		"CQL figures are the same shape over the same keys, through gocql against the same node, in the same run. " +
		"Ratios compare Flight with CQL so that above 1× means Flight did better (Flight/CQL for throughput, CQL/Flight for latency).\n")
}

func datasetLine(d testbed.Dataset) string {
	parts := []string{
		fmt.Sprintf("`%s.kv` %s rows (text key, %d-byte text value)", d.Keyspace, commas(int64(d.KVRows)), d.ValueBytes),
		fmt.Sprintf("`%s.ts` %s partitions × %d rows = %s rows", d.Keyspace, commas(int64(d.TSPartitions)), d.TSRowsPerPartition,
			commas(int64(d.TSPartitions*d.TSRowsPerPartition))),
	}
	for i, t := range d.Tables {
		if i < len(parts) {
			parts[i] += fmt.Sprintf(", %d SSTable, %s Data.db (%s all components)", t.SSTables, fmtMiB(t.DataBytes), fmtMiB(t.Bytes))
		}
	}
	how := fmt.Sprintf("written through CQL, flushed and major-compacted (%.0f s)", d.WriteSeconds)
	if d.Reused {
		how = "reused from an earlier run (-reuse: row counts checked)"
	}
	return strings.Join(parts, "; ") + "; default compression (LZ4); " + how
}

func writeGoal(b *strings.Builder, h string, g Goal) {
	fmt.Fprintf(b, "\n%s %s — %s: %s\n\n%s.\n\n", h, g.ID, g.Title, metWord(g.Met), upperFirst(g.What))
	b.WriteString("| measure | measured | target | met | CQL, same run | Flight vs CQL |\n|---|---|---|---|---|---|\n")
	for _, r := range g.Rows {
		ratio := ""
		if r.Ratio != nil {
			ratio = fmtRatio(*r.Ratio)
		}
		met := ""
		if r.Met != nil {
			met = metWord(r.Met)
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s |\n", cell(r.Measure), cell(r.Measured), cell(r.Target), met, cell(r.CQL), ratio)
	}
	if g.Extra != nil {
		b.WriteString("\n")
		writeTable(b, g.Extra)
	}
	if p := g.Profile; p != nil {
		writeProfile(b, p)
	}
	for _, n := range g.Notes {
		fmt.Fprintf(b, "\n%s\n", n)
	}
}

func writeTable(b *strings.Builder, t *TextTable) {
	b.WriteString("| " + strings.Join(t.Header, " | ") + " |\n|")
	for range t.Header {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	for _, r := range t.Rows {
		cells := make([]string, len(r))
		for i, c := range r {
			cells[i] = cell(c)
		}
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
}

// writeProfile names the shape's bottleneck from the server's profile.
func writeProfile(b *strings.Builder, p *CPUProfile) {
	if p.Err != "" {
		fmt.Fprintf(b, "\nServer CPU profile: not taken (%s).\n", cell(p.Err))
		return
	}
	fmt.Fprintf(b, "\nServer CPU profile over %d s of the measured step (`%s`; CPU samples %s of the wall time). ", p.Seconds, p.Path, p.Samples)
	if len(p.TopFlat) > 0 {
		f := p.TopFlat[0]
		fmt.Fprintf(b, "Current bottleneck, by own time: `%s` (%.1f%% flat).", f.Function, f.FlatPct)
	}
	b.WriteString(" Top functions by cumulative share (below gRPC's dispatch and the interceptors), and by own time:\n\n")
	b.WriteString("| by cumulative share | cum | flat | by own time | flat | cum |\n|---|---|---|---|---|---|\n")
	for i := range max(len(p.TopCum), len(p.TopFlat)) {
		row := []string{"", "", "", "", "", ""}
		if i < len(p.TopCum) {
			e := p.TopCum[i]
			row[0], row[1], row[2] = "`"+e.Function+"`", pct(e.CumPct), pct(e.FlatPct)
		}
		if i < len(p.TopFlat) {
			e := p.TopFlat[i]
			row[3], row[4], row[5] = "`"+e.Function+"`", pct(e.FlatPct), pct(e.CumPct)
		}
		b.WriteString("| " + strings.Join(row, " | ") + " |\n")
	}
}

func pct(v float64) string { return fmt.Sprintf("%.1f%%", v) }

func metWord(m *bool) string {
	switch {
	case m == nil:
		return "no target"
	case *m:
		return "met"
	}
	return "**not met**"
}

// cell keeps a value on one table row.
func cell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	return strings.Join(strings.Fields(s), " ")
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// commas spells n with thousands separators.
func commas(n int64) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + commas(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
