//go:build kubelet

package charttest

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// scrape and rate intervals of the Prometheus check: Grafana's
// $__rate_interval is four scrapes.
const (
	promScrape = time.Second
	promRate   = 4 * promScrape
)

// prometheusScrapesPods runs a real Prometheus (Debian's, make deps) on
// the host that scrapes the pods the chart's PodMonitor selects, under a
// light load of scans, node-info calls and one refused plan per server;
// then every query of the dashboard, its variables as Grafana with All
// selected, returns a finite value for each pod. Debian builds
// Prometheus without Kubernetes service discovery, so the test does what
// the Prometheus Operator's generated configuration would: it lists the
// pods of the PodMonitor's namespaces through the API server, keeps
// those its selector matches with a container port of the endpoint's
// name, and gives them to Prometheus (file-based discovery) with the
// namespace, pod and container labels the operator's relabelling sets.
func (n *node) prometheusScrapesPods(t *testing.T, ns, release string, values map[string]any, pods []corev1.Pod) {
	bin := filepath.Join(repoRoot(), "build", "prometheus", "usr", "bin", "prometheus")
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("prometheus: %v (make deps unpacks it)", err)
	}
	pm := renderedPodMonitor(t, ns, release, values)
	dir := t.TempDir()
	targets := filepath.Join(dir, "targets.json")
	n.writeTargets(t, pm, ns, targets, len(pods))
	prom := startPrometheus(t, bin, dir, scrapeConfig(t, pm, targets))
	stop := loadServers(t, pods)
	defer stop()

	exprs := dashboardExprs(t)
	failing := map[string]error{}
	for _, e := range exprs {
		failing[e] = fmt.Errorf("not run")
	}
	deadline := time.Now().Add(2 * time.Minute)
	for len(failing) > 0 && time.Now().Before(deadline) {
		time.Sleep(promScrape)
		for e := range failing {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			err := everyPodHasValue(prom.query(ctx, substituteVars(e, ns)))(pods)
			cancel()
			if err == nil {
				delete(failing, e)
			} else {
				failing[e] = err
			}
		}
	}
	for e, err := range failing {
		t.Errorf("dashboard query %s: %v", e, err)
	}
	t.Logf("%d dashboard queries returned a value for each of %d pods", len(exprs)-len(failing), len(pods))
}

// renderedPodMonitor is the chart's PodMonitor for these values, as it
// renders where the Prometheus Operator's CRDs are served (this node has
// no operator).
func renderedPodMonitor(t *testing.T, ns, release string, values map[string]any) *monitoringv1.PodMonitor {
	t.Helper()
	c, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	r, err := RenderWith(c, values, Options{Namespace: ns, Release: release, APIVersions: MonitoringAPIs})
	if err != nil {
		t.Fatal(err)
	}
	pms := objectsOf[*monitoringv1.PodMonitor](r)
	if len(pms) != 1 || len(pms[0].Spec.PodMetricsEndpoints) != 1 {
		t.Fatalf("the chart renders %d PodMonitors, want one with one endpoint", len(pms))
	}
	pm := pms[0]
	if pm.Namespace == "" {
		pm.Namespace = ns // the release's, where Helm creates it
	}
	ep := pm.Spec.PodMetricsEndpoints[0]
	if ep.Port == nil || *ep.Port == "" || len(pm.Spec.Selector.MatchExpressions) != 0 {
		t.Fatalf("PodMonitor %s: want a named port and matchLabels only", pm.Name)
	}
	return pm
}

// writeTargets writes, for file-based discovery, the scrape targets of
// pm: each running pod of its namespaces that its selector matches, at
// the port of its endpoint's name, labelled namespace, pod and container
// as the operator's relabelling does. It fails unless it finds want.
func (n *node) writeTargets(t *testing.T, pm *monitoringv1.PodMonitor, ns, path string, want int) {
	t.Helper()
	namespaces := pm.Spec.NamespaceSelector.MatchNames
	if len(namespaces) == 0 {
		namespaces = []string{pm.Namespace}
	}
	port := *pm.Spec.PodMetricsEndpoints[0].Port
	type group struct {
		Targets []string          `json:"targets"`
		Labels  map[string]string `json:"labels"`
	}
	var groups []group
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, space := range namespaces {
		list, err := n.kube.CoreV1().Pods(space).List(ctx, metav1.ListOptions{LabelSelector: labels.SelectorFromSet(pm.Spec.Selector.MatchLabels).String()})
		if err != nil {
			t.Fatalf("list the PodMonitor's pods in %s: %v", space, err)
		}
		for _, p := range list.Items {
			for _, c := range p.Spec.Containers {
				for _, cp := range c.Ports {
					if cp.Name == port && p.Status.PodIP != "" {
						groups = append(groups, group{
							Targets: []string{net.JoinHostPort(p.Status.PodIP, strconv.Itoa(int(cp.ContainerPort)))},
							Labels:  map[string]string{"namespace": p.Namespace, "pod": p.Name, "container": c.Name},
						})
					}
				}
			}
		}
	}
	if len(groups) != want {
		t.Fatalf("the PodMonitor selects %d scrape targets, want %d: %v", len(groups), want, groups)
	}
	if err := os.WriteFile(path, []byte(jsonOf(groups)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// scrapeConfig is Prometheus' configuration for pm's targets in file.
func scrapeConfig(t *testing.T, pm *monitoringv1.PodMonitor, file string) string {
	t.Helper()
	path := "/metrics"
	if p := pm.Spec.PodMetricsEndpoints[0].Path; p != "" {
		path = p
	}
	return fmt.Sprintf(`global:
  scrape_interval: %[1]s
  scrape_timeout: %[1]s
  evaluation_interval: %[1]s
scrape_configs:
  - job_name: podMonitor/%[2]s/%[3]s/0
    metrics_path: %[4]s
    file_sd_configs:
      - files: [%[5]s]
`, promScrape, pm.Namespace, pm.Name, path, jsonOf(file))
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// prometheus is a running Prometheus's HTTP API.
type prometheus struct{ url string }

// startPrometheus runs bin with config in dir on a free loopback port
// until the end of the test, and waits until it is ready.
func startPrometheus(t *testing.T, bin, dir, config string) *prometheus {
	t.Helper()
	cfg := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(cfg, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	cmd := exec.Command(bin, "--config.file="+cfg, "--storage.tsdb.path="+filepath.Join(dir, "data"), "--web.listen-address="+addr)
	logf, err := os.Create(filepath.Join(dir, "prometheus.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start prometheus: %v", err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			<-done
		}
		logf.Close()
	})
	p := &prometheus{url: "http://" + addr}
	err = poll(time.Minute, 500*time.Millisecond, func(ctx context.Context) error {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, p.url+"/-/ready", nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("ready: %s", resp.Status)
		}
		return nil
	})
	if err != nil {
		log, _ := os.ReadFile(filepath.Join(dir, "prometheus.log"))
		t.Fatalf("prometheus: %v\n%s\nconfig:\n%s", err, log, config)
	}
	return p
}

// sample is one element of an instant vector.
type sample struct {
	Metric map[string]string `json:"metric"`
	Value  [2]any            `json:"value"`
}

func (p *prometheus) query(ctx context.Context, q string) ([]sample, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.url+"/api/v1/query?query="+url.QueryEscape(q), nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var body struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Data   struct {
			Result []sample `json:"result"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		return nil, fmt.Errorf("decode the answer to %s: %w", q, err)
	}
	if body.Status != "success" {
		return nil, fmt.Errorf("query %s: %s", q, body.Error)
	}
	return body.Data.Result, nil
}

// everyPodHasValue checks a query's answer has a finite value for each
// pod.
func everyPodHasValue(vec []sample, err error) func([]corev1.Pod) error {
	return func(pods []corev1.Pod) error {
		if err != nil {
			return err
		}
		finite := map[string]bool{}
		for _, s := range vec {
			v, _ := s.Value[1].(string)
			if f, err := strconv.ParseFloat(v, 64); err == nil && !math.IsNaN(f) && !math.IsInf(f, 0) {
				finite[s.Metric["pod"]] = true
			}
		}
		for _, p := range pods {
			if !finite[p.Name] {
				return fmt.Errorf("no finite value for pod %s in %d series %v", p.Name, len(vec), vec)
			}
		}
		return nil
	}
}

// dashboardExprs are the queries of the chart's dashboard.
func dashboardExprs(t *testing.T) []string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(ChartDir(), "dashboards", "sstable-flight.json"))
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Panels []struct {
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatalf("decode the dashboard: %v", err)
	}
	var exprs []string
	for _, p := range d.Panels {
		for _, tg := range p.Targets {
			exprs = append(exprs, tg.Expr)
		}
	}
	if len(exprs) == 0 {
		t.Fatal("the dashboard has no queries")
	}
	return exprs
}

// substituteVars replaces the dashboard's variables as Grafana does with
// the namespace ns and every pod.
func substituteVars(expr, ns string) string {
	return strings.NewReplacer(
		"$__rate_interval", strconv.Itoa(int(promRate.Seconds()))+"s",
		"$namespace", regexp.QuoteMeta(ns), "$pod", ".*",
	).Replace(expr)
}

// loadServers keeps every server of pods busy until the returned stop:
// a scan of e2e.kv, a node-info call and one plan of a table that does
// not exist (NOT_FOUND, so the dashboard's error panel has a series) per
// round, each bounded.
func loadServers(t *testing.T, pods []corev1.Pod) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for _, uri := range serverURIs(pods) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				rctx, rcancel := context.WithTimeout(ctx, 10*time.Second)
				scanKV(rctx, uri, "e2e", "kv")
				getNodeInfo(rctx, uri)
				planMissing(rctx, uri)
				rcancel()
				select {
				case <-ctx.Done():
				case <-time.After(200 * time.Millisecond):
				}
			}
		}()
	}
	return func() {
		cancel()
		wg.Wait()
	}
}

// planMissing asks uri to plan a table that does not exist.
func planMissing(ctx context.Context, uri string) {
	fc := flightClients{}
	defer fc.close()
	if c, err := fc.get(uri); err == nil {
		c.GetFlightInfo(ctx, &flight.FlightDescriptor{Type: flight.DescriptorPATH, Path: []string{"e2e", "no_such_table"}})
	}
}
