package trinobench

import (
	"fmt"
	"strings"
)

// JoinReport is the join's part of the record beyond its Result: the
// dimension table, the direct lookups it is held against, and the files
// of Trino's own account (EXPLAIN ANALYZE, the median run's QueryInfo).
type JoinReport struct {
	Keys      int               `json:"keys"`
	Dim       string            `json:"dimension_table"`
	Lookups   *Lookups          `json:"lookups,omitempty"`
	Explain   map[string]string `json:"explain_analyze_files,omitempty"` // by catalog
	QueryInfo map[string]string `json:"query_info_files,omitempty"`      // by catalog
	// SplitWait is the kv scan's split generation wait in the EXPLAIN
	// ANALYZE run, by catalog: a connector waiting for the dynamic filter
	// before it plans its splits waits here.
	SplitWait map[string]string `json:"split_generation_wait,omitempty"`
}

// joinResult is the join's Result, if it ran.
func (r *Report) joinResult() (Result, bool) {
	for _, x := range r.Results {
		if x.Query.Join {
			return x, true
		}
	}
	return Result{}, false
}

func (r *Report) judgeJoin() {
	if r.Join == nil {
		return
	}
	t := r.Targets
	x, ok := r.joinResult()
	name := fmt.Sprintf("kv: join of %d keys p50 ≥ %.0f× faster through ours", r.Join.Keys, t.JoinRatio)
	if !ok {
		r.Goals = append(r.Goals, Goal{Name: name, Detail: "the join did not run to the end"})
	} else {
		r.Goals = append(r.Goals, Goal{
			Name: name, Met: x.Match && x.Ratio >= t.JoinRatio,
			Detail: fmt.Sprintf("%.2f×: ours %s, cassandra %s; kv rows read: ours %s, cassandra %s",
				x.Ratio, fmtMS(x.Ours.P50MS), fmtMS(x.Peer.P50MS), probeRows(x.Ours.Join), probeRows(x.Peer.Join)),
		})
	}
	name = fmt.Sprintf("kv: join p50 through ours ≤ %.0f× its %d keys' direct lookups' total server time", t.JoinLookups, r.Join.Keys)
	l := r.Join.Lookups
	switch {
	case !ok || l == nil || l.ServerP50MS <= 0:
		r.Goals = append(r.Goals, Goal{Name: name, Detail: "no join or no lookups measured"})
	default:
		ratio := x.Ours.P50MS / l.ServerP50MS
		r.Goals = append(r.Goals, Goal{
			Name: name, Met: x.Match && ratio <= t.JoinLookups,
			Detail: fmt.Sprintf("%.1f×: join %s, lookups' server time %s", ratio, fmtMS(x.Ours.P50MS), fmtMS(l.ServerP50MS)),
		})
	}
}

func probeRows(ev *JoinEvidence) string {
	if ev == nil || !ev.ScanOpFound {
		return "unknown"
	}
	return fmt.Sprint(ev.ProbeRows)
}

// joinMarkdown writes the join's section: both arms' p50 and what
// Trino's query stats say each read, and the lookups beside it.
func (r *Report) joinMarkdown(b *strings.Builder, h string) {
	j := r.Join
	if j == nil {
		return
	}
	fmt.Fprintf(b, "%s# Join of %d keys to kv (issue #24)\n\n", h, j.Keys)
	fmt.Fprintf(b, "`%s` holds %d keys of kv spread over its rows, in Trino's memory catalog, so both catalogs join the same build side and differ only in how they read kv (the probe side). ", j.Dim, j.Keys)
	x, ok := r.joinResult()
	if !ok {
		b.WriteString("The join did not run to the end.\n\n")
	} else {
		fmt.Fprintf(b, "Query: `%s`, kv through each catalog.\n\n", fmt.Sprintf(x.Query.SQL, "<catalog>."+r.Header.Dataset.Keyspace+".kv"))
		b.WriteString("| | ours | cassandra |\n|---|---:|---:|\n")
		row := func(what string, f func(a Arm) string) {
			fmt.Fprintf(b, "| %s | %s | %s |\n", what, f(x.Ours), f(x.Peer))
		}
		row("p50", func(a Arm) string { return fmtMS(a.P50MS) })
		row("result rows", func(a Arm) string { return fmt.Sprint(a.Rows) })
		ev := func(f func(e *JoinEvidence) string) func(a Arm) string {
			return func(a Arm) string {
				if a.Join == nil || !a.Join.ScanOpFound {
					return "unknown"
				}
				return f(a.Join)
			}
		}
		row("kv rows the page sources read (probe scan's physicalInputPositions)", ev(func(e *JoinEvidence) string { return fmt.Sprint(e.ProbeRows) }))
		row("kv rows they returned to Trino (inputPositions)", ev(func(e *JoinEvidence) string { return fmt.Sprint(e.ProbeReturned) }))
		row("kv rows kept by the scan's filter, the dynamic filter applied by Trino (outputPositions)", ev(func(e *JoinEvidence) string { return fmt.Sprint(e.ProbeKept) }))
		row("probe splits / of them with the filter known (dynamicFilterSplitsProcessed)", ev(func(e *JoinEvidence) string { return fmt.Sprintf("%d / %d", e.ProbeSplits, e.DFSplits) }))
		row("dynamic filters completed / in the query", ev(func(e *JoinEvidence) string { return fmt.Sprintf("%d / %d", e.Completed, e.Filters) }))
		row("filter (simplified domain), collection time", ev(func(e *JoinEvidence) string {
			var ds []string
			for _, d := range e.Domains {
				ds = append(ds, fmt.Sprintf("`%s` %s", strings.ReplaceAll(d.Domain, "|", `\|`), d.Collection))
			}
			return strings.Join(ds, "; ")
		}))
		if len(j.SplitWait) > 0 {
			fmt.Fprintf(b, "| kv scan's split generation wait (EXPLAIN ANALYZE run) | %s | %s |\n", orUnknown(j.SplitWait[OursCatalog]), orUnknown(j.SplitWait[PeerCatalog]))
		}
		fmt.Fprintf(b, "\nRatio (cassandra/ours): %.2f×; rows equal: %s. The figures are of the median run but the split generation wait; Trino's whole account is in %s.\n\n",
			x.Ratio, yes(x.Match, x.Note), fileList(j.QueryInfo, j.Explain))
	}
	if l := j.Lookups; l != nil {
		fmt.Fprintf(b, "The same %d keys read straight from sstable-flight, one at a time (GetFlightInfo with the key, DoGet of its endpoint, as flight-loadgen's point shape), median of %d passes: total server time %s (growth of `sstf_request_seconds_sum` over %v RPCs), server CPU %s, client wall %s.",
			l.Keys, l.Passes, fmtMS(l.ServerP50MS), l.RPCs, fmtMS(l.ServerCPUP50MS), fmtMS(l.ClientP50MS))
		if ok && l.ServerP50MS > 0 {
			fmt.Fprintf(b, " Join p50 through ours / that server time: %.1f×.", x.Ours.P50MS/l.ServerP50MS)
			if x.Ours.ServerMS > 0 {
				fmt.Fprintf(b, " The join's own server time (its reads of the keys, median run): %s, %.2f× the lookups'.", fmtMS(x.Ours.ServerMS), x.Ours.ServerMS/l.ServerP50MS)
			}
		}
		if l.Note != "" {
			fmt.Fprintf(b, " Note: %s.", l.Note)
		}
		b.WriteString("\n\n")
	}
}

// fileList names the evidence files, catalog by catalog.
func fileList(maps ...map[string]string) string {
	var out []string
	for _, m := range maps {
		for _, c := range []string{OursCatalog, PeerCatalog} {
			if f, ok := m[c]; ok {
				out = append(out, "`"+f+"`")
			}
		}
	}
	if len(out) == 0 {
		return "the report's JSON"
	}
	return strings.Join(out, ", ")
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}
