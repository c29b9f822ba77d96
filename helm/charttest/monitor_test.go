package charttest

import (
	"strings"
	"testing"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
)

// TestMonitorsNeedTheirCRDs renders on a cluster without the Prometheus
// Operator's API: no PodMonitor or ServiceMonitor (an object of a kind
// the API server does not serve fails the whole install), and NOTES say
// why; on one with it, both render when enabled.
func TestMonitorsNeedTheirCRDs(t *testing.T) {
	ch, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	values := map[string]any{"metrics": map[string]any{"serviceMonitor": map[string]any{"enabled": true}}}
	bare, err := RenderWith(ch, values, Options{Namespace: Namespace})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(objectsOf[*monitoringv1.PodMonitor](bare)) + len(objectsOf[*monitoringv1.ServiceMonitor](bare)); n != 0 {
		t.Errorf("%d monitors rendered without monitoring.coreos.com/v1", n)
	}
	if !strings.Contains(bare.Notes, "monitoring.coreos.com/v1") {
		t.Errorf("NOTES do not say why no monitor was installed:\n%s", bare.Notes)
	}
	with, err := Render(ch, values)
	if err != nil {
		t.Fatal(err)
	}
	if len(objectsOf[*monitoringv1.PodMonitor](with)) != 1 || len(objectsOf[*monitoringv1.ServiceMonitor](with)) != 1 {
		t.Errorf("monitors not rendered where monitoring.coreos.com/v1 is served")
	}
	if strings.Contains(with.Notes, "does not serve") {
		t.Errorf("NOTES say the monitors are missing:\n%s", with.Notes)
	}
}

// TestScrapeNeedsClientCertificate asserts a monitor of a server asking
// for client certificates is refused without one for Prometheus, naming
// the value, unless /metrics is open.
func TestScrapeNeedsClientCertificate(t *testing.T) {
	ch, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	values := map[string]any{"tls": map[string]any{"enabled": true, "existingSecret": "sstf-tls", "clientCA": true}}
	if _, err := Render(ch, values); err == nil || !strings.Contains(err.Error(), "metrics.scrape.clientCertSecret") {
		t.Errorf("mTLS monitor without a client certificate: %v", err)
	}
	if _, err := Render(ch, merged(values, map[string]any{"metrics": map[string]any{"open": true}})); err != nil {
		t.Errorf("with metrics.open: %v", err)
	}
	if _, err := RenderWith(ch, values, Options{Namespace: Namespace}); err != nil {
		t.Errorf("without the Prometheus Operator (no monitor): %v", err)
	}
}
