package charttest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/yaml"
)

// fieldManager names this test's writes on the API server.
const fieldManager = "sstf-chart-test"

// cluster is a connection to the API server of SSTF_KUBECONFIG, with the
// warnings it answered (Pod Security's among them).
type cluster struct {
	kube     kubernetes.Interface
	dyn      dynamic.Interface
	mapper   *restmapper.DeferredDiscoveryRESTMapper
	warnings *warnings
}

type warnings struct {
	mu   sync.Mutex
	msgs []string
}

func (w *warnings) HandleWarningHeader(code int, agent, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.msgs = append(w.msgs, text)
}

// take returns the warnings since the last take.
func (w *warnings) take() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	m := w.msgs
	w.msgs = nil
	return m
}

// connect opens SSTF_KUBECONFIG. Without it the test is skipped, but in
// CI it fails: there the API server must be there.
func connect(t *testing.T) *cluster {
	t.Helper()
	path := os.Getenv("SSTF_KUBECONFIG")
	if path == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("SSTF_KUBECONFIG is not set: CI must run the chart against a real API server (the kube harness writes its kubeconfig)")
		}
		t.Skip("SSTF_KUBECONFIG not set: no API server to apply the chart to")
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", path)
	if err != nil {
		t.Fatalf("read kubeconfig %s: %v", path, err)
	}
	w := &warnings{}
	cfg.WarningHandler = w
	cfg.Timeout = 30 * time.Second
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kube.Discovery().ServerVersion(); err != nil {
		t.Fatalf("API server of %s unreachable: %v", path, err)
	}
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(kube.Discovery()))
	return &cluster{kube: kube, dyn: dyn, mapper: mapper, warnings: w}
}

// namespace creates a namespace of a fresh name for real, enforcing Pod
// Security's level, and deletes it at the end of the test.
func (c *cluster) namespace(t *testing.T, prefix, level string) string {
	t.Helper()
	b := make([]byte, 4)
	rand.Read(b)
	name := prefix + "-" + hex.EncodeToString(b)
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{
		"pod-security.kubernetes.io/enforce": level,
		"pod-security.kubernetes.io/warn":    level,
	}}}
	ctx := context.Background()
	if _, err := c.kube.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{FieldManager: fieldManager}); err != nil {
		t.Fatalf("create namespace %s: %v", name, err)
	}
	t.Cleanup(func() {
		// Without a namespace controller it stays Terminating; harmless.
		c.kube.CoreV1().Namespaces().Delete(context.Background(), name, metav1.DeleteOptions{})
	})
	return name
}

// apply applies one rendered object in ns with server-side apply,
// dry-run unless real.
func (c *cluster) apply(ctx context.Context, ns string, doc []byte, real bool) error {
	js, err := yaml.YAMLToJSON(doc)
	if err != nil {
		return err
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(js); err != nil {
		return err
	}
	gvk := u.GroupVersionKind()
	m, err := c.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return fmt.Errorf("map %s: %w", gvk, err)
	}
	var ri dynamic.ResourceInterface = c.dyn.Resource(m.Resource)
	if m.Scope.Name() == meta.RESTScopeNameNamespace {
		ri = c.dyn.Resource(m.Resource).Namespace(ns)
	}
	opts := metav1.ApplyOptions{FieldManager: fieldManager, Force: true}
	if !real {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	_, err = ri.Apply(ctx, u.GetName(), u, opts)
	if err != nil {
		return fmt.Errorf("apply %s %s: %w", gvk.Kind, u.GetName(), err)
	}
	return nil
}

// monitoringCRDs installs PodMonitor and ServiceMonitor as CRDs that keep
// any field: a bare API server has no Prometheus operator, and the
// fields themselves are checked by the strict decoding into
// prometheus-operator's Go types (TestMatrix).
func (c *cluster) monitoringCRDs(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	gvr := schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
	for _, kind := range []string{"PodMonitor", "ServiceMonitor"} {
		plural := strings.ToLower(kind) + "s"
		crd := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "apiextensions.k8s.io/v1",
			"kind":       "CustomResourceDefinition",
			"metadata":   map[string]any{"name": plural + ".monitoring.coreos.com"},
			"spec": map[string]any{
				"group": "monitoring.coreos.com",
				"scope": "Namespaced",
				"names": map[string]any{"kind": kind, "plural": plural, "listKind": kind + "List", "singular": strings.ToLower(kind)},
				"versions": []any{map[string]any{
					"name": "v1", "served": true, "storage": true,
					"schema": map[string]any{"openAPIV3Schema": map[string]any{
						"type": "object", "x-kubernetes-preserve-unknown-fields": true,
					}},
				}},
			},
		}}
		_, err := c.dyn.Resource(gvr).Apply(ctx, crd.GetName(), crd, metav1.ApplyOptions{FieldManager: fieldManager, Force: true})
		if err != nil {
			t.Fatalf("install CRD %s: %v", crd.GetName(), err)
		}
	}
	// Wait until discovery serves them.
	deadline := time.Now().Add(30 * time.Second)
	for {
		c.mapper.Reset()
		_, err1 := c.mapper.RESTMapping(schema.GroupKind{Group: "monitoring.coreos.com", Kind: "PodMonitor"}, "v1")
		_, err2 := c.mapper.RESTMapping(schema.GroupKind{Group: "monitoring.coreos.com", Kind: "ServiceMonitor"}, "v1")
		if err1 == nil && err2 == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("monitoring CRDs not served after 30 s: %v %v", err1, err2)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// TestAPIServerAcceptsEveryMode applies every rendered object of every
// mode of the matrix with server-side dry-run, in a namespace that
// enforces Pod Security's restricted level. Workloads are admitted with
// warnings only, so each pod the server runs in is also dry-run created
// as a Pod, where the level is enforced, at the level docs/kubernetes.md
// gives: statefulset pods and Bitnami's pods with the sidecar pass
// restricted; cass-operator's and K8ssandra's pods pass baseline and not
// restricted, for the operator's containers alone (they set no seccomp
// profile and drop no capabilities); daemonset pods need privileged
// (host paths), and pass restricted but for them.
func TestAPIServerAcceptsEveryMode(t *testing.T) {
	c := connect(t)
	c.monitoringCRDs(t)
	ns := c.namespace(t, "sstf-chart", "restricted")
	levels := map[string]string{
		"restricted": ns,
		"baseline":   c.namespace(t, "sstf-chart-baseline", "baseline"),
		"privileged": c.namespace(t, "sstf-chart-privileged", "privileged"),
	}
	ctx := context.Background()
	ch, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	// Pod Security must be on, or the pod checks below prove nothing.
	priv := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "privileged"}, Spec: corev1.PodSpec{Containers: []corev1.Container{{
		Name: "x", Image: "x", SecurityContext: &corev1.SecurityContext{Privileged: ptr(true)}}}}}
	if _, err := c.kube.CoreV1().Pods(ns).Create(ctx, priv, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}); err == nil {
		t.Fatal("a privileged pod was admitted in a restricted namespace: the API server runs without PodSecurity admission")
	}
	for _, tc := range Matrix {
		t.Run(tc.Name, func(t *testing.T) {
			r, err := RenderIn(ch, tc.Values, ns)
			if err != nil {
				t.Fatal(err)
			}
			c.warnings.take()
			for _, o := range r.Objects {
				if err := c.apply(ctx, ns, o.YAML, false); err != nil {
					t.Errorf("%s: %v", o.Template, err)
				}
				for _, w := range c.warnings.take() {
					if tc.Mode == "daemonset" && isHostException(w) {
						continue
					}
					t.Errorf("%s: warning: %s", o.Template, w)
				}
			}
			for _, p := range workloadPods(t, tc, r) {
				switch {
				case tc.Mode == "daemonset":
					c.expectPod(t, levels["privileged"], p, "")
					c.expectPod(t, levels["baseline"], p, "hostPath")
					c.expectPod(t, ns, withoutHost(p), "")
				case p.operator == "cass-operator" || p.operator == "k8ssandra":
					c.expectPod(t, levels["baseline"], p, "")
					c.expectPod(t, ns, p, "seccompProfile")
				default:
					c.expectPod(t, ns, p, "")
				}
			}
		})
	}
}

// isHostException tells Pod Security's warnings about the host path and
// host network a daemonset needs, and only those (on the host's network
// the API server defaults each port's hostPort to its containerPort).
func isHostException(w string) bool {
	w = strings.TrimPrefix(w, "would violate PodSecurity \"restricted:latest\": ")
	for _, part := range strings.Split(w, "), ") {
		if !slices.ContainsFunc([]string{"hostPath volumes", "host namespaces", "hostPort", "restricted volume types"}, func(p string) bool { return strings.HasPrefix(part, p) }) {
			return false
		}
	}
	return true
}

// withoutHost is a daemonset's pod with its host path and the host's
// network replaced, to check the rest of it at restricted.
func withoutHost(p pod) pod {
	p.spec = *p.spec.DeepCopy()
	p.spec.HostNetwork = false
	p.spec.DNSPolicy = ""
	for i := range p.spec.Volumes {
		if p.spec.Volumes[i].HostPath != nil {
			p.spec.Volumes[i].VolumeSource = corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}
		}
	}
	p.where += " without host access"
	return p
}

// expectPod dry-run creates the pod the server runs in (in sidecar mode
// the operator's pod with the snippet merged, the pod security the
// operator sets and nothing more) in namespace ns: admitted if refusal is
// "", else refused for a reason naming refusal; refused at restricted for
// the operator's containers (seccompProfile), never for the server's.
func (c *cluster) expectPod(t *testing.T, ns string, p pod, refusal string) {
	t.Helper()
	ctx := context.Background()
	c.ensureServiceAccount(t, ns, p.spec.ServiceAccountName)
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "sstf-" + strings.ToLower(strings.NewReplacer(".", "-", " ", "-").Replace(p.where)), Labels: p.labels}, Spec: *p.spec.DeepCopy()}
	_, err := c.kube.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}, FieldManager: fieldManager})
	switch {
	case refusal == "" && err != nil:
		t.Errorf("%s in %s: pod refused: %v", p.where, ns, err)
	case refusal != "" && err == nil:
		t.Errorf("%s in %s: pod admitted, want refused for %s", p.where, ns, refusal)
	case refusal != "" && !strings.Contains(err.Error(), refusal):
		t.Errorf("%s in %s: refused, but not for %s: %v", p.where, ns, refusal, err)
	case refusal == "seccompProfile" && strings.Contains(err.Error(), `"`+serverName+`"`):
		t.Errorf("%s in %s: Pod Security refuses the server's own container: %v", p.where, ns, err)
	}
}

// ensureServiceAccount creates the account a dry-run pod names (the
// ServiceAccount admission refuses a pod of a missing account).
func (c *cluster) ensureServiceAccount(t *testing.T, ns, name string) {
	t.Helper()
	if name == "" {
		name = "default"
	}
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name}}
	_, err := c.kube.CoreV1().ServiceAccounts(ns).Create(context.Background(), sa, metav1.CreateOptions{FieldManager: fieldManager})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatalf("create service account %s: %v", name, err)
	}
}

// call is one request a SubjectAccessReview asks about.
type call struct {
	verb, group, resource, namespace string
}

func (c call) String() string {
	return fmt.Sprintf("%s %s.%s in %s", c.verb, c.resource, c.group, c.namespace)
}

// TestRBACSufficientAndMinimal applies the chart's ServiceAccount, Role
// and RoleBinding for real and asks the API server, with
// SubjectAccessReviews, whether the account may make each call: every
// call of AllowedCalls in its namespace, and none of a list of calls the
// server never makes.
func TestRBACSufficientAndMinimal(t *testing.T) {
	c := connect(t)
	ns := c.namespace(t, "sstf-sar", "restricted")
	other := c.namespace(t, "sstf-sar-other", "restricted")
	ctx := context.Background()
	ch, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	r, err := RenderIn(ch, map[string]any{}, ns)
	if err != nil {
		t.Fatal(err)
	}
	var applied []string
	for _, o := range r.Objects {
		kind := o.Obj.GetObjectKind().GroupVersionKind().Kind
		if kind == "ServiceAccount" || kind == "Role" || kind == "RoleBinding" {
			if err := c.apply(ctx, ns, o.YAML, true); err != nil {
				t.Fatalf("%s: %v", o.Template, err)
			}
			applied = append(applied, kind)
		}
	}
	slices.Sort(applied)
	if !slices.Equal(applied, []string{"Role", "RoleBinding", "ServiceAccount"}) {
		t.Fatalf("applied %v, want a ServiceAccount, Role and RoleBinding", applied)
	}
	var allowed []call
	for _, rule := range AllowedCalls {
		for _, g := range rule.APIGroups {
			for _, res := range rule.Resources {
				for _, v := range rule.Verbs {
					allowed = append(allowed, call{v, g, res, ns})
				}
			}
		}
	}
	denied := []call{
		{"get", "", "secrets", ns},
		{"list", "", "secrets", ns},
		{"list", "", "pods", ns},
		{"get", "discovery.k8s.io", "endpointslices", ns},
		{"create", "discovery.k8s.io", "endpointslices", ns},
		{"update", "discovery.k8s.io", "endpointslices", ns},
		{"patch", "discovery.k8s.io", "endpointslices", ns},
		{"delete", "discovery.k8s.io", "endpointslices", ns},
		{"list", "discovery.k8s.io", "endpointslices", other},
		{"watch", "discovery.k8s.io", "endpointslices", other},
		{"list", "discovery.k8s.io", "endpointslices", ""},
		{"list", "", "endpoints", ns},
		{"list", "", "services", ns},
	}
	user := "system:serviceaccount:" + ns + ":" + fullname
	groups := []string{"system:serviceaccounts", "system:serviceaccounts:" + ns, "system:authenticated"}
	review := func(cl call) (bool, string) {
		sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
			User: user, Groups: groups,
			ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: cl.namespace, Verb: cl.verb, Group: cl.group, Resource: cl.resource},
		}}
		res, err := c.kube.AuthorizationV1().SubjectAccessReviews().Create(ctx, sar, metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("SubjectAccessReview %s: %v", cl, err)
		}
		return res.Status.Allowed, res.Status.Reason
	}
	// The authorizer learns the new binding from its informer: allow it
	// a few seconds.
	for _, cl := range allowed {
		deadline := time.Now().Add(15 * time.Second)
		for {
			ok, reason := review(cl)
			if ok {
				break
			}
			if time.Now().After(deadline) {
				t.Errorf("%s may not %s (%s): the chart's RBAC is not sufficient", user, cl, reason)
				break
			}
			time.Sleep(300 * time.Millisecond)
		}
	}
	for _, cl := range denied {
		if ok, reason := review(cl); ok {
			t.Errorf("%s may %s (%s): the chart's RBAC is not minimal", user, cl, reason)
		}
	}
}

func ptr[T any](v T) *T { return &v }
