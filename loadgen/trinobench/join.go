package trinobench

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/sstable-flight/sstable-flight/loadgen/testbed"
)

// The join's dimension table lives in Trino's memory catalog: both arms
// then join the very same 100 build rows, read the same way, and differ
// only in how their catalog reads kv for the probe side, which is what
// the join measures. A Cassandra table instead would add a second
// difference (each catalog reading its own copy of the dimension), and
// for ours it would have to be flushed to an SSTable before the server
// could see it.
const (
	MemoryCatalog = "memory"
	DimTable      = "dim"
)

// JoinKeys are n keys of kv spread evenly over its rows, so the join's
// keys fall in every token range and every split of the table.
func JoinKeys(kvRows, n int) []string {
	n = min(n, kvRows)
	keys := make([]string, 0, n)
	step := kvRows / max(1, n)
	for i := range n {
		keys = append(keys, testbed.KVKey(i*step+step/2))
	}
	return keys
}

// DimName is the dimension table's catalog-qualified name: its schema is
// named after the keyspace, so two runs on one Trino cannot share it.
func DimName(keyspace string) string { return MemoryCatalog + "." + keyspace + "." + DimTable }

// JoinQuery is the join of the dimension table to kv on kv's partition
// key: every kv row of the 100 keys, in key order so the two arms' rows
// compare value for value. dim is the join's right side, Trino's build
// side, so its keys become the dynamic filter on the kv scan.
func JoinQuery(keyspace string, keys int) Query {
	return Query{
		Table: "kv", Name: fmt.Sprintf("join %d keys", keys), Join: true,
		SQL: "SELECT kv.k, kv.v FROM %s kv JOIN " + DimName(keyspace) + " d ON kv.k = d.k ORDER BY kv.k",
	}
}

// CreateDim (re)creates the dimension table in Trino's memory catalog
// holding keys, cast to varchar so no coercion sits on kv's side of the
// join condition (a cast there could keep the filter off the scan).
func CreateDim(ctx context.Context, c *Client, keyspace string, keys []string) error {
	if len(keys) == 0 {
		return fmt.Errorf("create %s: no keys", DimName(keyspace))
	}
	vals := make([]string, len(keys))
	for i, k := range keys {
		vals[i] = "('" + strings.ReplaceAll(k, "'", "''") + "')"
	}
	for _, sql := range []string{
		"CREATE SCHEMA IF NOT EXISTS " + MemoryCatalog + "." + keyspace,
		"DROP TABLE IF EXISTS " + DimName(keyspace),
		"CREATE TABLE " + DimName(keyspace) + " AS SELECT CAST(k AS varchar) AS k FROM (VALUES " + strings.Join(vals, ", ") + ") AS t(k)",
	} {
		if _, err := c.Query(ctx, sql); err != nil {
			return fmt.Errorf("create %s: %w", DimName(keyspace), err)
		}
	}
	r, err := c.Query(ctx, "SELECT count(*) FROM "+DimName(keyspace))
	if err != nil {
		return fmt.Errorf("create %s: %w", DimName(keyspace), err)
	}
	if len(r.Rows) != 1 || len(r.Rows[0]) != 1 || fmt.Sprint(r.Rows[0][0]) != fmt.Sprint(len(keys)) {
		return fmt.Errorf("create %s: count(*) = %v, want %d", DimName(keyspace), r.Rows, len(keys))
	}
	return nil
}

// JoinEvidence is what Trino's QueryInfo says the join read: the scan of
// kv (the probe side), whether a dynamic filter reached it, and the
// filter itself. A join that read 100 keys shows ProbeRows near 100; one
// that scanned shows the table's rows, whatever the filter did after.
type JoinEvidence struct {
	// ProbeRows is physicalInputPositions of kv's scan operators: the
	// rows the catalog's page sources read (their own account, else the
	// rows they returned).
	ProbeRows int64 `json:"probe_rows"`
	// ProbeReturned is their inputPositions: rows the page sources
	// returned to Trino.
	ProbeReturned int64 `json:"probe_rows_returned"`
	// ProbeKept is their outputPositions: rows left after the scan's
	// fused filter, where Trino applies the dynamic filter to rows itself.
	ProbeKept   int64 `json:"probe_rows_kept"`
	ProbeSplits int64 `json:"probe_splits"` // the scan operators' drivers, one per split
	// DFSplits is dynamicFilterSplitsProcessed: splits whose page source
	// was created with the dynamic filter already known.
	DFSplits    int64      `json:"dynamic_filter_splits_processed"`
	Filters     int        `json:"dynamic_filters"`
	Completed   int        `json:"dynamic_filters_completed"`
	Domains     []DFDomain `json:"dynamic_filter_domains,omitempty"`
	ScanOpFound bool       `json:"probe_scan_found"` // false: the plan had no scan of the catalog the rig could name
}

// DFDomain is one dynamic filter: its simplified domain (e.g.
// "[ SortedRangeSet[type=varchar, ranges=100, ...] ]") and how long
// Trino took to collect it.
type DFDomain struct {
	ID         string `json:"id"`
	Domain     string `json:"domain"`
	Collection string `json:"collection"`
}

// joinInfo is what ParseJoinEvidence reads of a QueryInfo.
type joinInfo struct {
	QueryStats struct {
		DynamicFiltersStats struct {
			DomainStats []struct {
				ID         string `json:"dynamicFilterId"`
				Domain     string `json:"simplifiedDomain"`
				Collection string `json:"collectionDuration"`
			} `json:"dynamicFilterDomainStats"`
			Total     int `json:"totalDynamicFilters"`
			Completed int `json:"dynamicFiltersCompleted"`
		} `json:"dynamicFiltersStats"`
		OperatorSummaries []struct {
			SourceID     string `json:"sourceId"` // a source operator's table scan node
			OperatorType string `json:"operatorType"`
			Physical     int64  `json:"physicalInputPositions"`
			Input        int64  `json:"inputPositions"`
			Output       int64  `json:"outputPositions"`
			DFSplits     int64  `json:"dynamicFilterSplitsProcessed"`
			TotalDrivers int64  `json:"totalDrivers"`
		} `json:"operatorSummaries"`
	} `json:"queryStats"`
}

// ParseJoinEvidence reads a finished join's QueryInfo: the plan's table
// scans of catalog's tables, and the source operators that ran them
// (an operator summary's sourceId is its table scan's plan node).
func ParseJoinEvidence(info []byte, catalog string) (JoinEvidence, error) {
	var ev JoinEvidence
	var qi joinInfo
	if err := json.Unmarshal(info, &qi); err != nil {
		return ev, fmt.Errorf("read join query info: %w", err)
	}
	var tree any
	if err := json.Unmarshal(info, &tree); err != nil {
		return ev, fmt.Errorf("read join query info: %w", err)
	}
	scans := map[string]bool{}
	tableScans(tree, func(id, catalogHandle string) {
		if strings.HasPrefix(catalogHandle, catalog+":") {
			scans[id] = true
		}
	})
	df := qi.QueryStats.DynamicFiltersStats
	ev.Filters, ev.Completed = df.Total, df.Completed
	for _, d := range df.DomainStats {
		ev.Domains = append(ev.Domains, DFDomain{ID: d.ID, Domain: firstBytes([]byte(d.Domain), 160), Collection: d.Collection})
	}
	for _, op := range qi.QueryStats.OperatorSummaries {
		if op.SourceID == "" || !scans[op.SourceID] {
			continue
		}
		ev.ScanOpFound = true
		ev.ProbeRows += op.Physical
		ev.ProbeReturned += op.Input
		ev.ProbeKept += op.Output
		ev.DFSplits += op.DFSplits
		ev.ProbeSplits += op.TotalDrivers
	}
	return ev, nil
}

// tableScans calls f with the id and catalog handle (e.g.
// "sstable:normal:default") of every table scan node of a QueryInfo's
// plan, wherever its stages put it.
func tableScans(v any, f func(id, catalogHandle string)) {
	switch x := v.(type) {
	case map[string]any:
		if x["@type"] == "tableScan" {
			id, _ := x["id"].(string)
			t, _ := x["table"].(map[string]any)
			h, _ := t["catalogHandle"].(string)
			f(id, h)
		}
		for _, c := range x {
			tableScans(c, f)
		}
	case []any:
		for _, c := range x {
			tableScans(c, f)
		}
	}
}

// ExplainAnalyze runs EXPLAIN ANALYZE of sql and returns Trino's text:
// the plan with each operator's rows and the dynamic filters applied.
func ExplainAnalyze(ctx context.Context, c *Client, sql string) (string, error) {
	r, err := c.Query(ctx, "EXPLAIN ANALYZE "+sql)
	if err != nil {
		return "", fmt.Errorf("explain analyze: %w", err)
	}
	var b strings.Builder
	for _, row := range r.Rows {
		for _, v := range row {
			b.WriteString(fmt.Sprint(v))
			b.WriteString("\n")
		}
	}
	return b.String(), nil
}

// splitWait is EXPLAIN ANALYZE's figure of a scan's split generation
// wait: where a connector that waits for a dynamic filter before planning
// its splits spends that wait.
var splitWait = regexp.MustCompile(`Splits generation wait time: ([0-9.]+[a-z]+)`)

// ExplainSplitWait reads, from EXPLAIN ANALYZE's text, the split
// generation wait of the first scan of one of catalog's tables ("" if
// there is none): the lines from the scan's "[table = catalog:" to the
// next plan node.
func ExplainSplitWait(text, catalog string) string {
	in := false
	for _, line := range strings.Split(text, "\n") {
		switch {
		case strings.Contains(line, "[table = "+catalog+":"):
			in = true
		case in && (strings.Contains(line, "─ ") || strings.HasPrefix(strings.TrimSpace(line), "Fragment ")):
			return ""
		case in:
			if m := splitWait.FindStringSubmatch(line); m != nil {
				return m[1]
			}
		}
	}
	return ""
}
