package loadgen

import (
	"context"
	"testing"
)

// ScrapeMetrics reads a real server's /metrics once: the named metrics
// it exposes come back, a name it does not expose is absent, and no URL
// is an error rather than a nil scraper's panic.
func TestScrapeMetrics(t *testing.T) {
	ts := startServer(t)
	m, err := ScrapeMetrics(context.Background(), ts.metrics, metricRSS, "process_start_time_seconds", "no_such_metric")
	if err != nil {
		t.Fatal(err)
	}
	if m[metricRSS] <= 0 || m["process_start_time_seconds"] <= 0 {
		t.Errorf("metrics %v: want a positive RSS and start time", m)
	}
	if _, ok := m["no_such_metric"]; ok {
		t.Errorf("metrics %v: an unexposed name is present", m)
	}
	if _, err := ScrapeMetrics(context.Background(), "", metricRSS); err == nil {
		t.Error("empty URL accepted")
	}
}
