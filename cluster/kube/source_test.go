package kube

import (
	"errors"
	"fmt"
	"maps"
	"net/netip"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/sstable-flight/sstable-flight/token"

	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus/testutil"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/sstable-flight/sstable-flight/cluster"
)

func start(t *testing.T, c *Client, ns, svc string) *Source {
	t.Helper()
	s, err := Start(t.Context(), Config{Client: c, Namespace: ns, Service: svc, SyncWait: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	if st := s.Status(); !st.Synced {
		t.Fatalf("not synced within 30s: %+v", st)
	}
	return s
}

// follows waits until the Source maps exactly the IPs given, each at
// port.
func follows(t *testing.T, s *Source, what string, port int, ips ...string) {
	t.Helper()
	want := map[netip.Addr]string{}
	for _, ip := range ips {
		want[netip.MustParseAddr(ip)] = fmt.Sprintf("grpc://%s:%d", ip, port)
	}
	eventually(t, what, func() (bool, string) {
		got := s.Endpoints()
		return maps.Equal(got, want), fmt.Sprint(got)
	})
}

// TestFollowsEndpointSlices drives a service's EndpointSlices through
// the changes pod churn makes (created, pod IP changed, endpoint not
// ready, port renamed, slice deleted) on the real API server, and
// checks the peer map follows each one; another service's slice in the
// namespace is never read.
func TestFollowsEndpointSlices(t *testing.T) {
	admin := adminClient(t)
	ns := namespace(t, admin)
	api := admin.DiscoveryV1().EndpointSlices(ns)
	ctx := t.Context()
	create := func(es *discoveryv1.EndpointSlice) *discoveryv1.EndpointSlice {
		t.Helper()
		out, err := api.Create(ctx, es, metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("create slice %s: %v", es.Name, err)
		}
		return out
	}
	update := func(es *discoveryv1.EndpointSlice) *discoveryv1.EndpointSlice {
		t.Helper()
		out, err := api.Update(ctx, es, metav1.UpdateOptions{})
		if err != nil {
			t.Fatalf("update slice %s: %v", es.Name, err)
		}
		return out
	}
	a := create(forService(slice("cass-a", "flight", 8815, "10.1.0.1", "10.1.0.2"), "cass"))
	create(forService(slice("other-a", "flight", 8815, "10.9.9.9"), "other"))

	s := start(t, sourceClient(t, nil), ns, "cass")
	follows(t, s, "slice listed at start", 8815, "10.1.0.1", "10.1.0.2")

	a.Endpoints[1].Addresses = []string{"10.1.0.3"}
	a = update(a)
	follows(t, s, "pod IP changed", 8815, "10.1.0.1", "10.1.0.3")

	notReady := false
	a.Endpoints[0].Conditions.Ready = &notReady
	a = update(a)
	follows(t, s, "endpoint not ready", 8815, "10.1.0.3")

	renamed := "grpc"
	a.Ports[0].Name = &renamed
	a = update(a)
	follows(t, s, "port renamed away from flight", 8815)

	flight, port := "flight", int32(9000)
	a.Ports[0].Name, a.Ports[0].Port = &flight, &port
	update(a)
	follows(t, s, "port renamed back, number changed", 9000, "10.1.0.3")

	create(forService(slice("cass-b", "flight", 9000, "10.1.0.4"), "cass"))
	follows(t, s, "second slice created", 9000, "10.1.0.3", "10.1.0.4")

	if err := api.Delete(ctx, "cass-a", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	follows(t, s, "first slice deleted", 9000, "10.1.0.4")

	// Peers maps the ring's nodes by native address, else broadcast.
	byNative, byBroadcast, absent := uuid.New(), uuid.New(), uuid.New()
	create(forService(slice("cass-c", "flight", 9000, "10.1.0.5"), "cass"))
	follows(t, s, "third slice created", 9000, "10.1.0.4", "10.1.0.5")
	ring, err := cluster.NewRing(byNative, []cluster.Node{
		{HostID: byNative, Broadcast: netip.MustParseAddr("10.2.0.4"), Native: netip.MustParseAddrPort("10.1.0.4:9042"), Tokens: []token.Token{1}},
		{HostID: byBroadcast, Broadcast: netip.MustParseAddr("10.1.0.5"), Native: netip.MustParseAddrPort("10.2.0.5:9042"), Tokens: []token.Token{2}},
		{HostID: absent, Broadcast: netip.MustParseAddr("10.1.0.6"), Native: netip.MustParseAddrPort("10.1.0.6:9042"), Tokens: []token.Token{3}},
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Peers(ctx, ring)
	if err != nil {
		t.Fatal(err)
	}
	want := map[uuid.UUID]string{byNative: "grpc://10.1.0.4:9000", byBroadcast: "grpc://10.1.0.5:9000"}
	if !maps.Equal(got, want) {
		t.Errorf("Peers = %v, want %v", got, want)
	}
	if st := s.Status(); st.Err != nil || st.Endpoints != 2 {
		t.Errorf("Status = %+v, want healthy with 2 endpoints", st)
	}
}

// TestUnreachableAtStart: an API server that does not answer leaves a
// Source whose Peers refuses with ErrNotSynced and the cause, and whose
// Status names the failure; Start waits no longer than SyncWait.
func TestUnreachableAtStart(t *testing.T) {
	began := time.Now()
	s, err := Start(t.Context(), Config{Client: unreachableClient(t), Namespace: "ns", Service: "cass", SyncWait: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if waited := time.Since(began); waited > 10*time.Second {
		t.Errorf("Start waited %v with SyncWait 1s", waited)
	}
	st := s.Status()
	if st.Synced || st.Err == nil || !strings.Contains(st.Err.Error(), "connection refused") || st.Since.IsZero() || st.Failures == 0 {
		t.Errorf("Status = %+v, want not synced, failing with connection refused", st)
	}
	_, err = s.Peers(t.Context(), oneNode(t, "10.0.0.1"))
	if !errors.Is(err, ErrNotSynced) || !strings.Contains(err.Error(), "connection refused") || !strings.Contains(err.Error(), "ns/cass") {
		t.Errorf("Peers = %v, want ErrNotSynced naming the service and the cause", err)
	}
	want := `
# HELP sstf_kube_discovery_api_healthy 0 while the API server's lists or watches of EndpointSlices fail (the last peers listed stay in use).
# TYPE sstf_kube_discovery_api_healthy gauge
sstf_kube_discovery_api_healthy 0
# HELP sstf_kube_discovery_synced 1 once Kubernetes discovery listed the service's EndpointSlices; until then plans over the ring fail.
# TYPE sstf_kube_discovery_synced gauge
sstf_kube_discovery_synced 0
`
	if err := testutil.CollectAndCompare(s, strings.NewReader(want), "sstf_kube_discovery_synced", "sstf_kube_discovery_api_healthy"); err != nil {
		t.Error(err)
	}
}

// TestAPIServerGoesAway: after the first list, an API server that stops
// answering (its connections cut) shows in Status, Peers keeps the last
// map, and when it answers again the changes made meanwhile arrive.
func TestAPIServerGoesAway(t *testing.T) {
	admin := adminClient(t)
	ns := namespace(t, admin)
	api := admin.DiscoveryV1().EndpointSlices(ns)
	if _, err := api.Create(t.Context(), forService(slice("cass-a", "flight", 8815, "10.3.0.1"), "cass"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var p *proxy
	s := start(t, sourceClient(t, func(c *clientConfig) {
		u, err := url.Parse(c.server)
		if err != nil {
			t.Fatal(err)
		}
		p = newProxy(t, u.Host)
		c.server = "https://" + p.addr
	}), ns, "cass")
	follows(t, s, "listed through the proxy", 8815, "10.3.0.1")

	p.cut()
	eventually(t, "API server unreachable in Status", func() (bool, string) {
		st := s.Status()
		return st.Err != nil && !st.Since.IsZero(), fmt.Sprintf("%+v", st)
	})
	if got, err := s.Peers(t.Context(), oneNode(t, "10.3.0.1")); err != nil || len(got) != 1 {
		t.Errorf("Peers while unreachable = %v, %v; want the last map", got, err)
	}
	if got := s.Endpoints(); len(got) != 1 {
		t.Errorf("map while unreachable = %v, want the last one", got)
	}
	if _, err := api.Create(t.Context(), forService(slice("cass-b", "flight", 8815, "10.3.0.2"), "cass"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := p.listen(p.addr); err != nil {
		t.Fatalf("reopen the proxy: %v", err)
	}
	follows(t, s, "change made while unreachable", 8815, "10.3.0.1", "10.3.0.2")
	eventually(t, "healthy again", func() (bool, string) {
		st := s.Status()
		return st.Err == nil, fmt.Sprintf("%+v", st)
	})
}

// oneNode is a ring of one node at ip.
func oneNode(t *testing.T, ip string) *cluster.Ring {
	t.Helper()
	id := uuid.New()
	ring, err := cluster.NewRing(id, []cluster.Node{{HostID: id, Broadcast: netip.MustParseAddr(ip), Native: netip.AddrPortFrom(netip.MustParseAddr(ip), 9042), Tokens: []token.Token{1}}})
	if err != nil {
		t.Fatal(err)
	}
	return ring
}
