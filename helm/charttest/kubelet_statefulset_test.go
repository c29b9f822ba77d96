//go:build kubelet

package charttest

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// stsRelease is the statefulset test's release: pods sf-sstable-flight-0
// and -1.
const (
	stsRelease  = "sf"
	stsSelector = "app.kubernetes.io/instance=" + stsRelease
	stsRows     = 2000
)

// cassandraWait bounds a Cassandra pod's start: two JVMs starting at once
// on a shared two-core node take minutes.
const cassandraWait = 10 * time.Minute

// TestKubeletStatefulSet installs the chart in statefulset mode with two
// Cassandra pods of the image built here, PasswordAuthenticator on, and
// the server in each pod logging in with a role from a Secret. It checks
// what a user of that mode relies on: the pods become Ready; each server
// connects once its role exists (refused before, as "auth"); each finds
// the other through the EndpointSlices of the chart's Service, so that a
// scan through either plans over both and returns every row of a table
// written through CQL once, equal to SELECT * at ALL; a pod deleted and
// recreated by the StatefulSet comes back into the other's plans. Trino
// and Prometheus run against the same pods (kubelet_trino_test.go,
// kubelet_prometheus_test.go).
func TestKubeletStatefulSet(t *testing.T) {
	t.Parallel()
	n := realNode(t)
	n.importImages(t)
	ns := n.namespace(t, "sstf-sts", "restricted")
	const class = "sstf-e2e-sts"
	n.hostPathVolumes(t, class, 2, 999, 999)
	user, password := n.readerSecret(t, ns, "cql-reader")

	values := baseValues()
	values["mode"] = "statefulset"
	values["statefulset"] = map[string]any{
		"replicas":            2,
		"podManagementPolicy": "Parallel",
		"maxHeapSize":         "512M",
		"heapNewSize":         "128M",
		"cassandraImage":      map[string]any{"repository": cassandraImageRepo, "tag": cassandraImageTag, "pullPolicy": "Never"},
		"storage":             map[string]any{"size": "1Gi", "storageClassName": class},
		"resources":           map[string]any{"requests": map[string]any{"cpu": "100m", "memory": "1Gi"}, "limits": map[string]any{"memory": "1536Mi"}},
	}
	values["cassandra"] = map[string]any{"auth": map[string]any{"existingSecret": "cql-reader"}}
	n.install(t, ns, stsRelease, values)

	pods := n.waitPods(t, ns, stsSelector, 2, cassandraWait)
	// The server never exits for a Cassandra that is not up yet.
	n.noRestarts(t, pods, serverName)
	ips := podIPs(pods)
	uris := serverURIs(pods)
	t.Logf("pods ready: %v", ips)

	// The role does not exist yet: each server is up (Ready) and says why
	// it has no CQL connection.
	for _, uri := range uris {
		n.waitNodeInfo(t, ns, uri, 2*time.Minute, func(ni *nodeInfo) error {
			if ni.Cassandra.Up || ni.Cassandra.Reason != "auth" {
				return fmt.Errorf("cassandra up=%v reason %q, want down for auth", ni.Cassandra.Up, ni.Cassandra.Reason)
			}
			return nil
		})
	}
	su := superSession(t, ips, 3*time.Minute)
	createRole(t, su, user, password)
	for _, uri := range uris {
		n.waitNodeInfo(t, ns, uri, 2*time.Minute, func(ni *nodeInfo) error {
			if !ni.Cassandra.Up || ni.HostID == "" {
				return fmt.Errorf("cassandra up=%v (%s: %s), host_id %q", ni.Cassandra.Up, ni.Cassandra.Reason, ni.Cassandra.Error, ni.HostID)
			}
			return nil
		})
	}

	want := writeKV(t, su, "e2e", "{'class': 'NetworkTopologyStrategy', 'dc1': 2}", stsRows)
	for _, uri := range uris {
		n.waitScan(t, ns, uri, "e2e", want, uris, 2*time.Minute)
	}

	t.Run("trino", func(t *testing.T) { trinoCountEqualsCQL(t, uris, "e2e", len(want)) })
	t.Run("prometheus", func(t *testing.T) { n.prometheusScrapesPods(t, ns, stsRelease, values, pods) })

	// A pod deleted comes back (the StatefulSet makes it again, on the
	// same claim); the other server's plans follow it to its new address.
	old := pods[1]
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	err := n.kube.CoreV1().Pods(ns).Delete(ctx, old.Name, metav1.DeleteOptions{})
	cancel()
	if err != nil {
		t.Fatalf("delete pod %s: %v", old.Name, err)
	}
	err = poll(cassandraWait, 2*time.Second, func(ctx context.Context) error {
		p, err := n.kube.CoreV1().Pods(ns).Get(ctx, old.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if p.UID == old.UID || !podReady(*p) {
			return fmt.Errorf("pod %s not yet recreated and Ready", old.Name)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("%v\n%s", err, n.diagnose(ns))
	}
	pods = n.waitPods(t, ns, stsSelector, 2, time.Minute)
	uris = serverURIs(pods)
	t.Logf("pod %s recreated: ips %v", old.Name, podIPs(pods))
	for _, uri := range uris {
		n.waitScan(t, ns, uri, "e2e", want, uris, 3*time.Minute)
	}
}

// noRestarts fails for each pod whose container restarted, with the log
// of its run before.
func (n *node) noRestarts(t *testing.T, pods []corev1.Pod, container string) {
	t.Helper()
	for _, p := range pods {
		for _, s := range p.Status.ContainerStatuses {
			if s.Name == container && s.RestartCount > 0 {
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				t.Errorf("pod %s: container %s restarted %d times; its run before:\n%s", p.Name, container, s.RestartCount, n.logTail(ctx, p.Namespace, p.Name, container, 40, true))
				cancel()
			}
		}
	}
}

func podIPs(pods []corev1.Pod) []string {
	var ips []string
	for _, p := range pods {
		ips = append(ips, p.Status.PodIP)
	}
	return ips
}

func serverURIs(pods []corev1.Pod) []string {
	var uris []string
	for _, p := range pods {
		uris = append(uris, flightURI(p.Status.PodIP, flightPort))
	}
	return uris
}

// waitNodeInfo polls the server at uri until its node-info passes ok;
// a failure shows the namespace's pods, their logs and events.
func (n *node) waitNodeInfo(t *testing.T, ns, uri string, timeout time.Duration, ok func(*nodeInfo) error) {
	t.Helper()
	err := poll(timeout, 2*time.Second, func(ctx context.Context) error {
		ni, err := getNodeInfo(ctx, uri)
		if err != nil {
			return err
		}
		return ok(ni)
	})
	if err != nil {
		t.Fatalf("node-info of %s: %v\n%s", uri, err, n.diagnose(ns))
	}
}

// waitScan polls a scan of ks.kv through uri until it returns want, and
// then requires that the plan names only the servers at uris and, with
// several, each of them: each server found the others. Until the memtables are flushed (every
// second) and the snapshot window passed, a scan may return fewer rows;
// the last difference is the failure.
func (n *node) waitScan(t *testing.T, ns, uri, ks string, want map[int32]string, uris []string, timeout time.Duration) {
	t.Helper()
	var s *kvScan
	err := poll(timeout, 2*time.Second, func(ctx context.Context) error {
		var err error
		if s, err = scanKV(ctx, uri, ks, "kv"); err != nil {
			return err
		}
		if err := sameRows(s.Rows, want); err != nil {
			return err
		}
		got := slices.Sorted(maps.Keys(s.Locations))
		for _, l := range got {
			if !slices.Contains(uris, l) {
				return fmt.Errorf("the plan names %s, not one of the servers %v", l, uris)
			}
		}
		if len(uris) > 1 && len(got) != len(uris) {
			return fmt.Errorf("the plan's locations are %v, want every server of %v", got, uris)
		}
		return nil
	})
	if err != nil {
		hold(t)
		t.Fatalf("scan of %s.kv through %s: %v\n%s", ks, uri, err, n.diagnose(ns))
	}
	t.Logf("scan through %s: %d rows equal to CQL, %d endpoints, read at %v", uri, len(s.Rows), len(s.Endpoints), s.ReadAt)
}
