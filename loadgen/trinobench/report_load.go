package trinobench

import (
	"fmt"
	"strings"
)

// ourConnector names our connector with its transport in
// Profile.Connectors (connectorGroups' first).
var ourConnector = connectorGroups[0].name

// ourConnectorArea names our connector's own code in Profile.AreasOnStack.
const ourConnectorArea = "our connector (io.sstableflight)"

func (r *Report) judgeConcurrency() {
	c := r.Concurrency
	if c == nil {
		return
	}
	t := r.Targets
	for _, n := range c.Clients {
		name := fmt.Sprintf("kv: keyed lookups at %d clients, ours' qps ≥ %.0f× cassandra's", n, t.QPSRatio)
		lv, ok := c.level(n)
		if !ok {
			r.Goals = append(r.Goals, Goal{Name: name, Detail: "not measured"})
			continue
		}
		r.Goals = append(r.Goals, Goal{
			Name: name, Met: lv.Ours.Errors == 0 && lv.Peer.QPS > 0 && lv.Ratio >= t.QPSRatio,
			Detail: fmt.Sprintf("%.2f×: ours %.1f qps (%d errors), cassandra %.1f qps (%d errors)",
				lv.Ratio, lv.Ours.QPS, lv.Ours.Errors, lv.Peer.QPS, lv.Peer.Errors),
		})
	}
	name := fmt.Sprintf("our connector's share of Trino's CPU per keyed query ≤ %.0f%% (JFR, with its transport)", t.ConnectorShare)
	p, x := c.Profile, c.Profiled
	switch {
	case p == nil || p.Samples == 0 || x == nil:
		r.Goals = append(r.Goals, Goal{Name: name, Detail: "no profile of the keyed lookups"})
	case x.OK == 0 || x.Errors > 0:
		// A profile of failing queries is not a profile of keyed lookups.
		r.Goals = append(r.Goals, Goal{Name: name, Detail: fmt.Sprintf("the recorded run had %d errors and %d successful queries", x.Errors, x.OK)})
	default:
		share := Share(p.Connectors, ourConnector)
		r.Goals = append(r.Goals, Goal{
			Name: name, Met: share <= t.ConnectorShare,
			Detail: fmt.Sprintf("%.1f%% of %d samples; our connector's own frames %.1f%%", share, p.Samples, Share(p.AreasOnStack, ourConnectorArea)),
		})
	}
}

// level is the measured level of n clients.
func (c *Concurrency) level(n int) (Level, bool) {
	for _, lv := range c.Levels {
		if lv.Clients == n {
			return lv, true
		}
	}
	return Level{}, false
}

// concurrencyMarkdown writes the keyed lookups under load: each level
// through each catalog, and the profile of ours.
func (r *Report) concurrencyMarkdown(b *strings.Builder, h string) {
	c := r.Concurrency
	if c == nil {
		return
	}
	fmt.Fprintf(b, "%s# Keyed lookups under concurrency (issue #24)\n\n", h)
	fmt.Fprintf(b, "`%s` with a random key of kv, closed loop: each client runs one query after another over Trino's HTTP client protocol (no QueryInfo reads), for %s per catalog and level, in two halves run A B B A (A alternating between levels) and summed. A query that did not return exactly one row is an error. CPU per query is Trino's (or the source's: sstable-flight for ours, the node for cassandra) process CPU over the run from /proc, divided by the successful queries.\n\n",
		fmt.Sprintf(c.SQL, "<catalog>."+r.Header.Dataset.Keyspace+".kv", "<key>"), c.Duration)
	b.WriteString("| clients | catalog | qps | p50 | p99 | max | errors | Trino CPU per query | source CPU per query |\n|---:|---|---:|---:|---:|---:|---:|---:|---:|\n")
	var errs []string
	for _, lv := range c.Levels {
		for _, x := range []LevelRun{lv.Ours, lv.Peer} {
			fmt.Fprintf(b, "| %d | %s | %.1f | %s | %s | %s | %d | %s | %s |\n", lv.Clients, x.Catalog, x.QPS,
				fmtMS(x.P50MS), fmtMS(x.P99MS), fmtMS(x.MaxMS), x.Errors, fmtMS(x.TrinoCPUPerQueryMS), fmtMS(x.SourceCPUPerQueryMS))
			for _, e := range x.ErrorsAt {
				errs = append(errs, fmt.Sprintf("%d clients, %s: %s", lv.Clients, x.Catalog, e))
			}
		}
		fmt.Fprintf(b, "| %d | ratio ours/cassandra | %.2f× | | | | | | |\n", lv.Clients, lv.Ratio)
	}
	b.WriteString("\n")
	if len(errs) > 0 {
		b.WriteString("First errors:\n\n")
		for _, e := range errs {
			fmt.Fprintf(b, "- %s\n", strings.ReplaceAll(firstBytes([]byte(e), 300), "\n", " "))
		}
		b.WriteString("\n")
	}
	p := c.Profile
	if p == nil {
		return
	}
	fmt.Fprintf(b, "%s## Trino profile: %s\n\n", h, p.What)
	if x := c.Profiled; x != nil {
		share := Share(p.Connectors, ourConnector)
		fmt.Fprintf(b, "The recorded run: %.1f qps, p50 %s, %d errors; Trino CPU %s per query, of which our connector with its transport %.1f%% (≈ %s per query), its own frames %.1f%%. ",
			x.QPS, fmtMS(x.P50MS), x.Errors, fmtMS(x.TrinoCPUPerQueryMS), share, fmtMS(x.TrinoCPUPerQueryMS*share/100), Share(p.AreasOnStack, ourConnectorArea))
		b.WriteString("JFR samples Java code only (not GC or the JIT), so the shares are of Trino's Java work.\n\n")
	}
	profileMarkdown(b, p)
}
