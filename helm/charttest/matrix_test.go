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
	// Flags the server must get with these values; Files the flags whose
	// file must be this key of this Secret ("secret/key"); Absent flags
	// it must not get.
	Flags  map[string]string
	Files  map[string]string
	Absent []string
}

// noCQLAuth are the flags of CQL credentials and TLS, absent without them.
var noCQLAuth = []string{"--cassandra-user", "--cassandra-user-file", "--cassandra-password-file", "--cassandra-tls", "--cassandra-tls-ca", "--cassandra-tls-cert", "--cassandra-tls-key", "--cassandra-tls-server-name"}

// sidecarSelector is the selector of cass-operator's Services of the
// datacenter dc1 of cluster demo (kubectl get svc
// demo-dc1-all-pods-service -o jsonpath='{.spec.selector}').
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
	{Name: "statefulset", Values: map[string]any{}, Mode: "statefulset", MountPath: "/var/lib/cassandra", VolumeName: "data", CassUID: 999, Discovery: true, Absent: noCQLAuth},
	{Name: "statefulset-live", Values: map[string]any{"snapshotMode": "live"}, Mode: "statefulset", Live: true, MountPath: "/var/lib/cassandra", VolumeName: "data", CassUID: 999, Discovery: true},
	{Name: "statefulset-secure", Values: map[string]any{
		"tls":            map[string]any{"enabled": true, "existingSecret": "sstf-tls", "clientCA": true},
		"auth":           map[string]any{"existingSecret": "sstf-token"},
		"cassandra":      map[string]any{"auth": map[string]any{"user": "reader", "existingSecret": "cql"}},
		"ticketKey":      map[string]any{"existingSecret": "keys"},
		"metrics":        map[string]any{"open": true, "podMonitor": map[string]any{"enabled": false}, "serviceMonitor": map[string]any{"enabled": true, "labels": map[string]any{"release": "kps"}}},
		"networkPolicy":  map[string]any{"enabled": true, "flightFrom": []any{map[string]any{"podSelector": map[string]any{"matchLabels": map[string]any{"app": "trino"}}}}},
		"image":          map[string]any{"digest": "sha256:" + sixtyFourHex},
		"server":         map[string]any{"maxStreams": 8, "extraArgs": []any{"--snapshot-window=5s"}, "resources": map[string]any{"limits": map[string]any{"cpu": "2"}}},
		"statefulset":    map[string]any{"replicas": 1},
		"serviceAccount": map[string]any{"annotations": map[string]any{"a": "b"}},
	}, Mode: "statefulset", MountPath: "/var/lib/cassandra", VolumeName: "data", CassUID: 999, TLS: true, Discovery: true,
		Flags: map[string]string{"--cassandra-user": "reader"}, Files: map[string]string{"--cassandra-password-file": "cql/password"},
		Absent: []string{"--cassandra-user-file", "--cassandra-tls"}},
	{Name: "daemonset", Values: map[string]any{"mode": "daemonset"}, Mode: "daemonset", MountPath: "/var/lib/cassandra", VolumeName: "data", CassUID: 999, Discovery: true},
	{Name: "daemonset-live-custom", Values: map[string]any{
		"mode": "daemonset", "snapshotMode": "live",
		"daemonset":     map[string]any{"hostPath": "/srv/cassandra", "hostNetwork": false},
		"cassandra":     map[string]any{"uid": 1500, "gid": 1600, "host": "127.0.0.1", "cqlPort": 19042},
		"networkPolicy": map[string]any{"enabled": true},
		"nodeSelector":  map[string]any{"cassandra": "yes"},
	}, Mode: "daemonset", Live: true, MountPath: "/srv/cassandra", VolumeName: "data", CassUID: 1500, Discovery: true,
		Flags: map[string]string{"--cassandra": "127.0.0.1:19042"}},
	// cass-operator's superuser Secret (username, password) and CQL TLS
	// material as cert-manager writes it.
	{Name: "sidecar-cass-operator", Values: map[string]any{"mode": "sidecar", "sidecar": map[string]any{"podSelector": sidecarSelector},
		"cassandra": map[string]any{
			"auth": map[string]any{"existingSecret": "demo-superuser"},
			"tls":  map[string]any{"enabled": true, "existingSecret": "demo-cql-client", "certKey": "tls.crt", "keyKey": "tls.key", "serverName": "demo-dc1-service.sstf-chart.svc"},
		}},
		Mode: "sidecar", MountPath: "/var/lib/cassandra", VolumeName: "server-data", CassUID: 999, Discovery: true,
		Flags: map[string]string{"--cassandra-tls": "", "--cassandra-tls-server-name": "demo-dc1-service.sstf-chart.svc"},
		Files: map[string]string{
			"--cassandra-user-file": "demo-superuser/username", "--cassandra-password-file": "demo-superuser/password",
			"--cassandra-tls-ca": "demo-cql-client/ca.crt", "--cassandra-tls-cert": "demo-cql-client/tls.crt", "--cassandra-tls-key": "demo-cql-client/tls.key",
		},
		Absent: []string{"--cassandra-user"}},
	{Name: "sidecar-cass-operator-live", Values: map[string]any{"mode": "sidecar", "snapshotMode": "live", "sidecar": map[string]any{"podSelector": sidecarSelector},
		"metrics": map[string]any{"podMonitor": map[string]any{"labels": map[string]any{"release": "kps"}}}},
		Mode: "sidecar", Live: true, MountPath: "/var/lib/cassandra", VolumeName: "server-data", CassUID: 999, Discovery: true, Absent: noCQLAuth},
	// mTLS and a token on the server, Prometheus showing both; the
	// datacenter keeps its account, which the chart binds; our policy
	// beside cass-operator's ports.
	{Name: "sidecar-cass-operator-secure", Values: map[string]any{"mode": "sidecar", "sidecar": map[string]any{"podSelector": sidecarSelector},
		"tls":            map[string]any{"enabled": true, "existingSecret": "sstf-tls", "clientCA": true},
		"auth":           map[string]any{"existingSecret": "sstf-token"},
		"metrics":        map[string]any{"scrape": map[string]any{"clientCertSecret": "prometheus-client"}, "podMonitor": map[string]any{"labels": map[string]any{"release": "kps"}}},
		"serviceAccount": map[string]any{"create": false, "name": "default"},
		"networkPolicy": map[string]any{"enabled": true,
			"flightFrom":  []any{map[string]any{"podSelector": map[string]any{"matchLabels": map[string]any{"app": "trino"}}}},
			"metricsFrom": []any{map[string]any{"namespaceSelector": map[string]any{"matchLabels": map[string]any{"kubernetes.io/metadata.name": "monitoring"}}}}},
	}, Mode: "sidecar", MountPath: "/var/lib/cassandra", VolumeName: "server-data", CassUID: 999, TLS: true, Discovery: true},
	{Name: "sidecar-k8ssandra", Values: map[string]any{"mode": "sidecar", "sidecar": map[string]any{"target": "k8ssandra", "podSelector": sidecarSelector},
		"cassandra":     map[string]any{"auth": map[string]any{"existingSecret": "demo-superuser"}},
		"networkPolicy": map[string]any{"enabled": true}},
		Mode: "sidecar", MountPath: "/var/lib/cassandra", VolumeName: "server-data", CassUID: 999, Discovery: true,
		Files: map[string]string{"--cassandra-user-file": "demo-superuser/username", "--cassandra-password-file": "demo-superuser/password"}},
	// Bitnami's Secret (key cassandra-password, user cassandra) and its
	// generated certificate, which names the Service, not the pod.
	{Name: "sidecar-bitnami", Values: map[string]any{"mode": "sidecar", "sidecar": map[string]any{"target": "bitnami", "podSelector": bitnamiSelector},
		"cassandra": map[string]any{
			"auth": map[string]any{"existingSecret": bitnamiSecret.name},
			"tls":  map[string]any{"enabled": true, "existingSecret": bitnamiTLSSecret, "serverName": bitnamiRelease + ".sstf-chart.svc.cluster.local"},
		}},
		Mode: "sidecar", MountPath: "/bitnami/cassandra", VolumeName: "data", DataDir: "/bitnami/cassandra/data/data", CassUID: 1001, Discovery: true,
		Flags:  map[string]string{"--cassandra-user": bitnamiSecret.user, "--cassandra-tls": "", "--cassandra-tls-server-name": bitnamiRelease + ".sstf-chart.svc.cluster.local"},
		Files:  map[string]string{"--cassandra-password-file": bitnamiSecret.name + "/" + bitnamiSecret.passwordKey, "--cassandra-tls-ca": bitnamiTLSSecret + "/ca.crt"},
		Absent: []string{"--cassandra-user-file", "--cassandra-tls-cert", "--cassandra-tls-key"}},
	{Name: "sidecar-bitnami-live-netpol", Values: map[string]any{"mode": "sidecar", "snapshotMode": "live", "sidecar": map[string]any{"target": "bitnami", "podSelector": bitnamiSelector},
		"networkPolicy":  map[string]any{"enabled": true, "metricsFrom": []any{map[string]any{"namespaceSelector": map[string]any{"matchLabels": map[string]any{"kubernetes.io/metadata.name": "monitoring"}}}}},
		"serviceAccount": map[string]any{"create": false, "name": bitnamiRelease}},
		Mode: "sidecar", Live: true, MountPath: "/bitnami/cassandra", VolumeName: "data", DataDir: "/bitnami/cassandra/data/data", CassUID: 1001, Discovery: true, Absent: noCQLAuth},
	{Name: "statefulset-no-discovery", Values: map[string]any{"discovery": map[string]any{"enabled": false}, "grafana": map[string]any{"dashboard": map[string]any{"enabled": false}}},
		Mode: "statefulset", MountPath: "/var/lib/cassandra", VolumeName: "data", CassUID: 999},
}

const sixtyFourHex = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
