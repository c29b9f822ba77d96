package trinobench

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/sstable-flight/sstable-flight/loadgen/testbed"
)

// Targets are the Trino benchmark's goals as docs/PERFORMANCE.md lists
// them: scans and point reads through each catalog, then the join and
// the keyed lookups under concurrency.
type Targets struct {
	ScanRatio   float64       `json:"scan_ratio"`    // each full scan: cassandra p50 / ours p50 at least this
	PointMaxP50 time.Duration `json:"point_max_p50"` // keyed lookup and LIMIT 10 through ours, warm
	JoinRatio   float64       `json:"join_ratio"`    // the join: cassandra p50 / ours p50 at least this
	// JoinLookups bounds the join's p50 through ours as a multiple of
	// its keys' direct lookups' total server time.
	JoinLookups float64 `json:"join_lookups"`
	QPSRatio    float64 `json:"qps_ratio"` // keyed lookups under load: ours qps / cassandra qps at least this, at every level
	// ConnectorShare bounds our connector's share of Trino's CPU per
	// keyed query (percent of JFR samples, the connector with its
	// transport anywhere on the stack).
	ConnectorShare float64 `json:"connector_share_pct"`
}

// DefaultTargets are docs/PERFORMANCE.md's figures.
func DefaultTargets() Targets {
	return Targets{ScanRatio: 5, PointMaxP50: 100 * time.Millisecond, JoinRatio: 20, JoinLookups: 3, QPSRatio: 1, ConnectorShare: 10}
}

// Goal is one target judged against this run.
type Goal struct {
	Name   string `json:"name"`
	Met    bool   `json:"met"`
	Detail string `json:"detail"`
}

// Report is the whole Lane B record.
type Report struct {
	Header       testbed.Header `json:"header"`
	UptimeBefore string         `json:"uptime_before"` // the shared machine's load when the run began
	UptimeAfter  string         `json:"uptime_after"`
	Trino        string         `json:"trino"`
	Targets      Targets        `json:"targets"`
	Results      []Result       `json:"results"`
	Goals        []Goal         `json:"goals"`
	Profile      *Profile       `json:"profile,omitempty"`
	PeerProfile  *Profile       `json:"peer_profile,omitempty"`
	Join         *JoinReport    `json:"join,omitempty"`        // nil: no join asked for
	Concurrency  *Concurrency   `json:"concurrency,omitempty"` // nil: no concurrency asked for
	Error        string         `json:"error,omitempty"`
}

// Uptime is /proc/loadavg's three load averages.
func Uptime() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return "load average " + strings.Join(f[:3], ", ")
}

// Judge sets the goals from the results.
func (r *Report) Judge() {
	t := r.Targets
	r.Goals = nil
	find := func(table, name string) (Result, bool) {
		for _, x := range r.Results {
			if x.Query.Table == table && x.Query.Name == name {
				return x, true
			}
		}
		return Result{}, false
	}
	for _, table := range []string{testbed.KVTable, testbed.TSTable} {
		var scans []string
		met, any := true, false
		for _, x := range r.Results {
			if x.Query.Table == table && x.Query.Scan {
				any = true
				met = met && x.Ratio >= t.ScanRatio && x.Match
				scans = append(scans, fmt.Sprintf("%s %.2f×", x.Query.Name, x.Ratio))
			}
		}
		r.Goals = append(r.Goals, Goal{
			Name: fmt.Sprintf("%s: every full scan ≥ %.0f× faster through ours", table, t.ScanRatio), Met: any && met,
			Detail: strings.Join(scans, ", "),
		})
		cnt, ok1 := find(table, "count(*)")
		var sum Result
		ok2 := false
		for _, x := range r.Results {
			if x.Query.Table == table && strings.HasPrefix(x.Query.Name, "sum(length") {
				sum, ok2 = x, true
			}
		}
		r.Goals = append(r.Goals, Goal{
			Name:   fmt.Sprintf("%s: count(*) no slower than %s (ours)", table, sum.Query.Name),
			Met:    ok1 && ok2 && cnt.Ours.P50MS <= sum.Ours.P50MS,
			Detail: fmt.Sprintf("count(*) %s, %s %s", fmtMS(cnt.Ours.P50MS), sum.Query.Name, fmtMS(sum.Ours.P50MS)),
		})
		for _, name := range []string{"keyed lookup", "LIMIT 10"} {
			x, ok := find(table, name)
			r.Goals = append(r.Goals, Goal{
				Name:   fmt.Sprintf("%s: %s p50 ≤ cassandra's and ≤ %s", table, name, t.PointMaxP50),
				Met:    ok && x.Match && x.Ours.P50MS <= x.Peer.P50MS && x.Ours.P50MS <= ms(t.PointMaxP50),
				Detail: fmt.Sprintf("ours %s, cassandra %s", fmtMS(x.Ours.P50MS), fmtMS(x.Peer.P50MS)),
			})
		}
	}
	r.judgeJoin()
	r.judgeConcurrency()
}

func fmtMS(v float64) string {
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f ms", v)
	case v >= 10:
		return fmt.Sprintf("%.1f ms", v)
	}
	return fmt.Sprintf("%.2f ms", v)
}

// Markdown renders the report with headings at level (1: #).
func (r *Report) Markdown(level int, title string) string {
	var b strings.Builder
	h := strings.Repeat("#", level)
	fmt.Fprintf(&b, "%s %s\n\n", h, title)
	hd := r.Header
	fmt.Fprintf(&b, "- Date: %s\n", hd.Date.Format("2006-01-02 15:04 UTC"))
	fmt.Fprintf(&b, "- Machine: %s, %d cores, %.1f GiB, shared with other agents (%s before the run, %s after)\n",
		hd.CPU, hd.Cores, float64(hd.MemoryBytes)/(1<<30), r.UptimeBefore, r.UptimeAfter)
	fmt.Fprintf(&b, "- Commit: %s; %s; Cassandra %s; %s\n", hd.Commit, hd.GoVersion, hd.Cassandra, r.Trino)
	fmt.Fprintf(&b, "- Command: `%s`\n", hd.Command)
	d := hd.Dataset
	fmt.Fprintf(&b, "- Data: keyspace %s: kv %d rows (text key, %d-byte text value), ts %d partitions × %d rows (series text, at timestamp, v double, tag text); one SSTable each, written through CQL",
		d.Keyspace, d.KVRows, d.ValueBytes, d.TSPartitions, d.TSRowsPerPartition)
	if d.Reused {
		b.WriteString(" (reused from an earlier run)")
	}
	b.WriteString("\n")
	fmt.Fprintf(&b, "- Load: %s\n\n", hd.Load)
	if r.Error != "" {
		fmt.Fprintf(&b, "**The run did not complete:** %s\n\n", r.Error)
	}
	b.WriteString("| table | query | ours p50 | cassandra p50 | ratio (cassandra/ours) | Trino CPU per row, ours / cassandra | page-source read time, ours / cassandra | source CPU, ours / cassandra | analysis + planning, ours / cassandra | rows equal |\n")
	b.WriteString("|---|---|---:|---:|---:|---:|---:|---:|---:|---|\n")
	for _, x := range r.Results {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %.2f× | %s / %s | %s / %s | %s / %s | %s / %s | %s |\n",
			x.Query.Table, x.Query.Name, fmtMS(x.Ours.P50MS), fmtMS(x.Peer.P50MS), x.Ratio,
			nsRow(x.Ours.CPUPerRowNS), nsRow(x.Peer.CPUPerRowNS), fmtMS(x.Ours.ReadTimeMS), fmtMS(x.Peer.ReadTimeMS),
			fmtMS(x.Ours.SourceCPUMS), fmtMS(x.Peer.SourceCPUMS), fmtMS(x.Ours.PlanningMS), fmtMS(x.Peer.PlanningMS), yes(x.Match, x.Note))
	}
	b.WriteString("\nCPU per row is Trino's totalCpuTime of the median run over the rows its page sources returned (physicalInputPositions); ")
	b.WriteString("page-source read time is Trino's physicalInputReadTime, the page sources' own account of time spent reading; ")
	b.WriteString("source CPU is the sstable-flight process's (ours) or the Cassandra node's (cassandra) CPU during that run, from /proc; ")
	b.WriteString("analysis + planning is Trino's analysisTime and planningTime of that run, where a connector's metadata, statistics and pushdown calls fall.\n\n")
	r.joinMarkdown(&b, h)
	r.concurrencyMarkdown(&b, h)
	fmt.Fprintf(&b, "%s# Targets (issues #16 and #24, Lane B)\n\n", h)
	for _, g := range r.Goals {
		fmt.Fprintf(&b, "- %s: %s (%s)\n", g.Name, metWord(g.Met), g.Detail)
	}
	b.WriteString("\n")
	for _, p := range []*Profile{r.Profile, r.PeerProfile} {
		if p != nil {
			fmt.Fprintf(&b, "%s# Trino profile: %s\n\n", h, p.What)
			profileMarkdown(&b, p)
		}
	}
	return b.String()
}

// profileMarkdown writes a profile's tables: code areas, connectors,
// top frames, packages and methods on the stack.
func profileMarkdown(b *strings.Builder, p *Profile) {
	fmt.Fprintf(b, "JFR execution samples (settings=profile): %d, recording %s.\n\n", p.Samples, p.File)
	b.WriteString("| code area | top frame (self) | anywhere on the stack |\n|---|---:|---:|\n")
	for _, a := range p.Areas {
		fmt.Fprintf(b, "| %s | %.1f%% | %.1f%% |\n", a.Name, a.Percent, Share(p.AreasOnStack, a.Name))
	}
	b.WriteString("\n")
	shareTable(b, "connector with the libraries only it uses", "anywhere on the stack", "%s", p.Connector())
	shareTable(b, "top frame", "self", "`%s`", p.Self)
	shareTable(b, "package of the top frame", "self", "`%s`", p.Packages)
	shareTable(b, "package on the stack", "inclusive", "`%s`", p.PackagesOnStack)
	shareTable(b, "method on the stack", "inclusive", "`%s`", p.Inclusive)
}

// shareTable writes one two-column table of names (in nameFormat) and
// their shares, and a blank line.
func shareTable(b *strings.Builder, what, share, nameFormat string, list []FrameShare) {
	fmt.Fprintf(b, "| %s | %s |\n|---|---:|\n", what, share)
	for _, f := range list {
		fmt.Fprintf(b, "| "+nameFormat+" | %.1f%% |\n", f.Name, f.Percent)
	}
	b.WriteString("\n")
}

func nsRow(v float64) string {
	if v == 0 {
		return "–"
	}
	return fmt.Sprintf("%.0f ns", v)
}

func yes(ok bool, note string) string {
	if ok {
		return "yes"
	}
	return "**no**: " + strings.ReplaceAll(note, "|", `\|`)
}

func metWord(ok bool) string {
	if ok {
		return "met"
	}
	return "**not met**"
}
