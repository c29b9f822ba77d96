package kube

import (
	"encoding/json"
	"maps"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// slice builds an EndpointSlice of one named port and the endpoints
// given as "ip" (ready) or "ip!" (not ready).
func slice(name, portName string, port int32, eps ...string) *discoveryv1.EndpointSlice {
	es := &discoveryv1.EndpointSlice{
		ObjectMeta:  metav1.ObjectMeta{Name: name},
		AddressType: discoveryv1.AddressTypeIPv4,
		Ports:       []discoveryv1.EndpointPort{{Name: &portName, Port: &port}},
	}
	for _, e := range eps {
		ip, notReady := strings.CutSuffix(e, "!")
		if strings.Contains(ip, ":") {
			es.AddressType = discoveryv1.AddressTypeIPv6
		}
		ready := !notReady
		es.Endpoints = append(es.Endpoints, discoveryv1.Endpoint{Addresses: []string{ip}, Conditions: discoveryv1.EndpointConditions{Ready: &ready}})
	}
	return es
}

// decoded is the slices as the Source reads them: k8s.io/api's JSON,
// decoded into the server's own types.
func decoded(t *testing.T, in []*discoveryv1.EndpointSlice) []*endpointSlice {
	t.Helper()
	var out []*endpointSlice
	for _, es := range in {
		b, err := json.Marshal(es)
		if err != nil {
			t.Fatal(err)
		}
		d := &endpointSlice{}
		if err := json.Unmarshal(b, d); err != nil {
			t.Fatal(err)
		}
		out = append(out, d)
	}
	return out
}

func TestMapSlices(t *testing.T) {
	unknown := slice("u", "flight", 8815, "10.0.0.9")
	unknown.Endpoints[0].Conditions.Ready = nil
	fqdn := slice("f", "flight", 8815, "cass-0.example")
	fqdn.AddressType = discoveryv1.AddressTypeFQDN
	for _, tc := range []struct {
		name   string
		slices []*discoveryv1.EndpointSlice
		scheme string
		want   map[string]string
		skips  int
	}{
		{"ready endpoints of two slices", []*discoveryv1.EndpointSlice{
			slice("a", "flight", 8815, "10.0.0.1", "10.0.0.2"), slice("b", "flight", 8815, "10.0.0.3"),
		}, "grpc", map[string]string{"10.0.0.1": "grpc://10.0.0.1:8815", "10.0.0.2": "grpc://10.0.0.2:8815", "10.0.0.3": "grpc://10.0.0.3:8815"}, 0},
		{"tls scheme", []*discoveryv1.EndpointSlice{slice("a", "flight", 9000, "10.0.0.1")}, "grpc+tls",
			map[string]string{"10.0.0.1": "grpc+tls://10.0.0.1:9000"}, 0},
		{"not ready left out", []*discoveryv1.EndpointSlice{slice("a", "flight", 8815, "10.0.0.1", "10.0.0.2!")}, "grpc",
			map[string]string{"10.0.0.1": "grpc://10.0.0.1:8815"}, 1},
		{"ready unknown is ready", []*discoveryv1.EndpointSlice{unknown}, "grpc",
			map[string]string{"10.0.0.9": "grpc://10.0.0.9:8815"}, 0},
		{"slice without the port name", []*discoveryv1.EndpointSlice{slice("a", "metrics", 9102, "10.0.0.1")}, "grpc",
			map[string]string{}, 1},
		{"FQDN slice", []*discoveryv1.EndpointSlice{fqdn}, "grpc", map[string]string{}, 1},
		{"IPv6 bracketed", []*discoveryv1.EndpointSlice{slice("a", "flight", 8815, "fd00::1")}, "grpc",
			map[string]string{"fd00::1": "grpc://[fd00::1]:8815"}, 0},
		{"conflict: first slice by name wins", []*discoveryv1.EndpointSlice{
			slice("z", "flight", 9999, "10.0.0.1"), slice("a", "flight", 8815, "10.0.0.1"),
		}, "grpc", map[string]string{"10.0.0.1": "grpc://10.0.0.1:8815"}, 1},
		{"same endpoint twice agrees", []*discoveryv1.EndpointSlice{
			slice("a", "flight", 8815, "10.0.0.1"), slice("b", "flight", 8815, "10.0.0.1"),
		}, "grpc", map[string]string{"10.0.0.1": "grpc://10.0.0.1:8815"}, 0},
		{"not an IP", []*discoveryv1.EndpointSlice{slice("a", "flight", 8815, "nonsense")}, "grpc", map[string]string{}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, skips := mapSlices(decoded(t, tc.slices), "flight", tc.scheme)
			want := endpointMap{}
			for k, v := range tc.want {
				want[netip.MustParseAddr(k)] = v
			}
			if !maps.Equal(got, want) {
				t.Errorf("map = %v, want %v", got, want)
			}
			if len(skips) != tc.skips {
				t.Errorf("skipped %v, want %d", skips, tc.skips)
			}
		})
	}
}

func TestConfigRefused(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  Config
		want string
	}{
		{"no client", Config{Namespace: "ns", Service: "svc"}, "no API client"},
		{"bad service", Config{Client: unreachableClient(t), Namespace: "ns", Service: "Svc_1"}, "service name"},
		{"bad namespace", Config{Client: unreachableClient(t), Namespace: "NS", Service: "svc"}, "namespace"},
		{"bad port name", Config{Client: unreachableClient(t), Namespace: "ns", Service: "svc", PortName: "flight_port"}, "port name"},
		{"bad scheme", Config{Client: unreachableClient(t), Namespace: "ns", Service: "svc", Scheme: "http"}, "scheme"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Start(t.Context(), tc.cfg)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Start = %v, want an error naming %q", err, tc.want)
			}
		})
	}
}

func TestDefaultNamespace(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "namespace")
	if _, err := defaultNamespace(file, ""); err == nil {
		t.Error("no file, no env: want an error")
	}
	if ns, err := defaultNamespace(file, "from-env"); err != nil || ns != "from-env" {
		t.Errorf("env: %q, %v", ns, err)
	}
	if err := os.WriteFile(file, []byte("from-file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if ns, err := defaultNamespace(file, "from-env"); err != nil || ns != "from-file" {
		t.Errorf("file: %q, %v", ns, err)
	}
}
