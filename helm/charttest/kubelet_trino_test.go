//go:build kubelet

package charttest

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sstable-flight/sstable-flight/internal/testkit/cassandratest"
	"github.com/sstable-flight/sstable-flight/loadgen/trinobench"
)

// What make kube-e2e gives the Trino check: Trino 476's install
// (deploy/local/install-trino.sh), the plugin (deploy/local/trino-build.sh)
// and a Java 24+ JDK (deploy/local/java25.sh).
const (
	envTrinoHome   = "SSTF_TRINO_HOME"
	envTrinoPlugin = "SSTF_TRINO_PLUGIN_DIR"
	envTrinoJava   = "SSTF_JAVA25_HOME"
)

// trinoCountEqualsCQL runs a real Trino on the host with our plugin and a
// catalog whose seeds are the servers in the pods (the Service's pod
// addresses), and checks count(*) of ks.kv equals CQL's.
func trinoCountEqualsCQL(t *testing.T, uris []string, ks string, want int) {
	spec := trinobench.TrinoSpec{
		Home: os.Getenv(envTrinoHome), JavaHome: os.Getenv(envTrinoJava), PluginDir: os.Getenv(envTrinoPlugin),
		WorkDir: t.TempDir(), Heap: "2G", FlightURI: strings.Join(uris, ","),
	}
	// Trino's start-up is hundreds of lines: kept, and shown on failure.
	logf, err := os.Create(filepath.Join(t.TempDir(), "trino.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	spec.Log = logf
	defer func() {
		if t.Failed() {
			b, _ := os.ReadFile(logf.Name())
			t.Logf("trino's output:\n%s", b[max(0, len(b)-8000):])
		}
	}()
	if spec.Home == "" || spec.JavaHome == "" || spec.PluginDir == "" {
		t.Fatalf("the Trino check needs %s, %s and %s (make kube-e2e sets them)", envTrinoHome, envTrinoPlugin, envTrinoJava)
	}
	// The cassandra catalog the spec also writes names the harness's
	// node on the host (make kube-e2e runs under cassandra-harness), not
	// the pods: only ours is read here.
	port, err := strconv.Atoi(os.Getenv(cassandratest.EnvCQL))
	if err != nil {
		t.Fatalf("%s: %v (make kube-e2e runs under cassandra-harness run)", cassandratest.EnvCQL, err)
	}
	spec.CQLPort = port
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	tr, err := trinobench.StartTrino(ctx, spec)
	if err != nil {
		t.Fatalf("start trino: %v", err)
	}
	defer func() {
		if err := tr.Stop(); err != nil {
			t.Error(err)
		}
	}()
	c := &trinobench.Client{Base: tr.Base, HTTP: &http.Client{Timeout: time.Minute}}
	q := fmt.Sprintf("SELECT count(*) FROM %s.%s.kv", trinobench.OursCatalog, ks)
	ans, err := c.Rows(ctx, q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	if len(ans.Rows) != 1 || len(ans.Rows[0]) != 1 || fmt.Sprint(ans.Rows[0][0]) != strconv.Itoa(want) {
		t.Fatalf("%s through %v: %v, CQL counts %d", q, uris, ans.Rows, want)
	}
	t.Logf("%s through the pods' servers: %v", q, ans.Rows[0][0])
}
