package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/sstable-flight/sstable-flight/tools/kube/internal/binimage"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/tools/remotecommand"
	"k8s.io/utils/ptr"
)

// probeImage is the test image: kube-probe alone.
const probeImage = "sstf.local/kube-probe:1"

// inNode returns the environment `kube-harness run -node` gives, or
// skips: under CI=true a missing node fails, so CI cannot pass by
// skipping.
func inNode(t *testing.T) (cs *kubernetes.Clientset, cfg *rest.Config) {
	t.Helper()
	for _, k := range []string{envKubeconfig, envNode, envNodeIP, envContainerd} {
		if os.Getenv(k) == "" {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s is not set: CI must run this inside `kube-harness run -node`", k)
			}
			t.Skipf("%s is not set: run inside `kube-harness run -node -- go test -run TestNode`", k)
		}
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", os.Getenv(envKubeconfig))
	if err != nil {
		t.Fatal(err)
	}
	cs, err = kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return cs, cfg
}

// buildProbeImage builds kube-probe statically, packs it and imports
// it into the node's containerd.
func buildProbeImage(t *testing.T, ctx context.Context) {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "kube-probe")
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w", "-o", bin, "../kube-probe")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build kube-probe: %v\n%s", err, out)
	}
	tar := filepath.Join(dir, "kube-probe.tar")
	if err := binimage.Write(tar, binimage.Spec{Ref: probeImage, Binaries: []string{bin}, Entrypoint: []string{"/kube-probe"}}); err != nil {
		t.Fatal(err)
	}
	if err := importImages(ctx, os.Getenv(envContainerd), tar); err != nil {
		t.Fatal(err)
	}
}

// TestNode runs pods on the real node and checks, from inside them,
// what the chart's end-to-end tests rely on: a pod on our pause sandbox
// gets an address on the bridge; it reaches the API server through the
// kubernetes Service's ClusterIP and DNS name, verifying the serving
// certificate with its service account's CA; CoreDNS resolves Services,
// pods' A records,
// a StatefulSet pod's hostname through a headless Service even while
// the pod is not ready, and nothing outside the cluster; a pod has no
// default route and cannot reach an address off the bridge; logs and
// exec work through the API server; a ClusterIP Service of ours
// answers from the host and from a pod (hairpin); a DaemonSet runs; the
// controller-manager binds a static PV to its claim.
func TestNode(t *testing.T) {
	cs, cfg := inNode(t)
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	buildProbeImage(t, ctx)
	ns := fmt.Sprintf("node-test-%d", time.Now().UnixNano()%1e6)
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cs.CoreV1().Namespaces().Delete(context.Background(), ns, metav1.DeleteOptions{})
	})
	waitFor(t, ctx, "the default ServiceAccount of "+ns, func() error {
		_, err := cs.CoreV1().ServiceAccounts(ns).Get(ctx, "default", metav1.GetOptions{})
		return err
	})
	labels := map[string]string{"app": "probe"}
	pod, err := cs.CoreV1().Pods(ns).Create(ctx, &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "probe", Labels: labels},
		Spec:       probeSpec(),
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pod = waitPod(t, ctx, cs, ns, pod.Name, true)
	_, subnet, _ := net.ParseCIDR(podSubnet)
	if ip := net.ParseIP(pod.Status.PodIP); ip == nil || !subnet.Contains(ip) || pod.Status.PodIP == nodeIP {
		t.Fatalf("pod IP %q is not a pod address on the bridge (%s)", pod.Status.PodIP, podSubnet)
	}
	if pod.Status.HostIP != nodeIP {
		t.Fatalf("pod's host IP %q, want the node's %s", pod.Status.HostIP, nodeIP)
	}

	t.Run("sandbox is our pause image", func(t *testing.T) {
		out, err := ctr(ctx, os.Getenv(envContainerd), "-n", "k8s.io", "containers", "ls")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out, pauseImageRef) {
			t.Fatalf("no container of %s in containerd:\n%s", pauseImageRef, out)
		}
	})
	t.Run("logs through the API server", func(t *testing.T) {
		b, err := cs.CoreV1().Pods(ns).GetLogs(pod.Name, &corev1.PodLogOptions{}).DoRaw(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), "serving on [::]:8080 as probe") {
			t.Fatalf("logs %q lack the probe's first line", b)
		}
	})
	run := func(t *testing.T, pod string, args ...string) string {
		t.Helper()
		out, err := execIn(ctx, cs, cfg, ns, pod, append([]string{"/kube-probe"}, args...))
		if err != nil {
			t.Fatalf("exec %v in %s: %v\n%s", args, pod, err, out)
		}
		return out
	}
	const sa = "/var/run/secrets/kubernetes.io/serviceaccount/"
	t.Run("API server through the kubernetes Service", func(t *testing.T) {
		for _, host := range []string{nodeServiceIP, "kubernetes.default.svc." + clusterDomain, "kubernetes.default"} {
			out := run(t, "probe", "get", "-ca", sa+"ca.crt", "-token", sa+"token", "https://"+host+"/version")
			if !strings.HasPrefix(out, "200 OK") || !strings.Contains(out, `"gitVersion": "v1.37.2"`) {
				t.Fatalf("GET https://%s/version from a pod: %s", host, out)
			}
		}
	})
	t.Run("resolv.conf names only the cluster DNS", func(t *testing.T) {
		out := run(t, "probe", "cat", "/etc/resolv.conf")
		var servers []string
		for _, line := range strings.Split(out, "\n") {
			if f := strings.Fields(line); len(f) == 2 && f[0] == "nameserver" {
				servers = append(servers, f[1])
			}
		}
		if len(servers) != 1 || servers[0] != nodeIP {
			t.Fatalf("name servers %v, want [%s]:\n%s", servers, nodeIP, out)
		}
	})
	t.Run("no default route, nothing off the bridge", func(t *testing.T) {
		routes := run(t, "probe", "cat", "/proc/net/route")
		// Iface Destination Gateway Flags ... Mask: hex, little-endian.
		var dests []string
		for _, line := range strings.Split(routes, "\n")[1:] {
			f := strings.Fields(line)
			if len(f) < 8 {
				continue
			}
			if f[1] == "00000000" {
				t.Fatalf("the pod has a default route:\n%s", routes)
			}
			dests = append(dests, f[1]+"/"+f[7])
		}
		// 10.88.0.0/24 on the link and 10.96.0.0/16 through the node.
		want := []string{"0000580A/00FFFFFF", "0000600A/0000FFFF"}
		sort.Strings(dests)
		if strings.Join(dests, " ") != strings.Join(want, " ") {
			t.Fatalf("routes %v, want %v:\n%s", dests, want, routes)
		}
		// An address beyond the machine and the uplink's own: no route.
		for _, addr := range []string{"192.0.2.1:80", "1.1.1.1:443"} {
			if out := run(t, "probe", "dial", addr); !strings.Contains(out, "network is unreachable") {
				t.Fatalf("dial %s from a pod: %q, want network is unreachable", addr, out)
			}
		}
	})
	t.Run("a pod's A record", func(t *testing.T) {
		name := strings.ReplaceAll(pod.Status.PodIP, ".", "-") + "." + ns + ".pod." + clusterDomain
		addrs, err := lookupAt(ctx, nodeIP, name)
		if err != nil || len(addrs) != 1 || addrs[0] != pod.Status.PodIP {
			t.Fatalf("%s: %v %v, want [%s]", name, addrs, err, pod.Status.PodIP)
		}
	})
	t.Run("CoreDNS answers nothing outside the cluster", func(t *testing.T) {
		if _, err := lookupAt(ctx, nodeIP, "example.com"); err == nil {
			t.Fatal("CoreDNS resolved example.com")
		}
		// The resolver's own error, from inside the pod: the exec worked
		// and the lookup failed.
		out, err := execIn(ctx, cs, cfg, ns, "probe", []string{"/kube-probe", "lookup", "example.com"})
		if err == nil || !strings.Contains(out, "lookup example.com") {
			t.Fatalf("a pod looking up example.com: %v: %s", err, out)
		}
	})

	// A ClusterIP Service of the probe pod, answering from the host (the
	// OUTPUT DNAT) and from the pod itself (hairpin).
	svc, err := cs.CoreV1().Services(ns).Create(ctx, &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "probe"},
		Spec: corev1.ServiceSpec{
			Selector: labels,
			Ports:    []corev1.ServicePort{{Port: 80, TargetPort: intstr.FromInt32(8080)}},
		},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Run("ClusterIP Service", func(t *testing.T) {
		waitFor(t, ctx, "the probe Service's EndpointSlice", func() error {
			slices, err := cs.DiscoveryV1().EndpointSlices(ns).List(ctx, metav1.ListOptions{LabelSelector: discoveryv1.LabelServiceName + "=probe"})
			if err != nil {
				return err
			}
			for _, s := range slices.Items {
				for _, e := range s.Endpoints {
					if len(e.Addresses) > 0 && e.Addresses[0] == pod.Status.PodIP {
						return nil
					}
				}
			}
			return fmt.Errorf("no endpoint %s yet", pod.Status.PodIP)
		})
		url := "http://" + svc.Spec.ClusterIP + "/"
		waitFor(t, ctx, "GET "+url+" from the host", func() error {
			resp, err := (&http.Client{Timeout: 3 * time.Second}).Get(url)
			if err != nil {
				return err
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			if !strings.HasPrefix(string(b), "ok from probe") {
				return fmt.Errorf("answered %q", b)
			}
			return nil
		})
		out := run(t, "probe", "get", "http://probe."+ns+".svc."+clusterDomain+"/")
		if !strings.Contains(out, "ok from probe") {
			t.Fatalf("the pod through its own Service: %s", out)
		}
	})

	// A StatefulSet under a headless Service that publishes not-ready
	// addresses, its pod never ready: Cassandra's seeds resolve each
	// other this way before any is ready.
	t.Run("StatefulSet hostname through a headless Service", func(t *testing.T) {
		wl := map[string]string{"app": "web"}
		if _, err := cs.CoreV1().Services(ns).Create(ctx, &corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Name: "web"},
			Spec: corev1.ServiceSpec{
				ClusterIP:                corev1.ClusterIPNone,
				Selector:                 wl,
				PublishNotReadyAddresses: true,
				Ports:                    []corev1.ServicePort{{Port: 8080}},
			},
		}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		spec := probeSpec()
		spec.Containers[0].ReadinessProbe.HTTPGet.Port = intstr.FromInt32(9) // nothing listens: never ready
		if _, err := cs.AppsV1().StatefulSets(ns).Create(ctx, &appsv1.StatefulSet{
			ObjectMeta: metav1.ObjectMeta{Name: "web"},
			Spec: appsv1.StatefulSetSpec{
				ServiceName: "web",
				Replicas:    ptr.To(int32(1)),
				Selector:    &metav1.LabelSelector{MatchLabels: wl},
				Template:    corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: wl}, Spec: spec},
			},
		}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		web := waitPod(t, ctx, cs, ns, "web-0", false)
		if web.Status.PodIP == "" {
			t.Fatal("web-0 has no IP")
		}
		for _, name := range []string{"web-0.web." + ns + ".svc." + clusterDomain, "web." + ns + ".svc." + clusterDomain} {
			waitFor(t, ctx, "CoreDNS resolving "+name, func() error {
				addrs, err := lookupAt(ctx, nodeIP, name)
				if err != nil {
					return err
				}
				if len(addrs) != 1 || addrs[0] != web.Status.PodIP {
					return fmt.Errorf("%s is %v, want [%s]", name, addrs, web.Status.PodIP)
				}
				return nil
			})
		}
		// From a pod, by the short names its search path completes.
		if out := run(t, "probe", "lookup", "web-0.web"); strings.TrimSpace(out) != web.Status.PodIP {
			t.Fatalf("web-0.web from a pod: %q, want %s", out, web.Status.PodIP)
		}
		if got := run(t, "web-0", "cat", "/etc/hostname"); strings.TrimSpace(got) != "web-0" {
			t.Fatalf("web-0's hostname %q", got)
		}
	})
	t.Run("DaemonSet", func(t *testing.T) {
		dl := map[string]string{"app": "daemon"}
		if _, err := cs.AppsV1().DaemonSets(ns).Create(ctx, &appsv1.DaemonSet{
			ObjectMeta: metav1.ObjectMeta{Name: "daemon"},
			Spec: appsv1.DaemonSetSpec{
				Selector: &metav1.LabelSelector{MatchLabels: dl},
				Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: dl}, Spec: probeSpec()},
			},
		}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		waitFor(t, ctx, "the DaemonSet's pod ready", func() error {
			ds, err := cs.AppsV1().DaemonSets(ns).Get(ctx, "daemon", metav1.GetOptions{})
			if err != nil {
				return err
			}
			if ds.Status.DesiredNumberScheduled != 1 || ds.Status.NumberReady != 1 {
				return fmt.Errorf("desired %d, ready %d", ds.Status.DesiredNumberScheduled, ds.Status.NumberReady)
			}
			return nil
		})
	})
	t.Run("static PV bound to its claim", func(t *testing.T) {
		class := ns + "-static"
		if _, err := cs.CoreV1().PersistentVolumes().Create(ctx, &corev1.PersistentVolume{
			ObjectMeta: metav1.ObjectMeta{Name: ns + "-pv"},
			Spec: corev1.PersistentVolumeSpec{
				StorageClassName:              class,
				Capacity:                      corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")},
				AccessModes:                   []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
				PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRetain,
				PersistentVolumeSource:        corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: t.TempDir()}},
			},
		}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			_ = cs.CoreV1().PersistentVolumes().Delete(context.Background(), ns+"-pv", metav1.DeleteOptions{})
		})
		if _, err := cs.CoreV1().PersistentVolumeClaims(ns).Create(ctx, &corev1.PersistentVolumeClaim{
			ObjectMeta: metav1.ObjectMeta{Name: "data"},
			Spec: corev1.PersistentVolumeClaimSpec{
				StorageClassName: &class,
				AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
				Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}},
			},
		}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		waitFor(t, ctx, "the claim Bound", func() error {
			pvc, err := cs.CoreV1().PersistentVolumeClaims(ns).Get(ctx, "data", metav1.GetOptions{})
			if err != nil {
				return err
			}
			if pvc.Status.Phase != corev1.ClaimBound || pvc.Spec.VolumeName != ns+"-pv" {
				return fmt.Errorf("phase %s, volume %q", pvc.Status.Phase, pvc.Spec.VolumeName)
			}
			return nil
		})
	})
}

// probeSpec is a pod of kube-probe serving on 8080, ready when it
// answers there.
func probeSpec() corev1.PodSpec {
	return corev1.PodSpec{
		TerminationGracePeriodSeconds: ptr.To(int64(2)),
		Containers: []corev1.Container{{
			Name:            "probe",
			Image:           probeImage,
			ImagePullPolicy: corev1.PullNever,
			Args:            []string{"serve", "-listen", ":8080"},
			ReadinessProbe: &corev1.Probe{
				ProbeHandler:  corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Port: intstr.FromInt32(8080)}},
				PeriodSeconds: 1,
			},
		}},
	}
}

// waitPod waits until the pod runs (and is Ready, if ready), failing at
// once if it fails.
func waitPod(t *testing.T, ctx context.Context, cs kubernetes.Interface, ns, name string, ready bool) *corev1.Pod {
	t.Helper()
	var pod *corev1.Pod
	waitFor(t, ctx, "pod "+name+" running", func() error {
		p, err := cs.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		pod = p
		if p.Status.Phase == corev1.PodFailed {
			t.Fatalf("pod %s failed: %+v", name, p.Status)
		}
		if p.Status.Phase != corev1.PodRunning {
			return fmt.Errorf("phase %s %+v", p.Status.Phase, p.Status.ContainerStatuses)
		}
		if ready {
			for _, c := range p.Status.Conditions {
				if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
					return nil
				}
			}
			return fmt.Errorf("not ready")
		}
		return nil
	})
	return pod
}

// waitFor polls check until it passes or ctx ends (then it fails t with
// check's last error).
func waitFor(t *testing.T, ctx context.Context, what string, check func() error) {
	t.Helper()
	for {
		err := check()
		if err == nil {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("wait for %s: %v", what, err)
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// execIn runs argv in the pod's first container through the API
// server's exec subresource (the kubelet's streaming server behind it)
// and returns its stdout followed by its stderr. Each stream has its own
// buffer: the executor copies them concurrently.
func execIn(ctx context.Context, cs kubernetes.Interface, cfg *rest.Config, ns, pod string, argv []string) (string, error) {
	req := cs.CoreV1().RESTClient().Post().Resource("pods").Namespace(ns).Name(pod).SubResource("exec").
		VersionedParams(&corev1.PodExecOptions{Command: argv, Stdout: true, Stderr: true}, scheme.ParameterCodec)
	ex, err := remotecommand.NewWebSocketExecutor(cfg, "GET", req.URL().String())
	if err != nil {
		return "", err
	}
	var stdout, stderr bytes.Buffer
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	err = ex.StreamWithContext(ctx, remotecommand.StreamOptions{Stdout: &stdout, Stderr: &stderr})
	return stdout.String() + stderr.String(), err
}
