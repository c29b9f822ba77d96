package charttest

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// source is a pod that opens a connection: its labels and its
// namespace's.
type source struct {
	name     string
	ns       string
	nsLabels map[string]string
	labels   map[string]string
}

// admits tells whether NetworkPolicies of namespace ns let from reach a
// container port of a pod with podLabels there, with Kubernetes'
// semantics: a pod no policy selects for ingress takes everything; a
// selected pod takes what any selecting policy's rule allows, a rule
// without ports allowing every port and one without peers every source.
// IP blocks are not modelled (they allow nothing here).
func admits(t *testing.T, policies []networkingv1.NetworkPolicy, ns string, podLabels map[string]string, port corev1.ContainerPort, from source) bool {
	t.Helper()
	selected := false
	for _, p := range policies {
		if !selects(t, &p.Spec.PodSelector, podLabels) || !hasIngress(p.Spec) {
			continue
		}
		selected = true
		for _, r := range p.Spec.Ingress {
			if ruleHasPort(r.Ports, port) && ruleHasPeer(t, r.From, ns, from) {
				return true
			}
		}
	}
	return !selected
}

func hasIngress(s networkingv1.NetworkPolicySpec) bool {
	if len(s.PolicyTypes) == 0 {
		return true
	}
	for _, pt := range s.PolicyTypes {
		if pt == networkingv1.PolicyTypeIngress {
			return true
		}
	}
	return false
}

func selects(t *testing.T, sel *metav1.LabelSelector, l map[string]string) bool {
	t.Helper()
	s, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil {
		t.Fatalf("selector %v: %v", sel, err)
	}
	return s.Matches(labels.Set(l))
}

func ruleHasPort(ports []networkingv1.NetworkPolicyPort, cp corev1.ContainerPort) bool {
	if len(ports) == 0 {
		return true
	}
	proto := cp.Protocol
	if proto == "" {
		proto = corev1.ProtocolTCP
	}
	for _, p := range ports {
		pp := corev1.ProtocolTCP
		if p.Protocol != nil {
			pp = *p.Protocol
		}
		if pp != proto {
			continue
		}
		switch {
		case p.Port == nil:
			return true
		case p.Port.Type == intstr.String: // the target container's port of that name
			if p.Port.StrVal == cp.Name {
				return true
			}
		case p.EndPort != nil:
			if cp.ContainerPort >= p.Port.IntVal && cp.ContainerPort <= *p.EndPort {
				return true
			}
		case p.Port.IntVal == cp.ContainerPort:
			return true
		}
	}
	return false
}

func ruleHasPeer(t *testing.T, peers []networkingv1.NetworkPolicyPeer, ns string, from source) bool {
	if len(peers) == 0 {
		return true
	}
	for _, p := range peers {
		switch {
		case p.IPBlock != nil:
			continue
		case p.NamespaceSelector != nil && p.PodSelector != nil:
			if selects(t, p.NamespaceSelector, from.nsLabels) && selects(t, p.PodSelector, from.labels) {
				return true
			}
		case p.NamespaceSelector != nil:
			if selects(t, p.NamespaceSelector, from.nsLabels) {
				return true
			}
		case p.PodSelector != nil:
			if from.ns == ns && selects(t, p.PodSelector, from.labels) {
				return true
			}
		}
	}
	return false
}

// TestAdmits checks the evaluator itself on the cases the chart's tests
// rely on, so a wrong "admitted" cannot pass for the chart's.
func TestAdmits(t *testing.T) {
	pod := map[string]string{"app": "db"}
	tcp := func(n int32) networkingv1.NetworkPolicyPort {
		return networkingv1.NetworkPolicyPort{Port: ptr(intstr.FromInt32(n))}
	}
	trino := source{name: "trino", ns: "ns", labels: map[string]string{"app": "trino"}}
	other := source{name: "other", ns: "ns", labels: map[string]string{"app": "x"}}
	elsewhere := source{name: "elsewhere", ns: "mon", nsLabels: map[string]string{"kubernetes.io/metadata.name": "mon"}, labels: map[string]string{"app": "trino"}}
	cql := corev1.ContainerPort{Name: "cql", ContainerPort: 9042}
	flight := corev1.ContainerPort{Name: "flight", ContainerPort: 8815}
	if !admits(t, nil, "ns", pod, cql, other) {
		t.Error("no policy: refused")
	}
	p := networkingv1.NetworkPolicy{Spec: networkingv1.NetworkPolicySpec{
		PodSelector: metav1.LabelSelector{MatchLabels: pod},
		Ingress: []networkingv1.NetworkPolicyIngressRule{
			{Ports: []networkingv1.NetworkPolicyPort{tcp(9042)}},
			{Ports: []networkingv1.NetworkPolicyPort{tcp(8815)}, From: []networkingv1.NetworkPolicyPeer{{PodSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "trino"}}}}},
		},
	}}
	ps := []networkingv1.NetworkPolicy{p}
	for _, c := range []struct {
		port corev1.ContainerPort
		from source
		want bool
	}{
		{cql, other, true}, {flight, trino, true}, {flight, other, false},
		{flight, elsewhere, false}, // a pod selector alone is the policy's namespace
		{corev1.ContainerPort{ContainerPort: 7000}, trino, false},
	} {
		if got := admits(t, ps, "ns", pod, c.port, c.from); got != c.want {
			t.Errorf("port %d from %s: admitted %v, want %v", c.port.ContainerPort, c.from.name, got, c.want)
		}
	}
	if admits(t, ps, "ns", map[string]string{"app": "web"}, flight, other) != true {
		t.Error("a pod the policy does not select: refused")
	}
}
