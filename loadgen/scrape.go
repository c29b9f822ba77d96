package loadgen

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// Server metrics the rig reads (docs/operations.md).
const (
	metricRSS   = "process_resident_memory_bytes"
	metricCPU   = "process_cpu_seconds_total"
	metricSheds = "sstf_sheds_total"
)

// serverSample is one scrape of the server's /metrics.
type serverSample struct {
	RSS, CPU, Sheds float64
}

// scraper reads the server's Prometheus endpoint. The server runs on the
// same machine as the rig, so a figure from it is the server's share of
// the CPU the run used, apart from the rig's own.
type scraper struct {
	url    string
	token  string // the server's bearer token, which its /metrics requires with it (unless --metrics-open)
	client *http.Client
	warned atomic.Bool
}

// warn reports a failed scrape once per run: the run goes on without
// server figures rather than stopping.
func (s *scraper) warn(w io.Writer, err error) {
	if w != nil && !s.warned.Swap(true) {
		fmt.Fprintf(w, "\rwarning: no server figures: %v\n", err)
	}
}

func newScraper(url, token string) *scraper {
	if url == "" {
		return nil
	}
	return &scraper{url: url, token: token, client: &http.Client{Timeout: 2 * time.Second}}
}

// close drops the kept-alive connection to the server's admin port.
func (s *scraper) close() {
	if s != nil {
		s.client.CloseIdleConnections()
	}
}

func (s *scraper) scrape(ctx context.Context) (serverSample, error) {
	m, err := s.get(ctx, metricRSS, metricCPU, metricSheds)
	if err != nil {
		return serverSample{}, err
	}
	if _, ok := m[metricCPU]; !ok {
		return serverSample{}, fmt.Errorf("scrape %s: no %s: not the server's metrics?", s.url, metricCPU)
	}
	return serverSample{RSS: m[metricRSS], CPU: m[metricCPU], Sheds: m[metricSheds]}, nil
}

// parseMetrics reads the Prometheus text exposition format and returns
// the wanted metrics, summed over their label sets. It reads only what
// the rig needs (samples of counters and gauges), which keeps it free of
// the client library's parser and its version churn.
func parseMetrics(r io.Reader, names ...string) (map[string]float64, error) {
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	out := map[string]float64{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		// name{labels} value [timestamp]; label values may hold spaces,
		// so the value is found after the closing brace.
		name, rest := line, ""
		if i := strings.IndexAny(line, "{ "); i >= 0 {
			name, rest = line[:i], line[i:]
		}
		if !want[name] {
			continue
		}
		if strings.HasPrefix(rest, "{") {
			j := strings.LastIndexByte(rest, '}')
			if j < 0 {
				return nil, fmt.Errorf("read metric line %q: unterminated labels", line)
			}
			rest = rest[j+1:]
		}
		fields := strings.Fields(rest)
		if len(fields) == 0 {
			return nil, fmt.Errorf("read metric line %q: no value", line)
		}
		v, err := strconv.ParseFloat(fields[0], 64)
		if err != nil {
			return nil, fmt.Errorf("read metric line %q: %w", line, err)
		}
		out[name] += v
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read metrics: %w", err)
	}
	return out, nil
}

// get scrapes once and returns the named metrics, summed over labels.
func (s *scraper) get(ctx context.Context, names ...string) (map[string]float64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.url, nil)
	if err != nil {
		return nil, fmt.Errorf("scrape %s: %w", s.url, err)
	}
	if s.token != "" {
		req.Header.Set("Authorization", "Bearer "+s.token)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("scrape %s: %w", s.url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("scrape %s: %s", s.url, resp.Status)
	}
	m, err := parseMetrics(resp.Body, names...)
	if err != nil {
		return nil, fmt.Errorf("scrape %s: %w", s.url, err)
	}
	return m, nil
}

// ScrapeMetrics reads the named metrics from a Prometheus endpoint once
// (one that needs no token),
// each summed over its label sets; a metric the endpoint lacks is absent
// from the map.
func ScrapeMetrics(ctx context.Context, url string, names ...string) (map[string]float64, error) {
	if url == "" {
		return nil, errors.New("scrape metrics: no URL")
	}
	s := newScraper(url, "")
	defer s.close()
	return s.get(ctx, names...)
}
