//go:build kubelet

package charttest

// The end-to-end tests of issue #26 run the chart on a real single-node
// Kubernetes: kube-harness run -node (tools/kube) starts etcd, the API
// server, the controller-manager, the scheduler, kube-proxy, CoreDNS,
// containerd and a kubelet, and gives these tests its kubeconfig and
// containerd socket. `make kube-e2e` builds the images and runs them.

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/chart/loader"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericclioptions"
)

// The node harness's environment (tools/kube/cmd/kube-harness).
const (
	envNode       = "SSTF_KUBE_NODE"
	envNodeIP     = "SSTF_KUBE_NODE_IP"
	envContainerd = "SSTF_KUBE_CONTAINERD"
)

// Images these tests run, built by `make image` and `make
// cassandra-image` into build/image, never pulled: the pods name them
// with imagePullPolicy Never.
const (
	serverImageRepo    = "sstable-flight" // the tarball's tag, docker.io/library/ once imported
	serverImageTag     = "latest"
	cassandraImageRepo = "localhost/sstf-cassandra"
	cassandraImageTag  = "5.0.9"
)

// node is the real node: the API server's clients and what the harness
// says of the node.
type node struct {
	*cluster
	kubeconfig string
	name, ip   string
	containerd string
}

// realNode connects to the node harness. These tests only build with the
// kubelet tag, which make kube-e2e gives them under kube-harness run
// -node: without its environment they fail, never skip.
func realNode(t *testing.T) *node {
	t.Helper()
	n := &node{kubeconfig: os.Getenv("SSTF_KUBECONFIG"), name: os.Getenv(envNode), ip: os.Getenv(envNodeIP), containerd: os.Getenv(envContainerd)}
	if n.kubeconfig == "" || n.name == "" || n.ip == "" || n.containerd == "" {
		t.Fatalf("the kubelet tests run under kube-harness run -node (make kube-e2e), which sets SSTF_KUBECONFIG, %s, %s and %s", envNode, envNodeIP, envContainerd)
	}
	n.cluster = connect(t)
	return n
}

// repoRoot is the repository's root, above the chart.
func repoRoot() string { return filepath.Join(ChartDir(), "..", "..") }

var (
	importOnce sync.Once
	importErr  error
)

// importImages imports the image tarballs of build/image into the node's
// containerd, once per test binary.
func (n *node) importImages(t *testing.T) {
	t.Helper()
	importOnce.Do(func() {
		for _, f := range []string{"sstable-flight.tar", "cassandra.tar"} {
			path := filepath.Join(repoRoot(), "build", "image", f)
			if _, err := os.Stat(path); err != nil {
				importErr = fmt.Errorf("image %s: %w (make image cassandra-image builds it)", path, err)
				return
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			out, err := exec.CommandContext(ctx, "ctr", "--address", n.containerd, "-n", "k8s.io", "images", "import", path).CombinedOutput()
			cancel()
			if err != nil {
				importErr = fmt.Errorf("import %s into the node's containerd: %w\n%s", path, err, out)
				return
			}
		}
	})
	if importErr != nil {
		t.Fatal(importErr)
	}
}

// helmConfig is the Helm SDK's configuration for ns on the node, logging
// into the test.
func (n *node) helmConfig(t *testing.T, ns string) *action.Configuration {
	t.Helper()
	flags := genericclioptions.NewConfigFlags(false)
	flags.KubeConfig = &n.kubeconfig
	flags.Namespace = &ns
	cfg := new(action.Configuration)
	if err := cfg.Init(flags, ns, "secret", func(format string, v ...any) {}); err != nil {
		t.Fatalf("helm: init for namespace %s: %v", ns, err)
	}
	return cfg
}

// install runs `helm install release` of the chart in ns with values,
// without waiting (the tests wait for what they need, with diagnostics),
// and uninstalls it at the end of the test.
func (n *node) install(t *testing.T, ns, release string, values map[string]any) {
	t.Helper()
	ch, err := loader.Load(ChartDir())
	if err != nil {
		t.Fatalf("load the chart: %v", err)
	}
	cfg := n.helmConfig(t, ns)
	in := action.NewInstall(cfg)
	in.ReleaseName = release
	in.Namespace = ns
	in.Timeout = 2 * time.Minute
	if _, err := in.Run(ch, values); err != nil {
		t.Fatalf("helm install %s in %s: %v", release, ns, err)
	}
	t.Cleanup(func() {
		un := action.NewUninstall(cfg)
		un.Timeout = 2 * time.Minute
		if _, err := un.Run(release); err != nil {
			t.Errorf("helm uninstall %s in %s: %v", release, ns, err)
		}
	})
}

// baseValues are the values every installation on the node takes: the
// images built here, never pulled, and requests that fit a two-core node
// running several Cassandras.
func baseValues() map[string]any {
	return map[string]any{
		"image": map[string]any{"repository": serverImageRepo, "tag": serverImageTag, "pullPolicy": "Never"},
		"server": map[string]any{
			"resources": map[string]any{"requests": map[string]any{"cpu": "50m", "memory": "128Mi"}, "limits": map[string]any{"memory": "512Mi"}},
			"logLevel":  "debug",
		},
	}
}

// waitPods waits until want pods matching selector in ns are Ready (every
// container), returning them; on timeout it fails with each pod's state,
// its containers' log tails and the namespace's events.
func (n *node) waitPods(t *testing.T, ns, selector string, want int, timeout time.Duration) []corev1.Pod {
	t.Helper()
	var pods []corev1.Pod
	err := poll(timeout, 2*time.Second, func(ctx context.Context) error {
		list, err := n.kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: selector})
		if err != nil {
			return err
		}
		pods = list.Items
		ready := 0
		for _, p := range pods {
			if p.DeletionTimestamp == nil && podReady(p) {
				ready++
			}
		}
		if ready != want || len(pods) != want {
			return fmt.Errorf("%d of %d pods ready, want %d", ready, len(pods), want)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("pods %s in %s: %v\n%s", selector, ns, err, n.diagnose(ns))
	}
	slices.SortFunc(pods, func(a, b corev1.Pod) int { return strings.Compare(a.Name, b.Name) })
	return pods
}

func podReady(p corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// diagnose describes ns for a failure: each pod's phase and containers,
// their logs' tails and the events.
func (n *node) diagnose(ns string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var b bytes.Buffer
	pods, err := n.kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		fmt.Fprintf(&b, "list pods: %v\n", err)
	} else {
		for _, p := range pods.Items {
			fmt.Fprintf(&b, "pod %s: %s ip %s\n", p.Name, p.Status.Phase, p.Status.PodIP)
			for _, c := range p.Status.Conditions {
				fmt.Fprintf(&b, "  condition %s=%s %s\n", c.Type, c.Status, c.Message)
			}
			for _, s := range append(p.Status.InitContainerStatuses, p.Status.ContainerStatuses...) {
				fmt.Fprintf(&b, "  container %s ready=%v restarts=%d state=%+v\n", s.Name, s.Ready, s.RestartCount, s.State)
				if s.RestartCount > 0 {
					fmt.Fprintf(&b, "  --- log tail of %s's previous run:\n%s\n", s.Name, n.logTail(ctx, ns, p.Name, s.Name, 20, true))
				}
				fmt.Fprintf(&b, "  --- log tail of %s:\n%s\n", s.Name, n.logTail(ctx, ns, p.Name, s.Name, 60, false))
			}
		}
	}
	events, err := n.kube.CoreV1().Events(ns).List(ctx, metav1.ListOptions{})
	if err == nil {
		for _, e := range events.Items {
			fmt.Fprintf(&b, "event %s %s/%s: %s %s\n", e.Type, e.InvolvedObject.Kind, e.InvolvedObject.Name, e.Reason, e.Message)
		}
	}
	return b.String()
}

// logTail is the last lines of a container's log, read through the API
// server from the kubelet.
func (n *node) logTail(ctx context.Context, ns, pod, container string, lines int64, previous bool) string {
	raw, err := n.kube.CoreV1().Pods(ns).GetLogs(pod, &corev1.PodLogOptions{Container: container, TailLines: &lines, Previous: previous}).DoRaw(ctx)
	if err != nil {
		return fmt.Sprintf("(logs: %v)", err)
	}
	return string(raw)
}

// hold keeps a failed test's cluster as it is for SSTF_KUBE_E2E_HOLD (a
// duration) before its clean-up, for a developer to look at it.
func hold(t *testing.T) {
	d, err := time.ParseDuration(os.Getenv("SSTF_KUBE_E2E_HOLD"))
	if err != nil || d <= 0 {
		return
	}
	t.Logf("holding the cluster for %v (SSTF_KUBE_E2E_HOLD), kubeconfig %s", d, os.Getenv("SSTF_KUBECONFIG"))
	time.Sleep(d)
}

// poll calls try every interval until it returns nil or timeout passes,
// each call bounded by its own context; the error is try's last.
func poll(timeout, interval time.Duration, try func(context.Context) error) error {
	deadline := time.Now().Add(timeout)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), min(30*time.Second, time.Until(deadline)+time.Second))
		err := try(ctx)
		cancel()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("after %v: %w", timeout, err)
		}
		time.Sleep(interval)
	}
}
