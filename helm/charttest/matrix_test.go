package charttest

// Case is one set of values of the matrix, with what the chart must do
// with them.
type Case struct {
	Name   string
	Values map[string]any
	// What the rendering must show.
	Mode       string // sidecar, statefulset, daemonset
	Live       bool   // snapshotMode live: a read-only mount, uid 65532
	MountPath  string // where Cassandra's volume is mounted
	VolumeName string // Cassandra's volume
	DataDir    string // --data-dir
	CassUID    int64  // the owner of Cassandra's files
	TLS        bool
	Discovery  bool
}

// sidecarSelector are cass-operator's labels of a datacenter's pods.
var sidecarSelector = map[string]any{
	"cassandra.datastax.com/cluster":    "demo",
	"cassandra.datastax.com/datacenter": "dc1",
}

var bitnamiSelector = map[string]any{
	"app.kubernetes.io/name":     "cassandra",
	"app.kubernetes.io/instance": "cassandra",
}

// Matrix is every mode with the values that change what is rendered.
var Matrix = []Case{
	{Name: "statefulset", Values: map[string]any{}, Mode: "statefulset", MountPath: "/var/lib/cassandra", VolumeName: "data", CassUID: 999, Discovery: true},
	{Name: "statefulset-live", Values: map[string]any{"snapshotMode": "live"}, Mode: "statefulset", Live: true, MountPath: "/var/lib/cassandra", VolumeName: "data", CassUID: 999, Discovery: true},
	{Name: "statefulset-secure", Values: map[string]any{
		"tls":            map[string]any{"enabled": true, "existingSecret": "sstf-tls", "clientCA": true},
		"auth":           map[string]any{"existingSecret": "sstf-token"},
		"cassandra":      map[string]any{"auth": map[string]any{"user": "reader", "existingSecret": "cql"}},
		"ticketKey":      map[string]any{"existingSecret": "keys"},
		"metrics":        map[string]any{"open": true, "podMonitor": map[string]any{"enabled": false}, "serviceMonitor": map[string]any{"enabled": true, "labels": map[string]any{"release": "kps"}}},
		"networkPolicy":  map[string]any{"enabled": true, "flightFrom": []any{map[string]any{"podSelector": map[string]any{"matchLabels": map[string]any{"app": "trino"}}}}},
		"image":          map[string]any{"digest": "sha256:" + sixtyFourHex},
		"server":         map[string]any{"maxStreams": 8, "extraArgs": []any{"--snapshot-window=5s"}},
		"statefulset":    map[string]any{"replicas": 1},
		"serviceAccount": map[string]any{"annotations": map[string]any{"a": "b"}},
	}, Mode: "statefulset", MountPath: "/var/lib/cassandra", VolumeName: "data", CassUID: 999, TLS: true, Discovery: true},
	{Name: "daemonset", Values: map[string]any{"mode": "daemonset"}, Mode: "daemonset", MountPath: "/var/lib/cassandra", VolumeName: "data", CassUID: 999, Discovery: true},
	{Name: "daemonset-live-custom", Values: map[string]any{
		"mode": "daemonset", "snapshotMode": "live",
		"daemonset":     map[string]any{"hostPath": "/srv/cassandra", "hostNetwork": false},
		"cassandra":     map[string]any{"uid": 1500, "gid": 1600},
		"networkPolicy": map[string]any{"enabled": true},
		"nodeSelector":  map[string]any{"cassandra": "yes"},
	}, Mode: "daemonset", Live: true, MountPath: "/srv/cassandra", VolumeName: "data", CassUID: 1500, Discovery: true},
	{Name: "sidecar-cass-operator", Values: map[string]any{"mode": "sidecar", "sidecar": map[string]any{"podSelector": sidecarSelector}},
		Mode: "sidecar", MountPath: "/var/lib/cassandra", VolumeName: "server-data", CassUID: 999, Discovery: true},
	{Name: "sidecar-cass-operator-live", Values: map[string]any{"mode": "sidecar", "snapshotMode": "live", "sidecar": map[string]any{"podSelector": sidecarSelector},
		"metrics": map[string]any{"podMonitor": map[string]any{"labels": map[string]any{"release": "kube-prometheus-stack"}}}},
		Mode: "sidecar", Live: true, MountPath: "/var/lib/cassandra", VolumeName: "server-data", CassUID: 999, Discovery: true},
	{Name: "sidecar-bitnami", Values: map[string]any{"mode": "sidecar", "sidecar": map[string]any{"target": "bitnami", "podSelector": bitnamiSelector}},
		Mode: "sidecar", MountPath: "/bitnami/cassandra", VolumeName: "data", DataDir: "/bitnami/cassandra/data/data", CassUID: 1001, Discovery: true},
	{Name: "sidecar-bitnami-live-netpol", Values: map[string]any{"mode": "sidecar", "snapshotMode": "live", "sidecar": map[string]any{"target": "bitnami", "podSelector": bitnamiSelector},
		"networkPolicy":  map[string]any{"enabled": true, "metricsFrom": []any{map[string]any{"namespaceSelector": map[string]any{"matchLabels": map[string]any{"kubernetes.io/metadata.name": "monitoring"}}}}},
		"serviceAccount": map[string]any{"create": false, "name": "cassandra"}},
		Mode: "sidecar", Live: true, MountPath: "/bitnami/cassandra", VolumeName: "data", DataDir: "/bitnami/cassandra/data/data", CassUID: 1001, Discovery: true},
	{Name: "statefulset-no-discovery", Values: map[string]any{"discovery": map[string]any{"enabled": false}, "grafana": map[string]any{"dashboard": map[string]any{"enabled": false}}},
		Mode: "statefulset", MountPath: "/var/lib/cassandra", VolumeName: "data", CassUID: 999},
}

const sixtyFourHex = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
