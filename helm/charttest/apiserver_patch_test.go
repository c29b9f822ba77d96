package charttest

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

var cassDCResource = schema.GroupVersionResource{Group: "cassandra.datastax.com", Version: "v1beta1", Resource: "cassandradatacenters"}

// cassDCCRD installs CassandraDatacenter with the parts of cass-operator's
// schema the patch meets (config/crd/bases/cassandra.datastax.com_cassandradatacenters.yaml
// at cassOperatorSource): spec.podTemplateSpec.spec requires containers,
// and its containers and volumes are list maps keyed by name; every other
// field is kept as given. No webhook runs: its rules are
// cassOperatorValidateUpdate's.
func (c *cluster) cassDCCRD(t *testing.T) {
	t.Helper()
	named := map[string]any{
		"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": []any{"name"},
		"items": map[string]any{"type": "object", "required": []any{"name"}, "x-kubernetes-preserve-unknown-fields": true,
			"properties": map[string]any{"name": map[string]any{"type": "string"}}},
	}
	open := func(props map[string]any, required ...any) map[string]any {
		m := map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true, "properties": props}
		if len(required) > 0 {
			m["required"] = required
		}
		return m
	}
	crd := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1",
		"kind":       "CustomResourceDefinition",
		"metadata":   map[string]any{"name": "cassandradatacenters.cassandra.datastax.com"},
		"spec": map[string]any{
			"group": "cassandra.datastax.com",
			"scope": "Namespaced",
			"names": map[string]any{"kind": "CassandraDatacenter", "plural": "cassandradatacenters", "listKind": "CassandraDatacenterList", "singular": "cassandradatacenter"},
			"versions": []any{map[string]any{
				"name": "v1beta1", "served": true, "storage": true,
				"schema": map[string]any{"openAPIV3Schema": open(map[string]any{
					"spec": open(map[string]any{
						"serviceAccount":     map[string]any{"type": "string"},
						"serviceAccountName": map[string]any{"type": "string"},
						"podTemplateSpec": open(map[string]any{
							"spec": open(map[string]any{"containers": named, "volumes": named}, "containers"),
						}),
					}),
				})},
			}},
		},
	}}
	gvr := schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
	ctx := context.Background()
	if _, err := c.dyn.Resource(gvr).Apply(ctx, crd.GetName(), crd, metav1.ApplyOptions{FieldManager: fieldManager, Force: true}); err != nil {
		t.Fatalf("install CRD %s: %v", crd.GetName(), err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		c.mapper.Reset()
		if _, err := c.mapper.RESTMapping(schema.GroupKind{Group: "cassandra.datastax.com", Kind: "CassandraDatacenter"}, "v1beta1"); err == nil {
			return
		} else if time.Now().After(deadline) {
			t.Fatalf("CassandraDatacenter not served after 30 s: %v", err)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// TestCassOperatorPatchOnAPIServer runs the documented steps against a
// real API server: for every state of a datacenter, kubectl's template
// prints the patch from the object as the server returns it, and the
// server applies it (JSON patch, strict field validation) to exactly
// what TestCassOperatorPatch's model gives; printed again it changes
// nothing; the first patch applied again is refused (its guards, or the
// list maps refusing a second container of the name); a datacenter
// naming its own account refuses the patch and keeps its spec.
func TestCassOperatorPatchOnAPIServer(t *testing.T) {
	c := connect(t)
	c.cassDCCRD(t)
	ns := c.namespace(t, "sstf-patch", "restricted")
	ctx := context.Background()
	ch, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	tmpl := renderPatchWith(t, ch, map[string]any{"mode": "sidecar", "sidecar": map[string]any{"podSelector": sidecarSelector}})
	dcs := c.dyn.Resource(cassDCResource).Namespace(ns)
	for i, state := range dcStates {
		for j, acct := range dcAccounts {
			t.Run(state.name+"/account "+acct.name, func(t *testing.T) {
				dc := datacenter(t, state, acct.yaml)
				u := &unstructured.Unstructured{Object: dc}
				u.SetNamespace(ns)
				u.SetName("dc" + string(rune('a'+i)) + string(rune('a'+j)))
				created, err := dcs.Create(ctx, u, metav1.CreateOptions{FieldManager: fieldManager})
				if err != nil {
					t.Fatalf("create: %v", err)
				}
				patch, err := printPatch(tmpl, created.Object)
				if err != nil {
					t.Fatal(err)
				}
				opts := metav1.PatchOptions{FieldManager: fieldManager, FieldValidation: "Strict"}
				patched, err := dcs.Patch(ctx, u.GetName(), types.JSONPatchType, patch, opts)
				if acct.yaml != "" {
					if err == nil {
						t.Fatalf("patch admitted over the datacenter's own account:\n%s", patch)
					}
					now, gerr := dcs.Get(ctx, u.GetName(), metav1.GetOptions{})
					if gerr != nil || !reflect.DeepEqual(now.Object["spec"], created.Object["spec"]) {
						t.Errorf("the refused patch changed the datacenter (%v)", gerr)
					}
					return
				}
				if err != nil {
					t.Fatalf("patch refused: %v\n%s", err, patch)
				}
				want, err := applyPatch(created.Object, patch)
				if err != nil {
					t.Fatal(err)
				}
				if !sameJSON(t, patched.Object["spec"], want["spec"]) {
					t.Errorf("the API server's result differs from the model's:\n%v\n%v", patched.Object["spec"], want["spec"])
				}
				again, err := printPatch(tmpl, patched.Object)
				if err != nil {
					t.Fatal(err)
				}
				twice, err := dcs.Patch(ctx, u.GetName(), types.JSONPatchType, again, opts)
				if err != nil {
					t.Fatalf("second patch refused: %v\n%s", err, again)
				}
				if !sameJSON(t, twice.Object["spec"], patched.Object["spec"]) {
					t.Errorf("the second patch changed the datacenter")
				}
				if _, err := dcs.Patch(ctx, u.GetName(), types.JSONPatchType, patch, opts); err == nil {
					t.Errorf("the first patch was admitted again:\n%s", patch)
				}
			})
		}
	}
}

func sameJSON(t *testing.T, a, b any) bool {
	t.Helper()
	ja, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	jb, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	var x, y any
	json.Unmarshal(ja, &x)
	json.Unmarshal(jb, &y)
	return reflect.DeepEqual(x, y)
}
