package charttest

import (
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/lint"
	"helm.sh/helm/v3/pkg/lint/support"
)

// TestSchemaRejects asserts values.schema.json (or, where a schema cannot
// say it, the templates) refuses values the chart cannot honour, naming
// the value.
func TestSchemaRejects(t *testing.T) {
	ch, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		values map[string]any
		want   string // in the error
	}{
		{"unknown mode", map[string]any{"mode": "deployment"}, "mode"},
		{"unknown snapshot mode", map[string]any{"snapshotMode": "copy"}, "snapshotMode"},
		{"unknown top-level key", map[string]any{"replicas": 3}, "replicas"},
		{"unknown nested key", map[string]any{"server": map[string]any{"port": 8815}}, "port"},
		{"port zero", map[string]any{"server": map[string]any{"flightPort": 0}}, "flightPort"},
		{"port too big", map[string]any{"server": map[string]any{"metricsPort": 70000}}, "metricsPort"},
		{"root uid", map[string]any{"server": map[string]any{"runAsUser": 0}}, "runAsUser"},
		{"root cassandra uid", map[string]any{"cassandra": map[string]any{"uid": 0}}, "uid"},
		{"port as string", map[string]any{"server": map[string]any{"flightPort": "8815"}}, "flightPort"},
		{"pull policy", map[string]any{"image": map[string]any{"pullPolicy": "Sometimes"}}, "pullPolicy"},
		{"log level", map[string]any{"server": map[string]any{"logLevel": "verbose"}}, "logLevel"},
		{"arg without dashes", map[string]any{"server": map[string]any{"extraArgs": []any{"data-dir=/x"}}}, "extraArgs"},
		{"sidecar without selector", map[string]any{"mode": "sidecar"}, "podSelector"},
		{"sidecar target", map[string]any{"mode": "sidecar", "sidecar": map[string]any{"target": "helm", "podSelector": sidecarSelector}}, "target"},
		{"tls without secret", map[string]any{"tls": map[string]any{"enabled": true}}, "existingSecret"},
		{"label not a string", map[string]any{"metrics": map[string]any{"podMonitor": map[string]any{"labels": map[string]any{"release": 1}}}}, "release"},
		{"relative host path", map[string]any{"mode": "daemonset", "daemonset": map[string]any{"hostPath": "var/lib/cassandra"}}, "hostPath"},
		{"bad digest", map[string]any{"image": map[string]any{"digest": "latest"}}, "digest"},
		{"no replicas", map[string]any{"statefulset": map[string]any{"replicas": 0}}, "replicas"},
		{"existing account unnamed", map[string]any{"serviceAccount": map[string]any{"create": false}}, "serviceAccount.name"},
		{"CQL user and user key", map[string]any{"cassandra": map[string]any{"auth": map[string]any{"user": "a", "usernameKey": "b"}}}, "auth"},
		{"CQL TLS without secret", map[string]any{"cassandra": map[string]any{"tls": map[string]any{"enabled": true}}}, "cassandra.tls.existingSecret"},
		{"CQL client certificate without key", map[string]any{"cassandra": map[string]any{"tls": map[string]any{"enabled": true, "existingSecret": "x", "certKey": "tls.crt"}}}, "keyKey"},
		{"CQL client key without certificate", map[string]any{"cassandra": map[string]any{"tls": map[string]any{"enabled": true, "existingSecret": "x", "keyKey": "tls.key"}}}, "certKey"},
		{"Secret key with a slash", map[string]any{"cassandra": map[string]any{"auth": map[string]any{"passwordKey": "a/b"}}}, "passwordKey"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Render(ch, c.values)
			if err == nil {
				t.Fatalf("values %v accepted", c.values)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error does not name %q: %v", c.want, err)
			}
		})
	}
}

// TestLint runs Helm's linter over every mode of the matrix: no warning,
// no error.
func TestLint(t *testing.T) {
	kv := &chartutil.KubeVersion{Version: "v1.34.0", Major: "1", Minor: "34"}
	for _, c := range Matrix {
		t.Run(c.Name, func(t *testing.T) {
			l := lint.AllWithKubeVersion(ChartDir(), c.Values, Namespace, kv)
			for _, m := range l.Messages {
				if m.Severity >= support.WarningSev {
					t.Errorf("lint: %s", m)
				}
			}
		})
	}
}
