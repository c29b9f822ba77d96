package grafana

import (
	"context"
	"fmt"
	"maps"
	"math"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// pods are the two servers' pod labels: two, so that every panel is seen
// to split by pod.
var pods = []string{"sstable-flight-0", "sstable-flight-1"}

// moved are the metrics the test's load moves: a query naming only
// these must show a non-zero value for each pod, not only a series.
// Pinned bytes move because pinFiles deletes files under a snapshot. The
// others (storage stalls, retired epochs, readers opened, ...) may stay
// at zero on an undisturbed corpus; their queries need a finite value.
var moved = map[string]bool{
	"sstf_requests_total": true, "sstf_request_seconds_bucket": true, "sstf_phase_seconds_bucket": true,
	"sstf_rows_out_total": true, "sstf_bytes_out_total": true, "sstf_sheds_total": true, "sstf_limit_refusals_total": true,
	"sstf_key_cache_total": true, "sstf_chunk_cache_total": true, "sstf_reader_cache_total": true,
	"sstf_key_cache_bytes": true, "sstf_chunk_cache_bytes": true, "sstf_snapshot_epochs": true,
	"sstf_snapshot_pinned_bytes": true, "sstf_snapshot_oldest_epoch_age_seconds": true, "sstf_open_readers": true,
	"process_resident_memory_bytes": true, "process_cpu_seconds_total": true, "go_memstats_heap_inuse_bytes": true,
}

// TestDashboardQueriesReturnData is issue #18's acceptance for the
// dashboard: two real servers under load (scans, keyed reads, errors,
// sheds) and pinning deleted files (pinFiles), scraped each second by a real Prometheus (Debian's 2.42) with
// namespace and pod labels; every metric the dashboard names is one the
// server exports, and every query of it, its variables substituted as
// Grafana would ($__rate_interval four scrapes, All as .*), returns a
// finite value for each of the two pods within a bounded time, non-zero
// where the load moves what it reads (moved). So do the namespace and
// pod variables' label_values.
func TestDashboardQueriesReturnData(t *testing.T) {
	promBin := prometheusBin(t)
	d := loadDashboard(t)
	bin := buildServer(t)
	keys := corpusKeys(t)
	var servers []*server
	var loads []*load
	for _, pod := range pods {
		s := startServer(t, bin, pod)
		servers = append(servers, s)
		loads = append(loads, startLoad(t, s, keys))
		pinFiles(t, s)
	}
	prom := startPrometheus(t, promBin, servers)

	exported := exportedMetrics(t, servers[0])
	titles, targets := queryTargets(d)
	for i, tg := range targets {
		for _, name := range metricNames(tg.Expr) {
			if !exported[name] {
				t.Errorf("panel %q query %q names %s, which the server does not export", titles[i], tg.Expr, name)
			}
		}
	}

	checks := map[string]func(context.Context) error{}
	for i, tg := range targets {
		q := substitute(tg.Expr)
		nonzero := true
		for _, name := range metricNames(tg.Expr) {
			nonzero = nonzero && moved[name]
		}
		checks[fmt.Sprintf("panel %q query %s", titles[i], q)] = func(ctx context.Context) error {
			vec, err := prom.query(ctx, q)
			return everyPod(vec, err, nonzero)
		}
	}
	for _, v := range d.Templating.List {
		if v.Type != "query" {
			continue
		}
		match, label, ok := labelValuesQuery(v.Definition)
		if !ok {
			t.Errorf("variable %s: %q is not label_values(match, label)", v.Name, v.Definition)
			continue
		}
		want := map[string][]string{"namespace": {namespace}, "pod": pods}[label]
		checks["variable "+v.Name] = func(ctx context.Context) error {
			got, err := prom.labelValues(ctx, match, label)
			if err == nil && !containsAll(got, want) {
				err = fmt.Errorf("values %q, want %q among them", got, want)
			}
			return err
		}
	}
	failing := map[string]error{}
	for name := range checks {
		failing[name] = fmt.Errorf("not run")
	}
	start := time.Now()
	// Each round runs what still fails, each call bounded on its own, so
	// that the last error reported is Prometheus' answer, not the wait's
	// end.
	for deadline := start.Add(2 * time.Minute); len(failing) > 0 && time.Now().Before(deadline); {
		time.Sleep(scrapeInterval)
		for name := range failing {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			err := checks[name](ctx)
			cancel()
			if err != nil {
				failing[name] = err
			} else {
				delete(failing, name)
			}
		}
	}
	t.Logf("%d queries and variables returned data for both pods after %v", len(checks)-len(failing), time.Since(start).Round(time.Second))
	for _, name := range slices.Sorted(maps.Keys(failing)) {
		t.Errorf("%s: %v", name, failing[name])
	}
	for i, l := range loads {
		l.stop()
		t.Logf("load on %s: %v", servers[i], l.outcomes())
	}
}

// substitute replaces the dashboard's variables as Grafana would with
// All selected and the test's scrape interval.
func substitute(expr string) string {
	return strings.NewReplacer(
		"$__rate_interval", strconv.Itoa(int(rateInterval.Seconds()))+"s",
		"${datasource}", "", "$namespace", ".*", "$pod", ".*",
	).Replace(expr)
}

// labelValuesCall is Grafana's label_values(match, label) variable query.
var labelValuesCall = regexp.MustCompile(`^label_values\((.+),\s*([A-Za-z_][A-Za-z0-9_]*)\)$`)

func labelValuesQuery(def string) (match, label string, ok bool) {
	m := labelValuesCall.FindStringSubmatch(def)
	if m == nil {
		return "", "", false
	}
	return substitute(m[1]), m[2], true
}

// everyPod is nil when the vector has a finite value for every pod, a
// non-zero one if nonzero.
func everyPod(vec []sample, err error, nonzero bool) error {
	if err != nil {
		return err
	}
	if len(vec) == 0 {
		return fmt.Errorf("empty result")
	}
	finite := map[string]bool{}
	for _, s := range vec {
		v, _ := s.Value[1].(string)
		if f, err := strconv.ParseFloat(v, 64); err == nil && !math.IsNaN(f) && !math.IsInf(f, 0) && (f != 0 || !nonzero) {
			finite[s.Metric["pod"]] = true
		}
	}
	for _, pod := range pods {
		if !finite[pod] {
			return fmt.Errorf("no finite value (non-zero: %v) for pod %s in %d series: %v", nonzero, pod, len(vec), vec)
		}
	}
	return nil
}

func containsAll(got, want []string) bool {
	for _, w := range want {
		if !slices.Contains(got, w) {
			return false
		}
	}
	return true
}

// exportedMetrics are the sample names s's /metrics serves: each
// family's name, and for histograms and summaries their _bucket, _sum
// and _count series.
func exportedMetrics(t *testing.T, s *server) map[string]bool {
	t.Helper()
	resp, err := http.Get("http://" + s.admin + "/metrics")
	if err != nil {
		t.Fatalf("scrape %s: %v", s, err)
	}
	defer resp.Body.Close()
	parser := expfmt.NewTextParser(model.LegacyValidation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parse the /metrics of %s: %v", s, err)
	}
	names := map[string]bool{}
	for name, f := range families {
		names[name] = true
		switch f.GetType() {
		case dto.MetricType_HISTOGRAM, dto.MetricType_GAUGE_HISTOGRAM:
			names[name+"_bucket"], names[name+"_sum"], names[name+"_count"] = true, true, true
		case dto.MetricType_SUMMARY:
			names[name+"_sum"], names[name+"_count"] = true, true
		}
	}
	return names
}
