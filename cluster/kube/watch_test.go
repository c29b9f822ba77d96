package kube

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// unstarted is a Source whose loop does not run: the test drives it.
func unstarted(t *testing.T, c *Client, ns string) *Source {
	t.Helper()
	cfg := Config{Client: c, Namespace: ns, Service: "cass"}
	if err := cfg.resolve(); err != nil {
		t.Fatal(err)
	}
	return &Source{cfg: cfg, selector: labelServiceName + "=cass", synced: make(chan struct{}), slices: map[string]*endpointSlice{}, peers: endpointMap{}}
}

// TestListThenWatch: the fallback where the API server serves no
// watch-list, a list and then a watch from the list's resource version,
// on the real API server; a watch stopped by the Source's end is no
// failure.
func TestListThenWatch(t *testing.T) {
	admin := adminClient(t)
	ns := namespace(t, admin)
	api := admin.DiscoveryV1().EndpointSlices(ns)
	if _, err := api.Create(t.Context(), forService(slice("cass-a", "flight", 8815, "10.6.0.1"), "cass"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	s := unstarted(t, sourceClient(t, nil), ns)
	if err := s.list(t.Context()); err != nil {
		t.Fatal(err)
	}
	if st := s.Status(); s.rv == "" || !st.Synced || st.Endpoints != 1 {
		t.Fatalf("after the list: resource version %q, Status %+v; want listed, 1 endpoint", s.rv, st)
	}
	ctx, stop := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- s.watch(ctx, false) }()
	if _, err := api.Create(t.Context(), forService(slice("cass-b", "flight", 8815, "10.6.0.2"), "cass"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	follows(t, s, "created after the list", 8815, "10.6.0.1", "10.6.0.2")
	stop()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("watch still running 30s after its context ended")
	}
	if st := s.Status(); st.Err != nil || st.Failures != 0 {
		t.Errorf("Status after the stop = %+v, want no failure", st)
	}
}

// TestGoneAsksForAList: the API server's 410 Gone, as an ERROR event of
// a watch or as the answer to opening one, makes the Source forget its
// resource version, so the next cycle lists (a watch cannot be made to
// outlive etcd's compaction in a test: the API server compacts every 5
// minutes).
func TestGoneAsksForAList(t *testing.T) {
	s := unstarted(t, unreachableClient(t), "ns")
	s.rv = "12345"
	status, _ := json.Marshal(apiStatus{Kind: "Status", Code: http.StatusGone, Reason: "Expired", Message: "too old resource version: 12345 (67890)"})
	if err := s.apply(watchEvent{Type: eventError, Object: status}, new(map[string]*endpointSlice)); !errors.Is(err, errGone) || s.rv != "" {
		t.Errorf("ERROR 410: %v, resource version %q; want errGone and none", err, s.rv)
	}
	resp := &http.Response{StatusCode: http.StatusGone, Body: io.NopCloser(strings.NewReader(string(status)))}
	err := answerError("watch EndpointSlices", resp)
	if !isGone(err) || !strings.Contains(err.Error(), "too old resource version") {
		t.Errorf("answer 410: %v, want Gone with the API server's message", err)
	}
	status, _ = json.Marshal(apiStatus{Kind: "Status", Code: http.StatusInternalServerError, Message: "etcd is sad"})
	if err := s.apply(watchEvent{Type: eventError, Object: status}, new(map[string]*endpointSlice)); err == nil || isGone(err) || !strings.Contains(err.Error(), "etcd is sad (HTTP 500)") {
		t.Errorf("ERROR 500: %v, want an error with the message", err)
	}
	for _, ev := range []watchEvent{{Type: "SURPRISE", Object: json.RawMessage(`{}`)}, {Type: eventAdded, Object: json.RawMessage(`[1]`)}} {
		t.Run(string(ev.Type), func(t *testing.T) {
			if err := s.apply(ev, new(map[string]*endpointSlice)); err == nil {
				t.Errorf("event %s %s: no error", ev.Type, ev.Object)
			}
		})
	}
}
