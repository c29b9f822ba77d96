//go:build kubelet

package charttest

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// TestKubeletCassOperatorShape runs the pod cass-operator would make
// from a CassandraDatacenter carrying the chart's sidecar patch. The
// operator cannot run here (its module is not served, and its image
// is not built here), so the pod comes from the rules written out from
// its source (cassOperatorPod, cassoperator_rules_test.go) applied to a
// datacenter patched with the patch the installed chart prints, and only
// the operator's own images are replaced (cassOperatorRunnable): its
// management-API Cassandra by the image built here, its config init
// containers and log shipper left out. The chart is installed in sidecar
// mode for real (its Service, RBAC, ticket key, the ConfigMap with the
// patch). Our container comes first in the pod, so it starts before
// Cassandra; then each container is killed in turn so that each also
// starts while the other runs; after each start both end Ready, the
// server logged in with the datacenter's superuser Secret, and a scan
// equals SELECT *.
func TestKubeletCassOperatorShape(t *testing.T) {
	t.Parallel()
	n := realNode(t)
	n.importImages(t)
	// cass-operator's pods set no seccomp profile and drop no capability
	// (docs/kubernetes.md): baseline, not restricted.
	ns := n.namespace(t, "sstf-cop", "baseline")
	const class = "sstf-e2e-cop"
	n.hostPathVolumes(t, class, 1, 999, 999)
	// cass-operator's superuser Secret: <cluster>-superuser, keys
	// username and password; the operator creates the role through its
	// management API, here the test through CQL.
	user, password := n.readerSecret(t, ns, "demo-superuser")

	values := baseValues()
	values["mode"] = "sidecar"
	values["sidecar"] = map[string]any{"target": "cass-operator", "podSelector": sidecarSelector}
	values["cassandra"] = map[string]any{"auth": map[string]any{"existingSecret": "demo-superuser"}}
	n.install(t, ns, "sfc", values)

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	cm, err := n.kube.CoreV1().ConfigMaps(ns).Get(ctx, "sfc-sstable-flight-sidecar", metav1.GetOptions{})
	cancel()
	if err != nil {
		t.Fatalf("the installed chart's sidecar ConfigMap: %v", err)
	}
	dcMap := datacenter(t, dcStates[0], "")
	dcMap["metadata"].(map[string]any)["namespace"] = ns
	dc := decodeDC(t, patchDatacenter(t, cm.Data["cass-operator-patch.tmpl"], dcMap))
	labels, spec := cassOperatorPod(dc, "r1")
	checkOperatorPod(t, "cass-operator", spec)
	sts := cassOperatorRunnable(t, dc, labels, spec, class)
	ctx, cancel = context.WithTimeout(context.Background(), 30*time.Second)
	_, err = n.kube.AppsV1().StatefulSets(ns).Create(ctx, sts, metav1.CreateOptions{FieldManager: fieldManager})
	cancel()
	if err != nil {
		t.Fatalf("create the datacenter's StatefulSet: %v", err)
	}
	selector := "cassandra.datastax.com/cluster=demo,cassandra.datastax.com/datacenter=dc1"
	pods := n.waitPods(t, ns, selector, 1, cassandraWait)
	if got := containerNames(pods[0]); got[0] != serverName {
		t.Errorf("containers %v: want ours first, as the operator keeps the template's before its own", got)
	}
	ip := pods[0].Status.PodIP
	uri := flightURI(ip, flightPort)
	su := superSession(t, []string{ip}, 3*time.Minute)
	createRole(t, su, user, password)
	want := writeKV(t, su, "e2e_cop", "{'class': 'NetworkTopologyStrategy', 'dc1': 1}", 500)
	check := func(step string) {
		t.Helper()
		n.waitNodeInfo(t, ns, uri, 3*time.Minute, func(ni *nodeInfo) error {
			if !ni.Cassandra.Up {
				return fmt.Errorf("%s: cassandra down: %s: %s", step, ni.Cassandra.Reason, ni.Cassandra.Error)
			}
			return nil
		})
		n.waitScan(t, ns, uri, "e2e_cop", want, []string{uri}, 2*time.Minute)
	}
	check("first start, ours before Cassandra")

	// Cassandra starts again while the server runs, then the server
	// while Cassandra runs.
	for _, c := range []string{"cassandra", serverName} {
		n.killContainer(t, pods[0], c)
		pods = n.waitRestarted(t, ns, selector, pods[0], c, cassandraWait)
		if pods[0].Status.PodIP != ip {
			t.Fatalf("the pod's IP changed from %s to %s on a container restart", ip, pods[0].Status.PodIP)
		}
		check("after " + c + " restarted")
	}
}

// cassOperatorRunnable is the StatefulSet cass-operator makes for rack
// r1 (construct_statefulset.go: name <cluster>-<dc>-<rack>-sts, service
// <cluster>-<dc>-all-pods-service, the claim server-data), with the pod
// of the rules made runnable here. The differences, each because the
// operator's images cannot be had here:
//   - the cassandra container runs the image built here (the official
//     image's environment) instead of the management API's, so its
//     probes are TCP on CQL instead of the management API's HTTP;
//   - the init containers (server-config-init*) and the log shipper
//     (server-system-logger) are left out: the image writes its own
//     configuration;
//   - with the operator's read-only root filesystem, the image's config
//     directory is the etc-cassandra volume (the operator mounts it over
//     Cassandra's conf directory for the same reason).
func cassOperatorRunnable(t *testing.T, dc cassDC, labels map[string]string, spec corev1.PodSpec, class string) *appsv1.StatefulSet {
	t.Helper()
	spec.InitContainers = nil
	var containers []corev1.Container
	for _, c := range spec.Containers {
		switch c.Name {
		case "server-system-logger":
			continue
		case "cassandra":
			c.Image = cassandraImageRepo + ":" + cassandraImageTag
			c.ImagePullPolicy = corev1.PullNever
			cql := corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(9042)}}
			c.ReadinessProbe = &corev1.Probe{ProbeHandler: cql, PeriodSeconds: 5}
			c.StartupProbe = &corev1.Probe{ProbeHandler: cql, PeriodSeconds: 5, FailureThreshold: 120}
			c.Env = append(c.Env,
				corev1.EnvVar{Name: "POD_IP", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "status.podIP"}}},
				corev1.EnvVar{Name: "CASSANDRA_LISTEN_ADDRESS", Value: "$(POD_IP)"},
				corev1.EnvVar{Name: "CASSANDRA_CLUSTER_NAME", Value: dc.Spec.ClusterName},
				corev1.EnvVar{Name: "CASSANDRA_DC", Value: dc.Metadata.Name},
				corev1.EnvVar{Name: "CASSANDRA_RACK", Value: "r1"},
				corev1.EnvVar{Name: "CASSANDRA_ENDPOINT_SNITCH", Value: "GossipingPropertyFileSnitch"},
				corev1.EnvVar{Name: "MAX_HEAP_SIZE", Value: "512M"},
				corev1.EnvVar{Name: "HEAP_NEWSIZE", Value: "128M"},
			)
			c.Resources = corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("1Gi")},
				Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("1536Mi")},
			}
			if c.SecurityContext != nil && c.SecurityContext.ReadOnlyRootFilesystem != nil && *c.SecurityContext.ReadOnlyRootFilesystem {
				c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: "etc-cassandra", MountPath: "/etc/cassandra"})
			}
		}
		containers = append(containers, c)
	}
	spec.Containers = containers
	// The claim is the StatefulSet's template, not a pod volume.
	var volumes []corev1.Volume
	for _, v := range spec.Volumes {
		if v.Name != "server-data" {
			volumes = append(volumes, v)
		}
	}
	spec.Volumes = volumes
	selector := map[string]string{}
	for _, k := range []string{"cassandra.datastax.com/cluster", "cassandra.datastax.com/datacenter", "cassandra.datastax.com/rack"} {
		selector[k] = labels[k]
	}
	name := fmt.Sprintf("%s-%s-r1-sts", cleanLabelValue(dc.Spec.ClusterName), dc.Metadata.Name)
	return &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: selector},
		Spec: appsv1.StatefulSetSpec{
			Replicas:            new(int32(1)),
			ServiceName:         fmt.Sprintf("%s-%s-all-pods-service", cleanLabelValue(dc.Spec.ClusterName), dc.Metadata.Name),
			PodManagementPolicy: appsv1.ParallelPodManagement,
			Selector:            &metav1.LabelSelector{MatchLabels: selector},
			Template:            corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: spec},
			VolumeClaimTemplates: []corev1.PersistentVolumeClaim{{
				ObjectMeta: metav1.ObjectMeta{Name: "server-data"},
				Spec: corev1.PersistentVolumeClaimSpec{
					AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
					StorageClassName: new(class),
					Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}},
				},
			}},
		},
	}
}

func containerNames(p corev1.Pod) []string {
	var names []string
	for _, c := range p.Spec.Containers {
		names = append(names, c.Name)
	}
	return names
}

// killContainer kills a container's process through the node's
// containerd, as a crash would; the kubelet starts it again.
func (n *node) killContainer(t *testing.T, p corev1.Pod, container string) {
	t.Helper()
	for _, s := range p.Status.ContainerStatuses {
		if s.Name != container {
			continue
		}
		id := strings.TrimPrefix(s.ContainerID, "containerd://")
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		out, err := exec.CommandContext(ctx, "ctr", "--address", n.containerd, "-n", "k8s.io", "tasks", "kill", "--signal", "SIGKILL", id).CombinedOutput()
		if err != nil {
			t.Fatalf("kill container %s of %s: %v\n%s", container, p.Name, err, out)
		}
		return
	}
	t.Fatalf("pod %s has no container %s", p.Name, container)
}

// waitRestarted waits until container of the pod was restarted (its
// restart count grew) and the pod is Ready again.
func (n *node) waitRestarted(t *testing.T, ns, selector string, before corev1.Pod, container string, timeout time.Duration) []corev1.Pod {
	t.Helper()
	restarts := func(p corev1.Pod) int32 {
		for _, s := range p.Status.ContainerStatuses {
			if s.Name == container {
				return s.RestartCount
			}
		}
		return -1
	}
	was := restarts(before)
	err := poll(timeout, 2*time.Second, func(ctx context.Context) error {
		p, err := n.kube.CoreV1().Pods(before.Namespace).Get(ctx, before.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if restarts(*p) <= was || !podReady(*p) {
			return fmt.Errorf("container %s: %d restarts (was %d), pod ready %v", container, restarts(*p), was, podReady(*p))
		}
		return nil
	})
	if err != nil {
		t.Fatalf("restart of %s in %s: %v\n%s", container, before.Name, err, n.diagnose(ns))
	}
	return n.waitPods(t, ns, selector, 1, time.Minute)
}
