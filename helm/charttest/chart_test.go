package charttest

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	"github.com/sstable-flight/sstable-flight/cluster/kube"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
)

const (
	release     = "sstf"
	fullname    = "sstf-sstable-flight"
	flightPort  = 8815
	serverName  = "sstable-flight"
	liveUID     = 65532
	metricsPort = "sstf-metrics"
)

// AllowedCalls are the API calls the server's peer discovery makes
// (cluster/kube's Access: an informer's list and watch of EndpointSlices
// in its own namespace), as the policy rules the chart's Role must grant
// exactly: one rule per API group and resource, its verbs in order.
var AllowedCalls = accessRules(kube.Access)

// accessRules groups the discovery's calls into Role rules.
func accessRules(access []kube.Call) []rbacv1.PolicyRule {
	var rules []rbacv1.PolicyRule
	for _, a := range access {
		i := slices.IndexFunc(rules, func(r rbacv1.PolicyRule) bool {
			return r.APIGroups[0] == a.Group && r.Resources[0] == a.Resource
		})
		if i < 0 {
			rules = append(rules, rbacv1.PolicyRule{APIGroups: []string{a.Group}, Resources: []string{a.Resource}})
			i = len(rules) - 1
		}
		rules[i].Verbs = append(rules[i].Verbs, a.Verb)
	}
	return rules
}

func renderCase(t *testing.T, c Case) *Rendering {
	t.Helper()
	ch, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	r, err := Render(ch, c.Values)
	if err != nil {
		t.Fatalf("render %s: %v", c.Name, err)
	}
	return r
}

// pod is a pod spec the server runs in, with the labels it carries; in
// sidecar mode the pod the operator makes, operator naming it.
type pod struct {
	where    string
	labels   map[string]string
	spec     corev1.PodSpec
	operator string
}

func TestMatrix(t *testing.T) {
	for _, c := range Matrix {
		t.Run(c.Name, func(t *testing.T) {
			r := renderCase(t, c)
			checkLabels(t, r)
			pods := workloadPods(t, c, r)
			if len(pods) == 0 {
				t.Fatal("no pod spec holds the server")
			}
			for _, p := range pods {
				checkServerContainer(t, c, p)
				checkPodSecurity(t, c, p)
			}
			checkService(t, c, r, pods)
			checkRBAC(t, c, r, pods)
			checkMonitoring(t, c, r)
			checkNetworkPolicy(t, c, r, pods)
			checkDashboard(t, c, r)
			if !strings.Contains(r.Notes, fullname+"."+Namespace+".svc:8815") {
				t.Errorf("NOTES name no Flight URI of the Service:\n%s", r.Notes)
			}
		})
	}
}

// checkLabels asserts every object carries the recommended labels.
func checkLabels(t *testing.T, r *Rendering) {
	for _, o := range r.Objects {
		m, err := meta.Accessor(o.Obj)
		if err != nil {
			t.Fatalf("%s: %v", o.Template, err)
		}
		want := map[string]string{
			"app.kubernetes.io/name":       "sstable-flight",
			"app.kubernetes.io/instance":   release,
			"app.kubernetes.io/managed-by": "Helm",
			"app.kubernetes.io/part-of":    "sstable-flight",
			"app.kubernetes.io/version":    "0.1.0",
			"helm.sh/chart":                "sstable-flight-0.1.0",
		}
		for k, v := range want {
			if got := m.GetLabels()[k]; got != v {
				t.Errorf("%s %s: label %s = %q, want %q", o.Template, m.GetName(), k, got, v)
			}
		}
	}
}

// workloadPods gives the pod specs the server runs in: the StatefulSet's
// or DaemonSet's template, or in sidecar mode the operator fragment of
// the sidecar ConfigMap, with Cassandra's volume added as the operator
// provides it.
func workloadPods(t *testing.T, c Case, r *Rendering) []pod {
	var pods []pod
	kinds := map[string]int{}
	for _, o := range r.Objects {
		switch obj := o.Obj.(type) {
		case *appsv1.StatefulSet:
			kinds["StatefulSet"]++
			checkSelector(t, obj.Spec.Selector.MatchLabels, obj.Spec.Template.Labels, "StatefulSet")
			// The claim templates are the pods' volumes too.
			spec := *obj.Spec.Template.Spec.DeepCopy()
			for _, pvc := range obj.Spec.VolumeClaimTemplates {
				spec.Volumes = append(spec.Volumes, corev1.Volume{Name: pvc.Name, VolumeSource: corev1.VolumeSource{
					PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: pvc.Name}}})
			}
			pods = append(pods, pod{where: "StatefulSet", labels: obj.Spec.Template.Labels, spec: spec})
			checkCassandra(t, c, obj)
		case *appsv1.DaemonSet:
			kinds["DaemonSet"]++
			checkSelector(t, obj.Spec.Selector.MatchLabels, obj.Spec.Template.Labels, "DaemonSet")
			pods = append(pods, pod{where: "DaemonSet", labels: obj.Spec.Template.Labels, spec: obj.Spec.Template.Spec})
		case *appsv1.Deployment:
			t.Errorf("a Deployment: no mode installs one")
		case *corev1.ConfigMap:
			if obj.Name == fullname+"-sidecar" {
				kinds["sidecar"]++
				pods = append(pods, sidecarPods(t, c, obj)...)
			}
		}
	}
	want := map[string]map[string]int{
		"statefulset": {"StatefulSet": 1},
		"daemonset":   {"DaemonSet": 1},
		"sidecar":     {"sidecar": 1},
	}[c.Mode]
	if !reflect.DeepEqual(kinds, want) {
		t.Errorf("workloads %v, want %v", kinds, want)
	}
	return pods
}

func checkSelector(t *testing.T, sel, podLabels map[string]string, what string) {
	t.Helper()
	if len(sel) == 0 || !labels.SelectorFromSet(sel).Matches(labels.Set(podLabels)) {
		t.Errorf("%s: selector %v does not select its pods' labels %v", what, sel, podLabels)
	}
}

func sidecarTarget(c Case) string {
	if s, ok := c.Values["sidecar"].(map[string]any); ok && s["target"] != nil {
		return s["target"].(string)
	}
	return "cass-operator"
}

func serverContainer(t *testing.T, p pod) corev1.Container {
	t.Helper()
	for _, ct := range p.spec.Containers {
		if ct.Name == serverName {
			return ct
		}
	}
	t.Fatalf("%s: no container %s", p.where, serverName)
	return corev1.Container{}
}

func checkServerContainer(t *testing.T, c Case, p pod) {
	ct := serverContainer(t, p)
	where := p.where
	// Non-root, read-only root, no privileges, RuntimeDefault seccomp.
	sc := ct.SecurityContext
	if sc == nil {
		t.Fatalf("%s: no securityContext", where)
	}
	wantUID := c.CassUID
	if c.Live {
		wantUID = liveUID
	}
	switch {
	case sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot:
		t.Errorf("%s: runAsNonRoot not true", where)
	case sc.RunAsUser == nil || *sc.RunAsUser != wantUID:
		t.Errorf("%s: runAsUser %v, want %d", where, sc.RunAsUser, wantUID)
	case sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem:
		t.Errorf("%s: root filesystem writable", where)
	case sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation:
		t.Errorf("%s: privilege escalation allowed", where)
	case sc.Privileged != nil && *sc.Privileged:
		t.Errorf("%s: privileged", where)
	case sc.Capabilities == nil || !reflect.DeepEqual(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) || len(sc.Capabilities.Add) > 0:
		t.Errorf("%s: capabilities %+v, want drop ALL and add none", where, sc.Capabilities)
	case sc.SeccompProfile == nil || sc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault:
		t.Errorf("%s: seccomp %+v", where, sc.SeccompProfile)
	}
	// Mounts: Cassandra's read-only in live mode, read-write (for the
	// links) in hardlink mode; everything else read-only but /tmp.
	vols := map[string]corev1.Volume{}
	for _, v := range p.spec.Volumes {
		vols[v.Name] = v
	}
	var cass *corev1.VolumeMount
	for i, m := range ct.VolumeMounts {
		if _, ok := vols[m.Name]; !ok {
			t.Errorf("%s: mount %s names no volume of the pod", where, m.Name)
		}
		switch m.Name {
		case c.VolumeName:
			cass = &ct.VolumeMounts[i]
		case "sstf-tmp":
			if m.MountPath != "/tmp" || vols[m.Name].EmptyDir == nil || vols[m.Name].EmptyDir.SizeLimit == nil {
				t.Errorf("%s: /tmp is not a bounded emptyDir", where)
			}
		default:
			if !m.ReadOnly {
				t.Errorf("%s: mount %s is writable", where, m.Name)
			}
		}
	}
	if cass == nil {
		t.Fatalf("%s: Cassandra's volume %s is not mounted", where, c.VolumeName)
	}
	if cass.MountPath != c.MountPath || cass.ReadOnly != c.Live || cass.SubPath != "" {
		t.Errorf("%s: Cassandra's volume at %s readOnly=%v subPath=%q, want %s readOnly=%v", where, cass.MountPath, cass.ReadOnly, cass.SubPath, c.MountPath, c.Live)
	}
	args := flags(ct.Args)
	wantData := c.DataDir
	if wantData == "" {
		wantData = c.MountPath + "/data"
	}
	if args["--data-dir"] != wantData {
		t.Errorf("%s: --data-dir %q, want %q", where, args["--data-dir"], wantData)
	}
	mode := "hardlink"
	if c.Live {
		mode = "live"
	}
	if args["--snapshot-mode"] != mode {
		t.Errorf("%s: --snapshot-mode %q, want %s", where, args["--snapshot-mode"], mode)
	}
	// A hard link cannot cross mounts: the snapshot directory must be
	// inside Cassandra's mount, beside (not inside) the data directory.
	snap, hasSnap := args["--snapshot-dir"]
	switch {
	case c.Live && hasSnap:
		t.Errorf("%s: --snapshot-dir %q in live mode", where, snap)
	case !c.Live && (!strings.HasPrefix(snap, c.MountPath+"/") || strings.HasPrefix(snap, args["--data-dir"]+"/")):
		t.Errorf("%s: --snapshot-dir %q not on the mount %s beside the data", where, snap, c.MountPath)
	}
	for _, f := range []string{"--listen", "--admin-listen", "--cassandra", "--ticket-key-file"} {
		if args[f] == "" {
			t.Errorf("%s: no %s", where, f)
		}
	}
	wantKube := map[string]string{"--kube-service": fullname, "--kube-namespace": "$(POD_NAMESPACE)", "--kube-port-name": "flight"}
	for f, v := range wantKube {
		got, ok := args[f]
		if c.Discovery && got != v || !c.Discovery && ok {
			t.Errorf("%s: %s=%q (discovery %v), want %q", where, f, got, c.Discovery, v)
		}
	}
	if c.TLS {
		for _, f := range []string{"--tls-cert", "--tls-key", "--tls-client-ca", "--auth-token-file"} {
			if args[f] == "" {
				t.Errorf("%s: TLS case without %s", where, f)
			}
		}
	}
	// CQL credentials and TLS: each file a flag names is the key of the
	// Secret the case says, mounted so the kubelet renews it.
	for f, v := range c.Flags {
		if got, ok := args[f]; !ok || got != v {
			t.Errorf("%s: %s=%q (passed %v), want %q", where, f, got, ok, v)
		}
	}
	for f, want := range c.Files {
		path, ok := args[f]
		if !ok {
			t.Errorf("%s: no %s", where, f)
			continue
		}
		if got := secretFile(t, p, ct, path); got != want {
			t.Errorf("%s: %s=%s is %q, want the Secret key %q", where, f, path, got, want)
		}
	}
	for _, f := range c.Absent {
		if _, ok := args[f]; ok {
			t.Errorf("%s: %s passed", where, f)
		}
	}
	env := map[string]corev1.EnvVar{}
	for _, e := range ct.Env {
		env[e.Name] = e
	}
	if e := env["POD_NAMESPACE"]; e.ValueFrom == nil || e.ValueFrom.FieldRef == nil || e.ValueFrom.FieldRef.FieldPath != "metadata.namespace" {
		t.Errorf("%s: POD_NAMESPACE not from the downward API: %+v", where, e)
	}
	for _, e := range ct.Env {
		if e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil {
			t.Errorf("%s: env %s from a Secret: a rotated Secret reaches env only on restart", where, e.Name)
		}
	}
	// The Go runtime sized to the container: GOMAXPROCS from the CPU
	// limit (without one, the request), GOMEMLIMIT from the memory limit.
	maxProcs := "limits.cpu"
	if ct.Resources.Limits.Cpu().IsZero() {
		maxProcs = "requests.cpu"
	}
	for name, res := range map[string]string{"GOMAXPROCS": maxProcs, "GOMEMLIMIT": "limits.memory"} {
		e := env[name]
		if e.ValueFrom == nil || e.ValueFrom.ResourceFieldRef == nil || e.ValueFrom.ResourceFieldRef.Resource != res ||
			e.ValueFrom.ResourceFieldRef.Divisor.Cmp(resource.MustParse("1")) != 0 {
			t.Errorf("%s: %s %+v, want the resourceFieldRef %s, divisor 1", where, name, e.ValueFrom, res)
		}
	}
	// Ports and probes: gRPC health on the Flight port, TCP with TLS
	// (the kubelet's gRPC probe speaks no TLS).
	var hasFlight, hasMetrics bool
	for _, pt := range ct.Ports {
		hasFlight = hasFlight || pt.Name == "flight" && pt.ContainerPort == flightPort
		hasMetrics = hasMetrics || pt.Name == metricsPort
	}
	if !hasFlight || !hasMetrics {
		t.Errorf("%s: ports %+v, want flight %d and %s", where, ct.Ports, flightPort, metricsPort)
	}
	for name, pr := range map[string]*corev1.Probe{"startup": ct.StartupProbe, "readiness": ct.ReadinessProbe, "liveness": ct.LivenessProbe} {
		switch {
		case pr == nil:
			t.Errorf("%s: no %s probe", where, name)
		case c.TLS && (pr.TCPSocket == nil || pr.TCPSocket.Port != intstr.FromString("flight") || pr.GRPC != nil):
			t.Errorf("%s: %s probe %+v, want TCP on flight with TLS", where, name, pr.ProbeHandler)
		case !c.TLS && (pr.GRPC == nil || pr.GRPC.Port != flightPort || pr.GRPC.Service == nil || *pr.GRPC.Service != ""):
			t.Errorf("%s: %s probe %+v, want gRPC health on %d", where, name, pr.ProbeHandler, flightPort)
		}
	}
	// Beside Cassandra our readiness is Cassandra's pod's: it may fail only after a
	// minute of failed answers, each given 5 s (docs/operations.md, "Readiness and probes").
	if r := ct.ReadinessProbe; r != nil && (r.PeriodSeconds*r.FailureThreshold < 60 || r.TimeoutSeconds < 5) {
		t.Errorf("%s: readiness probe fails after %d s of failures with a %d s timeout, want at least 60 s and 5 s", where, r.PeriodSeconds*r.FailureThreshold, r.TimeoutSeconds)
	}
	if ct.Resources.Requests.Cpu().IsZero() || ct.Resources.Limits.Memory().IsZero() {
		t.Errorf("%s: resources %+v", where, ct.Resources)
	}
}

// secretFile tells which Secret key ("secret/key") the file at path of
// container ct is: a directory mount (no subPath, so the kubelet renews
// it) of a secret volume, through its items or, without items, the key
// of the file's name. "" if the file is no Secret's.
func secretFile(t *testing.T, p pod, ct corev1.Container, path string) string {
	t.Helper()
	for _, m := range ct.VolumeMounts {
		rel, ok := strings.CutPrefix(path, strings.TrimSuffix(m.MountPath, "/")+"/")
		if !ok {
			continue
		}
		if m.SubPath != "" || !m.ReadOnly {
			t.Errorf("%s: %s mounted with subPath %q, readOnly %v", p.where, m.MountPath, m.SubPath, m.ReadOnly)
		}
		for _, v := range p.spec.Volumes {
			if v.Name != m.Name || v.Secret == nil {
				continue
			}
			if len(v.Secret.Items) == 0 {
				return v.Secret.SecretName + "/" + rel
			}
			for _, it := range v.Secret.Items {
				if it.Path == rel {
					return v.Secret.SecretName + "/" + it.Key
				}
			}
		}
	}
	return ""
}

// flags reads --name=value arguments (a bare --flag maps to "").
func flags(args []string) map[string]string {
	m := map[string]string{}
	for _, a := range args {
		k, v, _ := strings.Cut(a, "=")
		m[k] = v
	}
	return m
}

func checkPodSecurity(t *testing.T, c Case, p pod) {
	if p.operator != "" { // a sidecar's pod is the operator's
		return
	}
	s := p.spec
	if s.AutomountServiceAccountToken == nil || *s.AutomountServiceAccountToken {
		t.Errorf("%s: the pod automounts the token (Cassandra's container would get it)", p.where)
	}
	psc := s.SecurityContext
	if psc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot || psc.RunAsUser == nil || *psc.RunAsUser == 0 {
		t.Fatalf("%s: pod securityContext %+v not non-root", p.where, psc)
	}
	for _, ct := range s.Containers {
		if ct.SecurityContext == nil || ct.SecurityContext.RunAsUser == nil || *ct.SecurityContext.RunAsUser == 0 {
			t.Errorf("%s: container %s may run as root", p.where, ct.Name)
		}
	}
	if c.Mode == "daemonset" {
		gid := c.CassUID + 100 // the custom case's gid
		if c.CassUID == 999 {
			gid = 999
		}
		if !slices.Contains(psc.SupplementalGroups, gid) {
			t.Errorf("daemonset: supplementalGroups %v lack Cassandra's gid %d (fsGroup does nothing on hostPath)", psc.SupplementalGroups, gid)
		}
		var host int
		for _, v := range s.Volumes {
			if v.HostPath != nil {
				host++
				if v.Name != c.VolumeName || v.HostPath.Path != c.MountPath {
					t.Errorf("daemonset: hostPath volume %s at %s", v.Name, v.HostPath.Path)
				}
			}
		}
		if host != 1 {
			t.Errorf("daemonset: %d hostPath volumes, want 1", host)
		}
	}
}

// checkCassandra asserts the StatefulSet's Cassandra shares the volume
// the server reads, at Cassandra's own path.
func checkCassandra(t *testing.T, c Case, sts *appsv1.StatefulSet) {
	var cass *corev1.Container
	for i := range sts.Spec.Template.Spec.Containers {
		if sts.Spec.Template.Spec.Containers[i].Name == "cassandra" {
			cass = &sts.Spec.Template.Spec.Containers[i]
		}
	}
	if cass == nil {
		t.Fatal("StatefulSet without a cassandra container")
	}
	if !strings.HasPrefix(cass.Image, "cassandra:5.0") {
		t.Errorf("Cassandra image %s, want cassandra:5.0", cass.Image)
	}
	if len(cass.VolumeMounts) != 1 || cass.VolumeMounts[0].Name != c.VolumeName || cass.VolumeMounts[0].MountPath != "/var/lib/cassandra" || cass.VolumeMounts[0].ReadOnly {
		t.Errorf("Cassandra mounts %+v", cass.VolumeMounts)
	}
	if len(sts.Spec.VolumeClaimTemplates) != 1 || sts.Spec.VolumeClaimTemplates[0].Name != c.VolumeName {
		t.Errorf("volumeClaimTemplates %+v", sts.Spec.VolumeClaimTemplates)
	}
	if sts.Spec.ServiceName != fullname+"-cassandra" {
		t.Errorf("serviceName %s", sts.Spec.ServiceName)
	}
}

// objectsOf gives the rendered objects of type T, in order.
func objectsOf[T any](r *Rendering) []T {
	var out []T
	for _, o := range r.Objects {
		if obj, ok := o.Obj.(T); ok {
			out = append(out, obj)
		}
	}
	return out
}

// service gives the chart's headless Service.
func service(t *testing.T, r *Rendering) *corev1.Service {
	t.Helper()
	for _, s := range objectsOf[*corev1.Service](r) {
		if s.Name == fullname {
			return s
		}
	}
	t.Fatalf("no Service %s", fullname)
	return nil
}

// checkService asserts the headless Service selects the server's pods and
// names its port flight (what discovery looks up).
func checkService(t *testing.T, c Case, r *Rendering, pods []pod) {
	svc := service(t, r)
	if svc.Spec.ClusterIP != corev1.ClusterIPNone {
		t.Errorf("Service not headless: clusterIP %q", svc.Spec.ClusterIP)
	}
	var flight bool
	for _, p := range svc.Spec.Ports {
		flight = flight || p.Name == "flight" && p.Port == flightPort && p.TargetPort == intstr.FromString("flight")
	}
	if !flight {
		t.Errorf("Service ports %+v: none named flight", svc.Spec.Ports)
	}
	if c.Mode == "sidecar" {
		want := map[string]string{}
		for k, v := range c.Values["sidecar"].(map[string]any)["podSelector"].(map[string]any) {
			want[k] = v.(string)
		}
		if !reflect.DeepEqual(svc.Spec.Selector, want) {
			t.Errorf("Service selects %v, want the Cassandra pods' %v", svc.Spec.Selector, want)
		}
	}
	for _, p := range pods {
		checkSelector(t, svc.Spec.Selector, p.labels, "Service")
	}
}

// checkRBAC asserts the Role grants exactly AllowedCalls, in the namespace,
// bound to the pods' ServiceAccount; nothing cluster-wide.
func checkRBAC(t *testing.T, c Case, r *Rendering, pods []pod) {
	var roles []*rbacv1.Role
	var bindings []*rbacv1.RoleBinding
	var sas []*corev1.ServiceAccount
	for _, o := range r.Objects {
		switch obj := o.Obj.(type) {
		case *rbacv1.Role:
			roles = append(roles, obj)
		case *rbacv1.RoleBinding:
			bindings = append(bindings, obj)
		case *rbacv1.ClusterRole, *rbacv1.ClusterRoleBinding:
			t.Errorf("%s: cluster-wide RBAC", o.Template)
		case *corev1.ServiceAccount:
			sas = append(sas, obj)
		}
	}
	if !c.Discovery {
		if len(roles)+len(bindings) != 0 {
			t.Errorf("discovery off: %d Roles, %d RoleBindings", len(roles), len(bindings))
		}
		return
	}
	if len(roles) != 1 || len(bindings) != 1 {
		t.Fatalf("%d Roles, %d RoleBindings, want 1 and 1", len(roles), len(bindings))
	}
	if !reflect.DeepEqual(roles[0].Rules, AllowedCalls) {
		t.Errorf("Role rules %+v, want exactly %+v", roles[0].Rules, AllowedCalls)
	}
	b := bindings[0]
	if b.RoleRef != (rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: roles[0].Name}) {
		t.Errorf("RoleBinding refers to %+v", b.RoleRef)
	}
	wantSA := fullname
	if sa, ok := c.Values["serviceAccount"].(map[string]any); ok && sa["create"] == false {
		wantSA = sa["name"].(string)
		if len(sas) != 0 {
			t.Errorf("serviceAccount.create false, but a ServiceAccount rendered")
		}
	} else if len(sas) != 1 || sas[0].Name != wantSA || sas[0].AutomountServiceAccountToken == nil || *sas[0].AutomountServiceAccountToken {
		t.Errorf("ServiceAccounts %+v, want %s without automount", sas, wantSA)
	}
	if len(b.Subjects) != 1 || b.Subjects[0] != (rbacv1.Subject{Kind: "ServiceAccount", Name: wantSA, Namespace: Namespace}) {
		t.Errorf("RoleBinding subjects %+v, want ServiceAccount %s/%s", b.Subjects, Namespace, wantSA)
	}
	// The pods run as the account bound (an unnamed one is "default").
	for _, p := range pods {
		sa := p.spec.ServiceAccountName
		if sa == "" {
			sa = "default"
		}
		if sa != wantSA {
			t.Errorf("%s: the pods run as %s, the RoleBinding binds %s", p.where, sa, wantSA)
		}
	}
}

// checkMonitoring asserts the PodMonitor (default) or ServiceMonitor
// selects the server's pods or Service, on its metrics port, with the
// extra labels of the values, and reaches /metrics as the server serves
// it: HTTPS against the server's CA for the Service's name with TLS, a
// client certificate with a client CA and a token with a token, neither
// with metrics.open; prometheus-operator's own validation passes.
func checkMonitoring(t *testing.T, c Case, r *Rendering) {
	pms := objectsOf[*monitoringv1.PodMonitor](r)
	sms := objectsOf[*monitoringv1.ServiceMonitor](r)
	svc := service(t, r)
	m, _ := c.Values["metrics"].(map[string]any)
	extra := func(kind string) map[string]any {
		if mm, ok := m[kind].(map[string]any); ok {
			if l, ok := mm["labels"].(map[string]any); ok {
				return l
			}
		}
		return nil
	}
	enabled := func(kind string, def bool) bool {
		if mm, ok := m[kind].(map[string]any); ok && mm["enabled"] != nil {
			return mm["enabled"].(bool)
		}
		return def
	}
	if want := enabled("podMonitor", true); want != (len(pms) == 1) || len(pms) > 1 {
		t.Fatalf("%d PodMonitors, enabled %v", len(pms), want)
	}
	if want := enabled("serviceMonitor", false); want != (len(sms) == 1) || len(sms) > 1 {
		t.Fatalf("%d ServiceMonitors, enabled %v", len(sms), want)
	}
	for _, pm := range pms {
		if !reflect.DeepEqual(pm.Spec.Selector.MatchLabels, svc.Spec.Selector) {
			t.Errorf("PodMonitor selects %v, the Service %v", pm.Spec.Selector.MatchLabels, svc.Spec.Selector)
		}
		if len(pm.Spec.PodMetricsEndpoints) != 1 || pm.Spec.PodMetricsEndpoints[0].Port == nil || *pm.Spec.PodMetricsEndpoints[0].Port != metricsPort {
			t.Fatalf("PodMonitor endpoints %+v", pm.Spec.PodMetricsEndpoints)
		}
		e := pm.Spec.PodMetricsEndpoints[0]
		if err := e.HTTPConfigWithProxy.Validate(); err != nil {
			t.Errorf("PodMonitor: prometheus-operator refuses it: %v", err)
		}
		checkScrape(t, c, "PodMonitor", e.Scheme, e.TLSConfig, e.Authorization)
		for k, v := range extra("podMonitor") {
			if pm.Labels[k] != v {
				t.Errorf("PodMonitor lacks label %s=%v", k, v)
			}
		}
	}
	for _, sm := range sms {
		if !labels.SelectorFromSet(sm.Spec.Selector.MatchLabels).Matches(labels.Set(svc.Labels)) {
			t.Errorf("ServiceMonitor selects %v, not the Service's labels %v", sm.Spec.Selector.MatchLabels, svc.Labels)
		}
		if len(sm.Spec.Endpoints) != 1 || sm.Spec.Endpoints[0].Port != "metrics" {
			t.Fatalf("ServiceMonitor endpoints %+v", sm.Spec.Endpoints)
		}
		e := sm.Spec.Endpoints[0]
		if err := e.HTTPConfigWithProxyAndTLSFiles.Validate(); err != nil {
			t.Errorf("ServiceMonitor: prometheus-operator refuses it: %v", err)
		}
		var tls *monitoringv1.SafeTLSConfig
		if e.TLSConfig != nil {
			tls = &e.TLSConfig.SafeTLSConfig
			if e.TLSConfig.TLSFilesConfig != (monitoringv1.TLSFilesConfig{}) {
				t.Errorf("ServiceMonitor names files in Prometheus's container: %+v", e.TLSConfig.TLSFilesConfig)
			}
		}
		checkScrape(t, c, "ServiceMonitor", e.Scheme, tls, e.Authorization)
		for k, v := range extra("serviceMonitor") {
			if sm.Labels[k] != v {
				t.Errorf("ServiceMonitor lacks label %s=%v", k, v)
			}
		}
	}
}

// checkScrape asserts how a monitor reaches /metrics.
func checkScrape(t *testing.T, c Case, what string, scheme *monitoringv1.Scheme, tls *monitoringv1.SafeTLSConfig, auth *monitoringv1.SafeAuthorization) {
	t.Helper()
	v := func(path ...string) any { return valueAt(c.Values, path...) }
	open := v("metrics", "open") == true
	wantScheme := "http"
	if c.TLS {
		wantScheme = "https"
	}
	if scheme == nil || strings.ToLower(string(*scheme)) != wantScheme {
		t.Errorf("%s: scheme %v, want %s", what, scheme, wantScheme)
	}
	switch {
	case !c.TLS && tls != nil:
		t.Errorf("%s: tlsConfig without TLS", what)
	case c.TLS && tls == nil:
		t.Errorf("%s: TLS without tlsConfig", what)
	case c.TLS:
		caSecret, _ := v("metrics", "scrape", "caSecret").(string)
		if caSecret == "" {
			caSecret, _ = v("tls", "existingSecret").(string)
		}
		if tls.CA.Secret == nil || tls.CA.Secret.Name != caSecret || tls.CA.Secret.Key != "ca.crt" {
			t.Errorf("%s: CA %+v, want %s/ca.crt", what, tls.CA, caSecret)
		}
		if tls.ServerName == nil || *tls.ServerName != fullname+"."+Namespace+".svc" {
			t.Errorf("%s: serverName %v, want the Service's name", what, tls.ServerName)
		}
		client, _ := v("metrics", "scrape", "clientCertSecret").(string)
		wantClient := v("tls", "clientCA") == true && !open
		if got := tls.Cert.Secret != nil && tls.Cert.Secret.Name == client && tls.KeySecret != nil && tls.KeySecret.Name == client; got != wantClient {
			t.Errorf("%s: client certificate %+v %+v, want %v (from %q)", what, tls.Cert, tls.KeySecret, wantClient, client)
		}
	}
	token, _ := v("auth", "existingSecret").(string)
	wantAuth := token != "" && !open
	if got := auth != nil && auth.Credentials != nil && auth.Credentials.Name == token && auth.Credentials.Key == "token"; got != wantAuth {
		t.Errorf("%s: authorization %+v, want %v (Secret %q)", what, auth, wantAuth, token)
	}
}

// valueAt reads a nested value of a case's values.
func valueAt(m map[string]any, path ...string) any {
	var cur any = m
	for _, p := range path {
		mm, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = mm[p]
	}
	return cur
}

// checkNetworkPolicy asserts the chart's NetworkPolicy limits the
// server's ports as the values say and leaves every other port of the
// pods it selects open to all: Cassandra's and those of what its operator
// runs beside it (a policy selecting a pod denies every port it does not
// list).
func checkNetworkPolicy(t *testing.T, c Case, r *Rendering, pods []pod) {
	nps := objectsOf[*networkingv1.NetworkPolicy](r)
	svc := service(t, r)
	np, _ := c.Values["networkPolicy"].(map[string]any)
	if want := np["enabled"] == true; want != (len(nps) == 1) {
		t.Fatalf("%d NetworkPolicies, enabled %v", len(nps), want)
	}
	if len(nps) == 0 {
		return
	}
	p := nps[0]
	if !reflect.DeepEqual(p.Spec.PodSelector.MatchLabels, svc.Spec.Selector) {
		t.Errorf("NetworkPolicy selects %v, the Service %v", p.Spec.PodSelector.MatchLabels, svc.Spec.Selector)
	}
	if c.Mode == "daemonset" {
		return // the host's network: no policy applies
	}
	policies := []networkingv1.NetworkPolicy{*p}
	stranger := source{name: "a pod of no policy", ns: Namespace, labels: map[string]string{"app": "stranger"}}
	for _, pd := range pods {
		peer := source{name: "a peer server", ns: Namespace, labels: pd.labels}
		for _, ct := range append(append([]corev1.Container{}, pd.spec.InitContainers...), pd.spec.Containers...) {
			for _, port := range ct.Ports {
				switch {
				case ct.Name == serverName && port.Name == "flight":
					limited := np["flightFrom"] != nil
					if !admits(t, policies, Namespace, pd.labels, port, peer) {
						t.Errorf("%s: the servers cannot reach each other's Flight port", pd.where)
					}
					if admits(t, policies, Namespace, pd.labels, port, stranger) == limited {
						t.Errorf("%s: Flight from any pod admitted %v with flightFrom %v", pd.where, !limited, np["flightFrom"])
					}
				case ct.Name == serverName && port.Name == metricsPort:
					if limited := np["metricsFrom"] != nil; admits(t, policies, Namespace, pd.labels, port, stranger) == limited {
						t.Errorf("%s: metrics from any pod admitted %v with metricsFrom %v", pd.where, !limited, np["metricsFrom"])
					}
				default:
					if !admits(t, policies, Namespace, pd.labels, port, stranger) {
						t.Errorf("%s: the policy cuts port %d (%s) of container %s", pd.where, port.ContainerPort, port.Name, ct.Name)
					}
				}
			}
		}
	}
	if c.Mode == "sidecar" && sidecarTarget(c) != "bitnami" {
		// What K8ssandra adds to the pods whether or not the modelled
		// pod has it: Medusa's port.
		medusa := corev1.ContainerPort{Name: "grpc", ContainerPort: medusaPort}
		if !admits(t, policies, Namespace, pods[0].labels, medusa, stranger) {
			t.Errorf("the policy cuts Medusa's port %d", medusaPort)
		}
	}
}

// checkDashboard asserts the dashboard ConfigMap carries Grafana's sidecar
// label and the chart's JSON file, which must equal the one in
// deploy/grafana when that exists.
func checkDashboard(t *testing.T, c Case, r *Rendering) {
	var cm *corev1.ConfigMap
	for _, o := range r.Objects {
		if m, ok := o.Obj.(*corev1.ConfigMap); ok && m.Name == fullname+"-dashboard" {
			cm = m
		}
	}
	g, _ := c.Values["grafana"].(map[string]any)
	if g != nil {
		if cm != nil {
			t.Error("dashboard disabled but rendered")
		}
		return
	}
	if cm == nil {
		t.Fatal("no dashboard ConfigMap")
	}
	if cm.Labels["grafana_dashboard"] != "1" {
		t.Errorf("dashboard labels %v lack grafana_dashboard: \"1\"", cm.Labels)
	}
	want, err := os.ReadFile(filepath.Join(ChartDir(), "dashboards", "sstable-flight.json"))
	if err != nil {
		t.Fatal(err)
	}
	if cm.Data["sstable-flight.json"] != strings.TrimRight(string(want), "\n") {
		t.Errorf("dashboard ConfigMap differs from dashboards/sstable-flight.json")
	}
}

// TestDashboardCopy asserts the chart's dashboard is deploy/grafana's.
func TestDashboardCopy(t *testing.T) {
	src := filepath.Join(ChartDir(), "..", "..", "deploy", "grafana", "sstable-flight.json")
	want, err := os.ReadFile(src)
	if os.IsNotExist(err) {
		t.Skipf("%s not there yet", src)
	}
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(ChartDir(), "dashboards", "sstable-flight.json"))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("helm/sstable-flight/dashboards/sstable-flight.json differs from deploy/grafana/sstable-flight.json: copy it over")
	}
}
