package grafana

import (
	"reflect"
	"regexp"
	"slices"
	"testing"
)

// The metric names a PromQL expression names, by a small tokenizer
// rather than Prometheus' parser (whose module would pull the whole of
// Prometheus into the server's go.mod). It drops what cannot hold a
// metric name (string literals, label matchers, range windows, the
// label lists of by/without/on/ignoring/group_*, offset and @
// modifiers), then takes the
// identifiers that are neither a function or aggregation (followed by
// "(") nor a keyword. The live test runs every expression through the
// real Prometheus as well, so a syntax this misreads fails there.
var (
	promString   = regexp.MustCompile(`"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|` + "`[^`]*`")
	promBraces   = regexp.MustCompile(`\{[^}]*\}`)
	promBrackets = regexp.MustCompile(`\[[^\]]*\]`)
	promGrouping = regexp.MustCompile(`\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)`)
	promIdent    = regexp.MustCompile(`[A-Za-z_:][A-Za-z0-9_:]*(\s*\()?`)
	promOffset   = regexp.MustCompile(`\boffset\s+-?[0-9A-Za-z]+|@\s*[0-9A-Za-z.()]+`)
	promNumber   = regexp.MustCompile(`\b(?:0x[0-9a-fA-F]+|[0-9]+(?:\.[0-9]*)?(?:[eE][+-]?[0-9]+)?)`)
)

// promKeywords are PromQL's words that are not metric names when not
// followed by "(": operators, modifiers and literals.
var promKeywords = map[string]bool{
	"and": true, "or": true, "unless": true, "bool": true, "offset": true,
	"by": true, "without": true, "on": true, "ignoring": true, "group_left": true, "group_right": true,
	"inf": true, "nan": true, "Inf": true, "NaN": true, "start": true, "end": true,
}

// metricNames lists the metric names expr names, sorted, each once.
func metricNames(expr string) []string {
	s := promString.ReplaceAllString(expr, `""`)
	s = promBraces.ReplaceAllString(s, " ")
	s = promBrackets.ReplaceAllString(s, " ")
	s = promGrouping.ReplaceAllString(s, " ")
	s = promOffset.ReplaceAllString(s, " ")
	s = promNumber.ReplaceAllString(s, " ")
	var names []string
	for _, m := range promIdent.FindAllStringSubmatch(s, -1) {
		if m[1] != "" || promKeywords[m[0]] {
			continue // a function or aggregation, or a keyword
		}
		if !slices.Contains(names, m[0]) {
			names = append(names, m[0])
		}
	}
	slices.Sort(names)
	return names
}

// TestMetricNames: the tokenizer finds the metrics and only them in the
// shapes the dashboard uses, and in a few it does not (yet) but could.
func TestMetricNames(t *testing.T) {
	for expr, want := range map[string][]string{
		`sum by (pod, rpc, code) (rate(sstf_requests_total{namespace=~"$namespace", pod=~"$pod", code!="OK"}[$__rate_interval]))`: {"sstf_requests_total"},
		`histogram_quantile(0.99, sum by (pod, le) (rate(sstf_request_seconds_bucket{rpc="DoGet"}[4s])))`:                         {"sstf_request_seconds_bucket"},
		`process_resident_memory_bytes`: {"process_resident_memory_bytes"},
		`sum without (instance) (a_total) / on (pod) group_left (x) b{l="by (c)"} > bool 1e3 or vector(0)`: {"a_total", "b"},
		`rate(x[5m] offset 1h) + -Inf * 0x1f`: {"x"},
		`{__name__="sstf_rows_out_total"}`:    nil,
	} {
		if got := metricNames(expr); !reflect.DeepEqual(got, want) {
			t.Errorf("metricNames(%q) = %q, want %q", expr, got, want)
		}
	}
}
