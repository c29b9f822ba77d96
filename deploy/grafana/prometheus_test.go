package grafana

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sstable-flight/sstable-flight/internal/testkit/flighttest"
)

// scrapeInterval is the test's scrape interval; rateInterval what
// Grafana's $__rate_interval becomes with it (four scrapes).
const (
	scrapeInterval = time.Second
	rateInterval   = 4 * scrapeInterval
	namespace      = "sstf-test"
)

// prometheusBin finds Debian's prometheus: $SSTF_PROMETHEUS, the unpack
// of deploy/local/install-prometheus.sh, or one on PATH. Without one the
// test skips, but in CI (CI=true), where make deps installs it, fails.
func prometheusBin(t *testing.T) string {
	t.Helper()
	for _, p := range []string{os.Getenv("SSTF_PROMETHEUS"), "../../build/prometheus/usr/bin/prometheus"} {
		if p == "" {
			continue
		}
		if _, err := os.Stat(p); err == nil {
			abs, err := filepath.Abs(p)
			if err != nil {
				t.Fatal(err)
			}
			return abs
		}
	}
	if p, err := exec.LookPath("prometheus"); err == nil {
		return p
	}
	const msg = "no prometheus: run deploy/local/install-prometheus.sh (make deps), or set SSTF_PROMETHEUS"
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// prometheus is a running Prometheus and its HTTP API.
type prometheus struct {
	*process
	url string
}

// startPrometheus runs bin on loopback, scraping every server each
// second with the labels Kubernetes service discovery would give it
// (namespace, pod), its storage in a directory of the test, and waits
// until it is ready.
func startPrometheus(t *testing.T, bin string, servers []*server) *prometheus {
	t.Helper()
	dir := t.TempDir()
	var targets strings.Builder
	for _, s := range servers {
		fmt.Fprintf(&targets, "      - targets: [%q]\n        labels: {namespace: %q, pod: %q}\n", s.admin, namespace, s.pod)
	}
	config := fmt.Sprintf(`global:
  scrape_interval: %[1]s
  scrape_timeout: %[1]s
  evaluation_interval: %[1]s
scrape_configs:
  - job_name: sstable-flight
    static_configs:
%[2]s`, scrapeInterval, targets.String())
	cfgFile := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(cfgFile, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	addr := flighttest.FreeAddr(t) // Prometheus cannot report a port it chose
	p := &prometheus{url: "http://" + addr}
	p.process = start(t, "prometheus", bin,
		"--config.file="+cfgFile, "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+addr, "--log.level=warn")
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(p.url + "/-/ready")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return p
			}
		}
		if p.exited() || time.Now().After(deadline) {
			t.Fatalf("prometheus not ready (exited: %v, %v): %v\nconfig:\n%s\noutput:\n%s", p.exited(), p.err, err, config, p.stderr.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// sample is one series of an instant query's vector.
type sample struct {
	Metric map[string]string `json:"metric"`
	Value  [2]any            `json:"value"`
}

// query runs an instant query through /api/v1/query and returns its
// vector; an error names the query and what Prometheus said.
func (p *prometheus) query(ctx context.Context, q string) ([]sample, error) {
	var data struct {
		ResultType string   `json:"resultType"`
		Result     []sample `json:"result"`
	}
	if err := p.api(ctx, "/api/v1/query?query="+url.QueryEscape(q), &data); err != nil {
		return nil, fmt.Errorf("query %s: %w", q, err)
	}
	if data.ResultType != "vector" {
		return nil, fmt.Errorf("query %s: result type %q, want vector", q, data.ResultType)
	}
	return data.Result, nil
}

// labelValues is Grafana's label_values(match, label): the values of
// label on the series match selects.
func (p *prometheus) labelValues(ctx context.Context, match, label string) ([]string, error) {
	var values []string
	if err := p.api(ctx, "/api/v1/label/"+url.PathEscape(label)+"/values?match[]="+url.QueryEscape(match), &values); err != nil {
		return nil, fmt.Errorf("label values of %s on %s: %w", label, match, err)
	}
	return values, nil
}

// api GETs path and decodes the data of a success into data.
func (p *prometheus) api(ctx context.Context, path string, data any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.url+path, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	var env struct {
		Status string          `json:"status"`
		Error  string          `json:"error"`
		Data   json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(body, &env); err != nil {
		return fmt.Errorf("HTTP %d, undecodable: %w: %.200s", resp.StatusCode, err, body)
	}
	if env.Status != "success" {
		return fmt.Errorf("HTTP %d: %s", resp.StatusCode, env.Error)
	}
	return json.Unmarshal(env.Data, data)
}
