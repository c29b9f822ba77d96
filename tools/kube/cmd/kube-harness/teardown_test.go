package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"
)

// envHarness names the kube-harness binary TestNodeTeardown drives.
const envHarness = "SSTF_KUBE_HARNESS"

// TestNodeTeardown starts real nodes with the kube-harness binary,
// gives them pods with what the kubelet and containerd mount and the
// CNI plugins write (a projected token, an emptyDir, a subPath bind
// mount, a hostPort's iptables rules), stops them, and compares the
// machine with a snapshot taken before: processes, mounts, cgroups,
// network namespaces, links, routes, iptables and nftables rules,
// sysctls and the host paths the node's programs create. Once with
// `start` and `stop` (the kubelet tears the pods down), once after a
// crash: `run` is killed with the kubelet and containerd, and `stop`
// cleans up from the directory alone.
func TestNodeTeardown(t *testing.T) {
	harness := os.Getenv(envHarness)
	if harness == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not set: CI must run this with the kube-harness binary (make kube-tools)", envHarness)
		}
		t.Skipf("%s is not set: give it build/kube/bin/kube-harness", envHarness)
	}
	if os.Getenv(envNode) != "" {
		t.Fatalf("%s is set: this test starts its own nodes and must run outside one", envNode)
	}
	for _, crash := range []bool{false, true} {
		name := map[bool]string{false: "stop", true: "crash then stop"}[crash]
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			before := snapshot(t, dir, filepath.Dir(harness))
			var run *exec.Cmd
			if crash {
				run = exec.Command(harness, "run", "-node", "-dir", dir, "--", "sleep", "3600")
				// Its own process group, to kill it with its command (the
				// node's processes have sessions of their own).
				run.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
				if err := run.Start(); err != nil {
					t.Fatal(err)
				}
				kill := func() { _ = syscall.Kill(-run.Process.Pid, syscall.SIGKILL); _ = run.Wait() }
				t.Cleanup(kill)
			} else if out, err := exec.Command(harness, "start", "-node", "-dir", dir).CombinedOutput(); err != nil {
				t.Fatalf("start: %v\n%s", err, out)
			}
			stopped := false
			t.Cleanup(func() {
				if !stopped {
					_ = exec.Command(harness, "stop", "-dir", dir).Run()
				}
			})
			ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
			defer cancel()
			cs := nodeClient(t, ctx, dir)
			workload(t, ctx, cs)
			// What stop must undo is there: without it, an equal snapshot
			// after stop would prove nothing.
			during := snapshot(t, dir, filepath.Dir(harness))
			for _, part := range []string{"mounts", "iptables-save", "links", "routes", "cgroups", "processes", "sysctls", "paths"} {
				if strings.Join(during[part], "\n") == strings.Join(before[part], "\n") {
					t.Fatalf("a running node left %s as before start: the snapshot does not see the node", part)
				}
			}
			if crash {
				// The harness dies, then the kubelet and containerd: no
				// pod is deleted, no sandbox torn down.
				_ = syscall.Kill(-run.Process.Pid, syscall.SIGKILL)
				_ = run.Wait()
				for _, name := range []string{kubeletName, containerdName} {
					if pid, ok, _ := runningPid(dir, name); ok {
						_ = syscall.Kill(pid, syscall.SIGKILL)
					}
				}
			}
			out, err := exec.Command(harness, "stop", "-dir", dir).CombinedOutput()
			stopped = true
			if err != nil {
				t.Fatalf("stop: %v\n%s", err, out)
			}
			// With the kubelet up, it deleted the pods itself.
			if !crash && strings.Contains(string(out), "by force") {
				t.Fatalf("stop of a running node cleaned up by force:\n%s", out)
			}
			if _, err := os.Stat(statePath(dir)); err == nil {
				t.Fatalf("stop succeeded but left %s", statePath(dir))
			}
			after := snapshot(t, dir, filepath.Dir(harness))
			compareSnapshots(t, before, after)
		})
	}
}

// nodeClient waits for the node in dir to be Ready (start has waited
// already; run's kubeconfig appears before) and returns an admin client.
func nodeClient(t *testing.T, ctx context.Context, dir string) kubernetes.Interface {
	t.Helper()
	var cs kubernetes.Interface
	waitFor(t, ctx, "the node in "+dir+" Ready", func() error {
		if _, err := os.Stat(kubeconfigPath(dir)); err != nil {
			return err
		}
		cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfigPath(dir))
		if err != nil {
			return err
		}
		c, err := kubernetes.NewForConfig(cfg)
		if err != nil {
			return err
		}
		n, err := c.CoreV1().Nodes().Get(ctx, nodeName, metav1.GetOptions{})
		if err != nil {
			return err
		}
		for _, cond := range n.Status.Conditions {
			if cond.Type == corev1.NodeReady && cond.Status == corev1.ConditionTrue {
				// The pods need the default ServiceAccount too.
				if _, err := c.CoreV1().ServiceAccounts("default").Get(ctx, "default", metav1.GetOptions{}); err != nil {
					return err
				}
				cs = c
				return nil
			}
		}
		return fmt.Errorf("not Ready")
	})
	return cs
}

// workload runs two pods of the pause image that leave everything the
// node can leave: the projected service-account token (a tmpfs), an
// emptyDir mounted whole and by subPath (a bind mount under the
// kubelet's directory), and a hostPort (the portmap plugin's rules).
func workload(t *testing.T, ctx context.Context, cs kubernetes.Interface) {
	t.Helper()
	for i, name := range []string{"teardown-a", "teardown-b"} {
		pod := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: corev1.PodSpec{
				TerminationGracePeriodSeconds: ptr.To(int64(1)),
				Volumes:                       []corev1.Volume{{Name: "scratch", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}},
				Containers: []corev1.Container{{
					Name:            "pause",
					Image:           pauseImageRef,
					ImagePullPolicy: corev1.PullNever,
					Ports:           []corev1.ContainerPort{{ContainerPort: 8080, HostPort: int32(18080 + i)}},
					VolumeMounts: []corev1.VolumeMount{
						{Name: "scratch", MountPath: "/scratch"},
						{Name: "scratch", MountPath: "/sub", SubPath: "sub"},
					},
				}},
			},
		}
		if _, err := cs.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"teardown-a", "teardown-b"} {
		waitPod(t, ctx, cs, "default", name, false)
	}
}

// machine is what a snapshot records, each part as sorted lines.
type machine map[string][]string

// snapshot records the machine's state that a node could change. The
// node's processes are those that name its directory dir, run a binary
// of bin (the harness's directory) or are its containers' (pause,
// kube-probe).
func snapshot(t *testing.T, dir, bin string) machine {
	t.Helper()
	m := machine{}
	lines := func(s string) []string {
		var out []string
		for _, l := range strings.Split(s, "\n") {
			if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
				out = append(out, l)
			}
		}
		sort.Strings(out)
		return out
	}
	run := func(part string, name string, args ...string) {
		out, err := command(name, args...)
		if err != nil {
			t.Fatal(err)
		}
		m[part] = lines(out)
	}
	// Counters change by themselves; the rules are what matters.
	counters := regexp.MustCompile(`\[\d+:\d+\]`)
	for _, save := range []string{"iptables-save", "ip6tables-save"} {
		out, err := command(save)
		if err != nil {
			t.Fatal(err)
		}
		m[save] = lines(counters.ReplaceAllString(out, ""))
	}
	nftCounters := regexp.MustCompile(`counter packets \d+ bytes \d+`)
	out, err := command("nft", "list", "ruleset")
	if err != nil {
		t.Fatal(err)
	}
	m["nft"] = lines(nftCounters.ReplaceAllString(out, "counter"))
	run("links", "ip", "-o", "link", "show")
	m["links"] = firstFields(m["links"], 2)
	run("routes", "ip", "route", "show", "table", "all")
	run("rules", "ip", "rule", "show")
	mounts, err := readMounts()
	if err != nil {
		t.Fatal(err)
	}
	for _, mt := range mounts {
		m["mounts"] = append(m["mounts"], mt.point+" "+mt.fstype)
	}
	sort.Strings(m["mounts"])
	roots, err := cgroupMounts()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range roots {
		entries, _ := os.ReadDir(r)
		for _, e := range entries {
			// Only what a node would make: other programs on this machine
			// (a runc of another test) come and go.
			if e.IsDir() && regexp.MustCompile(`kube|pod|containerd|k8s`).MatchString(e.Name()) {
				m["cgroups"] = append(m["cgroups"], filepath.Join(r, e.Name()))
			}
		}
	}
	sort.Strings(m["cgroups"])
	for _, pid := range findProcs(func(exe string, args []string) bool {
		// A container's binary, as the host sees it, is at its path in
		// the image.
		if exe == "/pause" || exe == "/kube-probe" || filepath.Dir(exe) == bin {
			return true
		}
		return strings.Contains(strings.Join(args, " "), dir)
	}) {
		cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		m["processes"] = append(m["processes"], fmt.Sprintf("%d %s", pid, strings.ReplaceAll(string(cmdline), "\x00", " ")))
	}
	for _, p := range createdPaths {
		if _, err := os.Lstat(p); err == nil {
			m["paths"] = append(m["paths"], p)
		}
	}
	if entries, err := os.ReadDir("/run/netns"); err == nil {
		for _, e := range entries {
			m["netns"] = append(m["netns"], e.Name())
		}
	}
	m["sysctls"] = sysctls(t)
	return m
}

func firstFields(ls []string, n int) []string {
	var out []string
	for _, l := range ls {
		f := strings.Fields(l)
		if len(f) >= n {
			out = append(out, strings.Join(f[:n], " "))
		}
	}
	sort.Strings(out)
	return out
}

// volatileSysctl matches the sysctls that change by themselves.
var volatileSysctl = regexp.MustCompile(`^(kernel/random/|kernel/ns_last_pid|kernel/pty/nr|kernel/tainted|net/netfilter/nf_conntrack_count|vm/stat_refresh|kernel/sched_domain/|kernel/perf_event_max_sample_rate|net/ipv4/tcp_mem|fs/)`)

// sysctls reads every sysctl under kernel, vm and the network's
// global (not per-interface) settings.
func sysctls(t *testing.T) []string {
	t.Helper()
	var out []string
	perIface := regexp.MustCompile(`^net/ipv[46]/(conf|neigh)/([^/]+)/`)
	for _, top := range []string{"kernel", "vm", "net/ipv4", "net/ipv6", "net/bridge", "net/netfilter", "net/core"} {
		_ = filepath.WalkDir(filepath.Join("/proc/sys", top), func(p string, e os.DirEntry, err error) error {
			if err != nil || e.IsDir() {
				return nil
			}
			key := strings.TrimPrefix(p, "/proc/sys/")
			if volatileSysctl.MatchString(key) {
				return nil
			}
			if m := perIface.FindStringSubmatch(key); m != nil && m[2] != "all" && m[2] != "default" {
				return nil
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return nil
			}
			out = append(out, key+" = "+strings.Join(strings.Fields(string(b)), " "))
			return nil
		})
	}
	sort.Strings(out)
	return out
}

// compareSnapshots fails with every line added or removed, per part.
func compareSnapshots(t *testing.T, before, after machine) {
	t.Helper()
	parts := map[string]bool{}
	for k := range before {
		parts[k] = true
	}
	for k := range after {
		parts[k] = true
	}
	var diffs []string
	for part := range parts {
		was := map[string]int{}
		for _, l := range before[part] {
			was[l]++
		}
		for _, l := range after[part] {
			if was[l] > 0 {
				was[l]--
				continue
			}
			diffs = append(diffs, fmt.Sprintf("%s: + %s", part, l))
		}
		for l, n := range was {
			for ; n > 0; n-- {
				diffs = append(diffs, fmt.Sprintf("%s: - %s", part, l))
			}
		}
	}
	sort.Strings(diffs)
	if len(diffs) > 0 {
		t.Fatalf("the machine after stop differs from before start:\n%s", strings.Join(diffs, "\n"))
	}
}
