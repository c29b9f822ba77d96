//go:build kubelet

package charttest

import (
	"context"
	"fmt"
	"net"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/sstable-flight/sstable-flight/internal/testkit/cassandratest"
)

// TestKubeletDaemonSet installs the chart in daemonset mode over the
// Cassandra node the harness runs on the host (make kube-e2e runs under
// cassandra-harness run): the pod, on the host's network, reads the
// node's directory through a hostPath in live mode (the harness's files
// are root's, so no hard links as another uid) and dials its CQL on
// loopback (cassandra.host); a scan of a table written through CQL and
// flushed equals SELECT *.
func TestKubeletDaemonSet(t *testing.T) {
	t.Parallel()
	n := realNode(t)
	n.importImages(t)
	dir := os.Getenv(cassandratest.EnvDir)
	if dir == "" {
		t.Fatalf("no Cassandra node on the host: make kube-e2e runs under cassandra-harness run, which sets %s", cassandratest.EnvDir)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	host, err := cassandratest.AttachDir(ctx, dir, false)
	if err != nil {
		t.Fatal(err)
	}
	const ks, rows = "kube_e2e_ds", 1000
	s := host.FreshKeyspace(t, ks)
	want := writeKV(t, s, ks, "{'class': 'SimpleStrategy', 'replication_factor': 1}", rows)
	if err := host.Flush(ctx, ks); err != nil {
		t.Fatalf("flush %s: %v", ks, err)
	}

	// The harness makes the node's directory 0700 (a temporary
	// directory); a host's /var/lib/cassandra is 0755, its files 0644,
	// which live mode's uid 65532 reads. Opened as on a host for the
	// test, closed again after.
	fi, err := os.Stat(host.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(host.Dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(host.Dir, fi.Mode().Perm()) })

	// On the host's network the server's ports are the host's: free ones.
	flight, metrics := freePort(t), freePort(t)
	ns := n.namespace(t, "sstf-ds", "privileged")
	values := baseValues()
	values["mode"] = "daemonset"
	values["snapshotMode"] = "live"
	values["daemonset"] = map[string]any{"hostPath": host.Dir}
	values["cassandra"] = map[string]any{"host": "127.0.0.1", "cqlPort": host.CQLPort}
	// Discovery maps the Service's endpoints to ring nodes by address: a
	// node on loopback announces 127.0.0.1, which no endpoint has
	// (docs/kubernetes.md §8). One node needs no peers.
	values["discovery"] = map[string]any{"enabled": false}
	values["server"].(map[string]any)["flightPort"] = flight
	values["server"].(map[string]any)["metricsPort"] = metrics
	n.install(t, ns, "sfd", values)
	pods := n.waitPods(t, ns, "app.kubernetes.io/instance=sfd", 1, 3*time.Minute)
	if pods[0].Status.PodIP != n.ip {
		t.Errorf("the pod's IP is %s, want the node's %s (host network)", pods[0].Status.PodIP, n.ip)
	}
	uri := flightURI(n.ip, flight)
	n.waitNodeInfo(t, ns, uri, 2*time.Minute, func(ni *nodeInfo) error {
		if !ni.Cassandra.Up {
			return fmt.Errorf("cassandra down: %s: %s", ni.Cassandra.Reason, ni.Cassandra.Error)
		}
		return nil
	})
	n.waitScan(t, ns, uri, ks, want, []string{uri}, 2*time.Minute)
}

// freePort is a TCP port free on every address of the host now.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", ":0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	_, p, _ := net.SplitHostPort(l.Addr().String())
	port, _ := strconv.Atoi(p)
	return port
}
