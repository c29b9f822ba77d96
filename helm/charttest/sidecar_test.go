package charttest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"text/template"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	"helm.sh/helm/v3/pkg/chart"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"sigs.k8s.io/yaml"
)

// The sidecar snippets, merged the way docs/kubernetes.md says into what
// each operator reads, and checked against that operator's rules
// (cassoperator_rules_test.go, k8ssandra_rules_test.go,
// bitnami_rules_test.go).

// sidecarConfigMap gives the rendered ConfigMap of the snippets.
func sidecarConfigMap(t *testing.T, r *Rendering) *corev1.ConfigMap {
	t.Helper()
	for _, cm := range objectsOf[*corev1.ConfigMap](r) {
		if cm.Name == fullname+"-sidecar" {
			return cm
		}
	}
	t.Fatal("no sidecar ConfigMap")
	return nil
}

// sidecarParts decodes container.yaml and volumes.yaml strictly: the
// container and volumes every target's snippet must carry unchanged.
func sidecarParts(t *testing.T, cm *corev1.ConfigMap) (corev1.Container, []corev1.Volume) {
	t.Helper()
	var container corev1.Container
	var volumes []corev1.Volume
	if err := DecodeYAMLStrict(cm.Data["container.yaml"], &container); err != nil {
		t.Fatalf("container.yaml: %v\n%s", err, cm.Data["container.yaml"])
	}
	if err := DecodeYAMLStrict(cm.Data["volumes.yaml"], &volumes); err != nil {
		t.Fatalf("volumes.yaml: %v", err)
	}
	return container, volumes
}

// sidecarKeys are the ConfigMap's keys per target.
var sidecarKeys = map[string][]string{
	"cass-operator": {"cass-operator-patch.tmpl", "container.yaml", "volumes.yaml"},
	"k8ssandra":     {"container.yaml", "k8ssandra-datacenter.yaml", "volumes.yaml"},
	"bitnami":       {"bitnami-values.yaml", "container.yaml", "volumes.yaml"},
}

// sidecarPods gives the pods the case's operator makes once its snippet
// is merged in, with the labels the operator gives them.
func sidecarPods(t *testing.T, c Case, cm *corev1.ConfigMap) []pod {
	t.Helper()
	var keys []string
	for k := range cm.Data {
		keys = append(keys, k)
	}
	target := sidecarTarget(c)
	if !sameSet(keys, sidecarKeys[target]) {
		t.Errorf("sidecar ConfigMap keys %v, want %v", keys, sidecarKeys[target])
	}
	container, volumes := sidecarParts(t, cm)
	var labels map[string]string
	var spec corev1.PodSpec
	switch target {
	case "bitnami":
		labels, spec = bitnamiPod(bitnamiValuesOf(t, cm))
	case "k8ssandra":
		dc, err := mergeK8ssandraSnippet(k8ssandraDC(t, ""), k8ssandraSnippetOf(t, cm))
		if err != nil {
			t.Fatal(err)
		}
		labels, spec = cassOperatorPod(k8ssandraCassandraDatacenter("demo", dc, true), "r1")
	default:
		dc := patchDatacenter(t, cm.Data["cass-operator-patch.tmpl"], datacenter(t, dcStates[0], ""))
		labels, spec = cassOperatorPod(decodeDC(t, dc), "r1")
	}
	if i := slicesIndex(spec.Containers, serverName); i < 0 || !reflect.DeepEqual(spec.Containers[i], container) {
		t.Errorf("%s: the pod's container %s differs from container.yaml", target, serverName)
	}
	for _, v := range volumes {
		if !slicesContainsEqual(spec.Volumes, v) {
			t.Errorf("%s: the pod lacks volume %s of volumes.yaml", target, v.Name)
		}
	}
	checkOperatorPod(t, target, spec)
	return []pod{{where: target, labels: labels, spec: spec, operator: target}}
}

// checkOperatorPod asserts what makes the merged pod valid whatever the
// operator: unique container and volume names (a template volume of an
// operator's name would replace the operator's), every mount a volume of
// the pod, no port number bound twice (the containers share the pod's
// network), and the Service's port names on the server's container only.
func checkOperatorPod(t *testing.T, where string, spec corev1.PodSpec) {
	t.Helper()
	vols := map[string]int{}
	for _, v := range spec.Volumes {
		vols[v.Name]++
	}
	for n, k := range vols {
		if k > 1 {
			t.Errorf("%s: volume %s %d times", where, n, k)
		}
	}
	ports := map[int32]string{}
	for _, ct := range append(append([]corev1.Container{}, spec.InitContainers...), spec.Containers...) {
		for _, m := range ct.VolumeMounts {
			if vols[m.Name] == 0 {
				t.Errorf("%s: container %s mounts %s, no volume of the pod", where, ct.Name, m.Name)
			}
		}
	}
	names := map[string]int{}
	for _, ct := range spec.Containers {
		names[ct.Name]++
		for _, p := range ct.Ports {
			if other, ok := ports[p.ContainerPort]; ok {
				t.Errorf("%s: port %d in containers %s and %s", where, p.ContainerPort, other, ct.Name)
			}
			ports[p.ContainerPort] = ct.Name
			if (p.Name == "flight" || p.Name == metricsPort) && ct.Name != serverName {
				t.Errorf("%s: container %s has port name %s, which the chart's Service targets", where, ct.Name, p.Name)
			}
		}
	}
	for n, k := range names {
		if k > 1 {
			t.Errorf("%s: container %s %d times", where, n, k)
		}
	}
}

func slicesContainsEqual(vs []corev1.Volume, v corev1.Volume) bool {
	for _, x := range vs {
		if reflect.DeepEqual(x, v) {
			return true
		}
	}
	return false
}

func sameSet(a, b []string) bool {
	m := map[string]int{}
	for _, x := range a {
		m[x]++
	}
	for _, x := range b {
		m[x]--
	}
	for _, n := range m {
		if n != 0 {
			return false
		}
	}
	return true
}

// ---- cass-operator

// dcBase is a CassandraDatacenter as cass-operator's documentation
// writes one.
const dcBase = `
apiVersion: cassandra.datastax.com/v1beta1
kind: CassandraDatacenter
metadata: {name: dc1, namespace: sstf-chart}
spec:
  clusterName: demo
  serverType: cassandra
  serverVersion: 5.0.5
  size: 3
  storageConfig:
    cassandraDataVolumeClaimSpec:
      accessModes: [ReadWriteOnce]
      resources: {requests: {storage: 10Gi}}
  racks: [{name: r1}]
`

// dcStates are the states spec.podTemplateSpec can be in, each of which
// the printed patch must handle without touching what is there.
var dcStates = []struct{ name, podTemplateSpec string }{
	{"no podTemplateSpec", ``},
	{"podTemplateSpec without spec", `{metadata: {labels: {team: data}}}`},
	{"no containers", `{spec: {containers: []}}`},
	{"containers, no volumes", `{spec: {containers: [{name: cassandra, resources: {limits: {memory: 8Gi}}}]}}`},
	{"containers and volumes", `{spec: {containers: [{name: cassandra, resources: {limits: {memory: 8Gi}}}, {name: log-shipper, image: busybox}], volumes: [{name: shipper-config, configMap: {name: shipper}}]}}`},
}

// dcAccounts are the accounts a datacenter can name.
var dcAccounts = []struct{ name, yaml string }{
	{"none", ``},
	{"serviceAccountName", `{serviceAccountName: backups}`},
	{"deprecated serviceAccount", `{serviceAccount: legacy}`},
}

// datacenter gives dcBase in a state of dcStates with an account of
// dcAccounts (its yaml), as the JSON object kubectl hands its template.
func datacenter(t *testing.T, state struct{ name, podTemplateSpec string }, account string) map[string]any {
	t.Helper()
	var dc map[string]any
	if err := yaml.Unmarshal([]byte(dcBase), &dc); err != nil {
		t.Fatal(err)
	}
	spec := dc["spec"].(map[string]any)
	if state.podTemplateSpec != "" {
		var pts map[string]any
		if err := yaml.Unmarshal([]byte(state.podTemplateSpec), &pts); err != nil {
			t.Fatal(err)
		}
		spec["podTemplateSpec"] = pts
	}
	if account != "" {
		var a map[string]any
		if err := yaml.Unmarshal([]byte(account), &a); err != nil {
			t.Fatal(err)
		}
		for k, v := range a {
			spec[k] = v
		}
	}
	return dc
}

// printPatch runs the chart's cass-operator-patch.tmpl on a datacenter as
// kubectl get -o go-template-file does: Go's text/template over the
// object as JSON values, missing keys allowed (kubectl's default).
func printPatch(tmpl string, dc map[string]any) ([]byte, error) {
	tp, err := template.New("output").Option("missingkey=default").Parse(tmpl)
	if err != nil {
		return nil, fmt.Errorf("parse the patch template: %w", err)
	}
	var b bytes.Buffer
	if err := tp.Execute(&b, dc); err != nil {
		return nil, fmt.Errorf("run the patch template: %w", err)
	}
	return b.Bytes(), nil
}

// jsonPatchOp is an operation as the API server decodes it with kubectl's
// default --validate=strict (k8s.io/apiserver, endpoints/handlers/patch.go):
// no other member.
type jsonPatchOp struct {
	Op    string `json:"op"`
	Path  string `json:"path"`
	From  string `json:"from"`
	Value any    `json:"value"`
}

// applyPatch applies a JSON patch as the API server does (its patch
// handler decodes and applies with gopkg.in/evanphx/json-patch.v4), then
// the CRD's list-map rule (a name twice is refused).
func applyPatch(dc map[string]any, patch []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(patch))
	dec.DisallowUnknownFields()
	var ops []jsonPatchOp
	if err := dec.Decode(&ops); err != nil {
		return nil, fmt.Errorf("decode the patch: %w\n%s", err, patch)
	}
	p, err := jsonpatch.DecodePatch(patch)
	if err != nil {
		return nil, err
	}
	doc, err := json.Marshal(dc)
	if err != nil {
		return nil, err
	}
	out, err := p.Apply(doc)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(out, &m); err != nil {
		return nil, err
	}
	var typed cassDC
	if err := json.Unmarshal(out, &typed); err != nil {
		return nil, err
	}
	if err := cassOperatorListMaps(typed); err != nil {
		return nil, err
	}
	return m, nil
}

// patchDatacenter prints the patch for dc and applies it, failing the
// test if either fails.
func patchDatacenter(t *testing.T, tmpl string, dc map[string]any) map[string]any {
	t.Helper()
	patch, err := printPatch(tmpl, dc)
	if err != nil {
		t.Fatal(err)
	}
	out, err := applyPatch(dc, patch)
	if err != nil {
		t.Fatalf("patch refused: %v\n%s", err, patch)
	}
	return out
}

// decodeDC decodes a datacenter strictly into cassDC: a field the
// patch added that CassandraDatacenterSpec (or a PodTemplateSpec) lacks
// fails.
func decodeDC(t *testing.T, dc map[string]any) cassDC {
	t.Helper()
	b, err := json.Marshal(dc)
	if err != nil {
		t.Fatal(err)
	}
	var out cassDC
	if err := yaml.UnmarshalStrict(b, &out); err != nil {
		t.Fatalf("the patched datacenter: %v\n%s", err, b)
	}
	return out
}

// TestCassOperatorPatch prints the patch for every state of a datacenter
// and every account it may name, applies it as the API server does, and
// holds the result to cass-operator's rules: the webhook admits the
// update, nothing the datacenter had is lost or reordered, the container
// and volumes appear once, the account changes only where the datacenter
// named none, and the pod the operator then makes is sound. A second
// print after an upgrade replaces the entries in place, and a patch
// printed for an old state is refused.
func TestCassOperatorPatch(t *testing.T) {
	ch, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	base := map[string]any{"mode": "sidecar", "sidecar": map[string]any{"podSelector": sidecarSelector},
		"cassandra": map[string]any{"auth": map[string]any{"existingSecret": "demo-superuser"}}}
	variants := []struct {
		name    string
		values  map[string]any
		account string // the account the chart moves the pods to, or none
	}{
		{"chart's account", base, fullname},
		{"existing account", merged(base, map[string]any{"serviceAccount": map[string]any{"create": false, "name": "default"}}), ""},
		{"no discovery", merged(base, map[string]any{"discovery": map[string]any{"enabled": false}}), ""},
	}
	for _, v := range variants {
		r, err := Render(ch, v.values)
		if err != nil {
			t.Fatalf("%s: %v", v.name, err)
		}
		cm := sidecarConfigMap(t, r)
		tmpl := cm.Data["cass-operator-patch.tmpl"]
		container, volumes := sidecarParts(t, cm)
		upgraded := renderPatchWith(t, ch, merged(v.values, map[string]any{"image": map[string]any{"tag": "9.9.9"}}))
		for _, state := range dcStates {
			for _, acct := range dcAccounts {
				name := v.name + "/" + state.name + "/account " + acct.name
				t.Run(name, func(t *testing.T) {
					old := datacenter(t, state, acct.yaml)
					patch, err := printPatch(tmpl, old)
					if err != nil {
						t.Fatal(err)
					}
					got, err := applyPatch(old, patch)
					if v.account != "" && acct.yaml != "" {
						// The datacenter names its own account: refused,
						// nothing changed (the doc says what to do).
						if err == nil {
							t.Fatalf("patch admitted over the datacenter's own account:\n%s", patch)
						}
						return
					}
					if err != nil {
						t.Fatalf("patch refused: %v\n%s", err, patch)
					}
					checkPatched(t, decodeDC(t, old), decodeDC(t, got), container, volumes, v.account)
					// Printed again, the patch changes nothing.
					again := patchDatacenter(t, tmpl, got)
					if !reflect.DeepEqual(again, got) {
						t.Errorf("a second patch changed the datacenter")
					}
					// After an upgrade it replaces the container in place.
					up := patchDatacenter(t, upgraded, got)
					upDC := decodeDC(t, up)
					cs := upDC.Spec.PodTemplateSpec.Spec.Containers
					if i := slicesIndex(cs, serverName); i < 0 || !strings.HasSuffix(cs[i].Image, ":9.9.9") || len(cs) != len(decodeDC(t, got).Spec.PodTemplateSpec.Spec.Containers) {
						t.Errorf("upgrade: containers %v", namesOf(cs, func(c corev1.Container) string { return c.Name + "=" + c.Image }))
					}
					// The first patch, printed for the old state, is
					// refused now: a stale patch changes nothing.
					if _, err := applyPatch(got, patch); err == nil {
						t.Errorf("the patch printed before was admitted again:\n%s", patch)
					}
					labels, spec := cassOperatorPod(decodeDC(t, got), "r1")
					checkOperatorPod(t, name, spec)
					if !selectsAll(cassOperatorServiceSelector(decodeDC(t, got)), labels) {
						t.Errorf("the datacenter's Service selector does not select its pods")
					}
					// serviceAccountName wins over the deprecated field.
					wantSA := v.account
					if o := decodeDC(t, old).Spec; wantSA == "" {
						wantSA = o.ServiceAccountName
						if wantSA == "" {
							wantSA = o.DeprecatedServiceAccount
						}
					}
					if spec.ServiceAccountName != wantSA {
						t.Errorf("pods run as %q, want %q", spec.ServiceAccountName, wantSA)
					}
				})
			}
		}
	}
}

// renderPatchWith renders the chart and gives its patch template.
func renderPatchWith(t *testing.T, ch *chart.Chart, values map[string]any) string {
	t.Helper()
	r, err := Render(ch, values)
	if err != nil {
		t.Fatal(err)
	}
	return sidecarConfigMap(t, r).Data["cass-operator-patch.tmpl"]
}

// checkPatched holds a patched datacenter to the rules: the webhook
// admits the update; the containers and volumes the datacenter had are
// there, unchanged and in order, followed by the chart's, once; the
// account is set only to account, and only where none was; nothing else
// changed.
func checkPatched(t *testing.T, old, got cassDC, container corev1.Container, volumes []corev1.Volume, account string) {
	t.Helper()
	if err := cassOperatorValidateUpdate(old, got); err != nil {
		t.Errorf("cass-operator's webhook: %v", err)
	}
	var oldSpec corev1.PodSpec
	if old.Spec.PodTemplateSpec != nil {
		oldSpec = old.Spec.PodTemplateSpec.Spec
	}
	gotSpec := got.Spec.PodTemplateSpec.Spec
	wantContainers := append(append([]corev1.Container{}, oldSpec.Containers...), container)
	if !reflect.DeepEqual(gotSpec.Containers, wantContainers) {
		t.Errorf("containers %v, want %v", namesOf(gotSpec.Containers, func(c corev1.Container) string { return c.Name }), namesOf(wantContainers, func(c corev1.Container) string { return c.Name }))
	}
	wantVolumes := append(append([]corev1.Volume{}, oldSpec.Volumes...), volumes...)
	if !reflect.DeepEqual(gotSpec.Volumes, wantVolumes) {
		t.Errorf("volumes %v, want %v", namesOf(gotSpec.Volumes, func(v corev1.Volume) string { return v.Name }), namesOf(wantVolumes, func(v corev1.Volume) string { return v.Name }))
	}
	wantSA := old.Spec.ServiceAccountName
	if account != "" {
		wantSA = account
	}
	if got.Spec.ServiceAccountName != wantSA || got.Spec.DeprecatedServiceAccount != old.Spec.DeprecatedServiceAccount {
		t.Errorf("account %q (deprecated %q), want %q (%q)", got.Spec.ServiceAccountName, got.Spec.DeprecatedServiceAccount, wantSA, old.Spec.DeprecatedServiceAccount)
	}
	// The rest is untouched.
	rest := got
	rest.Spec.ServiceAccountName = old.Spec.ServiceAccountName
	pts := *got.Spec.PodTemplateSpec.DeepCopy()
	pts.Spec.Containers, pts.Spec.Volumes = oldSpec.Containers, oldSpec.Volumes
	rest.Spec.PodTemplateSpec = &pts
	if old.Spec.PodTemplateSpec == nil && reflect.DeepEqual(pts, corev1.PodTemplateSpec{}) {
		rest.Spec.PodTemplateSpec = nil
	}
	if !reflect.DeepEqual(rest, old) {
		t.Errorf("the patch changed more than the lists and the account:\n%+v\n%+v", rest.Spec, old.Spec)
	}
}

func selectsAll(sel, labels map[string]string) bool {
	for k, v := range sel {
		if labels[k] != v {
			return false
		}
	}
	return len(sel) > 0
}

// merged is a copy of a with b's keys over it, maps merged deeply.
func merged(a, b map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		if am, ok := out[k].(map[string]any); ok {
			if bm, ok := v.(map[string]any); ok {
				out[k] = merged(am, bm)
				continue
			}
		}
		out[k] = v
	}
	return out
}

// TestCassOperatorTemplateSafe asserts a value that kubectl's template
// engine would read as a template is refused at render.
func TestCassOperatorTemplateSafe(t *testing.T) {
	ch, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, target := range []string{"cass-operator", "bitnami"} {
		_, err := Render(ch, map[string]any{"mode": "sidecar", "sidecar": map[string]any{"target": target, "podSelector": sidecarSelector},
			"server": map[string]any{"extraArgs": []any{"--log-level={{.spec}}"}}})
		if err == nil || !strings.Contains(err.Error(), "{{") {
			t.Errorf("%s: a value with {{ rendered: %v", target, err)
		}
	}
}

// ---- K8ssandra

// k8ssandraDC is a datacenter entry of a K8ssandraCluster as K8ssandra's
// documentation writes one, with extra (yaml fields) over it.
func k8ssandraDC(t *testing.T, extra string) k8ssandraDatacenter {
	t.Helper()
	doc := "{metadata: {name: dc1}, size: 3, serverVersion: 5.0.5, storageConfig: {cassandraDataVolumeClaimSpec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 10Gi}}}}}"
	var m map[string]any
	if err := yaml.Unmarshal([]byte(doc), &m); err != nil {
		t.Fatal(err)
	}
	if extra != "" {
		var e map[string]any
		if err := yaml.Unmarshal([]byte(extra), &e); err != nil {
			t.Fatal(err)
		}
		m = merged(m, e)
	}
	b, _ := json.Marshal(m)
	var dc k8ssandraDatacenter
	if err := yaml.UnmarshalStrict(b, &dc); err != nil {
		t.Fatalf("datacenter entry: %v", err)
	}
	return dc
}

// k8ssandraSnippetOf decodes k8ssandra-datacenter.yaml strictly as
// fields of a datacenter entry.
func k8ssandraSnippetOf(t *testing.T, cm *corev1.ConfigMap) k8ssandraSnippet {
	t.Helper()
	doc := cm.Data["k8ssandra-datacenter.yaml"]
	var asEntry k8ssandraDatacenter
	if err := DecodeYAMLStrict(doc, &asEntry); err != nil {
		t.Fatalf("k8ssandra-datacenter.yaml is not a datacenter entry's fields: %v\n%s", err, doc)
	}
	var s k8ssandraSnippet
	if err := DecodeYAMLStrict(doc, &s); err != nil {
		t.Fatalf("k8ssandra-datacenter.yaml: %v", err)
	}
	return s
}

// TestK8ssandraSnippet merges the snippet into datacenter entries as the
// docs say and follows them through K8ssandra's and cass-operator's
// rules to the pod; the field the old docs named, podTemplateSpec, is no
// field of an entry.
func TestK8ssandraSnippet(t *testing.T) {
	ch, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	var stale k8ssandraDatacenter
	if err := DecodeYAMLStrict("{podTemplateSpec: {spec: {containers: []}}}", &stale); err == nil {
		t.Error("podTemplateSpec decoded as a field of a K8ssandraCluster datacenter")
	}
	base := map[string]any{"mode": "sidecar", "sidecar": map[string]any{"target": "k8ssandra", "podSelector": sidecarSelector}}
	for _, v := range []struct {
		name, dc string
		values   map[string]any
		account  string // the pods' account, "" for the operator's default
		refused  bool
	}{
		{"bare datacenter", "", base, fullname, false},
		{"datacenter with containers and volumes", "{containers: [{name: cassandra, resources: {limits: {memory: 8Gi}}}], extraVolumes: {volumes: [{name: shipper-config, configMap: {name: shipper}}]}}", base, fullname, false},
		{"datacenter with its account", "{serviceAccount: medusa-backups}", base, "", true},
		{"datacenter with its account, chart binds it", "{serviceAccount: medusa-backups}", merged(base, map[string]any{"serviceAccount": map[string]any{"create": false, "name": "medusa-backups"}}), "medusa-backups", false},
	} {
		t.Run(v.name, func(t *testing.T) {
			r, err := Render(ch, v.values)
			if err != nil {
				t.Fatal(err)
			}
			cm := sidecarConfigMap(t, r)
			container, volumes := sidecarParts(t, cm)
			s := k8ssandraSnippetOf(t, cm)
			if len(s.Containers) != 1 || !reflect.DeepEqual(s.Containers[0], container) || !reflect.DeepEqual(s.ExtraVolumes.Volumes, volumes) {
				t.Errorf("the snippet differs from container.yaml and volumes.yaml")
			}
			old := k8ssandraDC(t, v.dc)
			dc, err := mergeK8ssandraSnippet(old, s)
			if v.refused {
				if err == nil {
					t.Fatal("merged over the datacenter's own account")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(old.Containers) > 0 && !reflect.DeepEqual(dc.Containers[:len(old.Containers)], old.Containers) {
				t.Errorf("the datacenter's containers changed")
			}
			cdc := k8ssandraCassandraDatacenter("demo", dc, true)
			if err := cassOperatorListMaps(cdc); err != nil {
				t.Error(err)
			}
			labels, spec := cassOperatorPod(cdc, "r1")
			checkOperatorPod(t, v.name, spec)
			if spec.ServiceAccountName != v.account {
				t.Errorf("pods run as %q, want %q", spec.ServiceAccountName, v.account)
			}
			if !selectsAll(cassOperatorServiceSelector(cdc), labels) {
				t.Errorf("the datacenter's Service selector does not select its pods")
			}
		})
	}
}

// ---- Bitnami

// bitnamiValuesOf decodes bitnami-values.yaml strictly as values of
// Bitnami's chart, and checks it carries container.yaml and volumes.yaml
// unchanged.
func bitnamiValuesOf(t *testing.T, cm *corev1.ConfigMap) bitnamiValues {
	t.Helper()
	var v bitnamiValues
	if err := DecodeYAMLStrict(cm.Data["bitnami-values.yaml"], &v); err != nil {
		t.Fatalf("bitnami-values.yaml: %v\n%s", err, cm.Data["bitnami-values.yaml"])
	}
	container, volumes := sidecarParts(t, cm)
	if len(v.Sidecars) != 1 || !reflect.DeepEqual(v.Sidecars[0], container) || !reflect.DeepEqual(v.ExtraVolumes, volumes) {
		t.Errorf("bitnami values differ from container.yaml and volumes.yaml")
	}
	return v
}

// TestBitnamiValues holds bitnami-values.yaml to Bitnami's chart: its own
// NetworkPolicy, on by default, admits only Cassandra's ports, so the
// values' extraIngress must let Trino, the peers and Prometheus reach the
// server (and nothing else, when flightFrom and metricsFrom say who),
// while Cassandra's ports stay as Bitnami opens them; the account moves
// only when the chart makes one.
func TestBitnamiValues(t *testing.T) {
	ch, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	trino := source{name: "trino", ns: Namespace, labels: map[string]string{"app": "trino"}}
	peer := source{name: "peer", ns: Namespace, labels: bitnamiPodLabels()}
	prometheus := source{name: "prometheus", ns: "monitoring", nsLabels: map[string]string{"kubernetes.io/metadata.name": "monitoring"},
		labels: map[string]string{"app.kubernetes.io/name": "prometheus"}}
	stranger := source{name: "stranger", ns: Namespace, labels: map[string]string{"app": "x"}}
	flight := corev1.ContainerPort{Name: "flight", ContainerPort: flightPort}
	metrics := corev1.ContainerPort{Name: metricsPort, ContainerPort: 9102}
	cql := corev1.ContainerPort{Name: "cql", ContainerPort: 9042}

	// The finding: without extraIngress Bitnami's policy cuts the server.
	bare := []networkingv1.NetworkPolicy{bitnamiNetworkPolicy(bitnamiValues{})}
	if admits(t, bare, Namespace, bitnamiPodLabels(), flight, trino) {
		t.Fatal("Bitnami's own policy admits Flight: the model lost the reason for extraIngress")
	}

	base := map[string]any{"mode": "sidecar", "sidecar": map[string]any{"target": "bitnami", "podSelector": bitnamiSelector}}
	type want struct {
		from source
		port corev1.ContainerPort
		ok   bool
	}
	for _, v := range []struct {
		name    string
		values  map[string]any
		account string
		want    []want
	}{
		{"open", base, fullname, []want{
			{trino, flight, true}, {peer, flight, true}, {stranger, flight, true},
			{prometheus, metrics, true}, {stranger, metrics, true}, {stranger, cql, true},
		}},
		{"limited", merged(base, map[string]any{
			"networkPolicy": map[string]any{
				"flightFrom":  []any{map[string]any{"podSelector": map[string]any{"matchLabels": map[string]any{"app": "trino"}}}},
				"metricsFrom": []any{map[string]any{"namespaceSelector": map[string]any{"matchLabels": map[string]any{"kubernetes.io/metadata.name": "monitoring"}}}},
			},
			"serviceAccount": map[string]any{"create": false, "name": bitnamiRelease},
		}), bitnamiRelease, []want{
			{trino, flight, true}, {peer, flight, true}, {stranger, flight, false}, {prometheus, flight, false},
			{prometheus, metrics, true}, {stranger, metrics, false}, {stranger, cql, true},
		}},
	} {
		t.Run(v.name, func(t *testing.T) {
			r, err := Render(ch, v.values)
			if err != nil {
				t.Fatal(err)
			}
			vals := bitnamiValuesOf(t, sidecarConfigMap(t, r))
			labels, spec := bitnamiPod(vals)
			checkOperatorPod(t, v.name, spec)
			if spec.ServiceAccountName != v.account {
				t.Errorf("pods run as %q, want %q", spec.ServiceAccountName, v.account)
			}
			policies := []networkingv1.NetworkPolicy{bitnamiNetworkPolicy(vals)}
			for _, w := range v.want {
				if got := admits(t, policies, Namespace, labels, w.port, w.from); got != w.ok {
					t.Errorf("%s to port %d: admitted %v, want %v", w.from.name, w.port.ContainerPort, got, w.ok)
				}
			}
		})
	}
}
