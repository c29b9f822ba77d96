package charttest

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	dynamicfake "k8s.io/client-go/dynamic/fake"
)

// secretsOnly answers Helm's lookup from a fake cluster holding secrets.
type secretsOnly struct{ dyn dynamic.Interface }

func (s secretsOnly) GetClientFor(apiVersion, kind string) (dynamic.NamespaceableResourceInterface, bool, error) {
	return s.dyn.Resource(schema.GroupVersionResource{Version: "v1", Resource: "secrets"}), true, nil
}

// ticketKey renders and gives the ticket key Secret's key, "" if none.
func ticketKey(t *testing.T, values map[string]any, opts Options) string {
	t.Helper()
	ch, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	opts.Namespace = Namespace
	r, err := RenderWith(ch, values, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range objectsOf[*corev1.Secret](r) {
		if s.Name == fullname+"-ticket-key" {
			return string(s.Data["ticket.key"])
		}
	}
	return ""
}

// TestTicketKeyKept asserts the ticket key survives upgrades: an install
// finds the Secret it made and keeps its key; a renderer without the
// cluster (helm template, Argo CD) draws a new one each time, which is
// why docs/kubernetes.md gives them ticketKey.existingSecret, which
// renders no Secret.
func TestTicketKeyKept(t *testing.T) {
	const key = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\n"
	old := &corev1.Secret{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: metav1.ObjectMeta{Name: fullname + "-ticket-key", Namespace: Namespace},
		Data:       map[string][]byte{"ticket.key": []byte(key)},
	}
	fake := dynamicfake.NewSimpleDynamicClient(runtime.NewScheme(), toUnstructured(t, old))
	if got := ticketKey(t, nil, Options{Lookup: secretsOnly{fake}}); got != key {
		t.Errorf("upgrade: key %q, want the Secret's %q", got, key)
	}
	empty := dynamicfake.NewSimpleDynamicClient(runtime.NewScheme())
	first := ticketKey(t, nil, Options{Lookup: secretsOnly{empty}})
	if len(first) != 65 {
		t.Errorf("install: key %q, want 64 hex digits and a newline", first)
	}
	a, b := ticketKey(t, nil, Options{}), ticketKey(t, nil, Options{})
	if a == "" || a == b {
		t.Errorf("helm template: keys %q and %q, want a new one each render", a, b)
	}
	if got := ticketKey(t, map[string]any{"ticketKey": map[string]any{"existingSecret": "keys"}}, Options{}); got != "" {
		t.Errorf("existingSecret: a ticket key Secret rendered")
	}
}

func toUnstructured(t *testing.T, obj runtime.Object) runtime.Object {
	t.Helper()
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		t.Fatal(err)
	}
	return &unstructured.Unstructured{Object: m}
}
