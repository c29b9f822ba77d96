package cassandra

import "strconv"

// Paths of the image, those of the official image.
const (
	Home     = "/opt/cassandra"    // CASSANDRA_HOME
	Lib      = Home + "/lib"       // Cassandra's jars
	Conf     = "/etc/cassandra"    // CASSANDRA_CONF, writable by the user
	JavaHome = "/opt/java/openjdk" // JAVA_HOME: the jlinked runtime
	Java     = JavaHome + "/bin/java"
	Data     = "/var/lib/cassandra" // the data volume
	Logs     = "/var/log/cassandra" // cassandra.logdir (logs go to stdout)
	UserHome = "/home/cassandra"    // the user's home: nodetool's history
	Tmp      = "/tmp"
)

// Entrypoint is the static Go binary the image starts; Nodetool is a
// symlink to it on PATH, which runs Cassandra's NodeTool when invoked by
// that name (the chart's preStop hook runs `nodetool drain`).
const (
	Entrypoint = "/usr/local/bin/cassandra-entrypoint"
	Nodetool   = "/usr/local/bin/nodetool"
)

// DataDirs are Cassandra's directories under Data, owned by the user in
// the image (a fresh volume mounted over Data gets them from Cassandra,
// which creates what is missing).
var DataDirs = []string{"data", "commitlog", "hints", "saved_caches", "cdc_raw"}

// The user Cassandra runs as: the official image's numbers.
const (
	UserName = "cassandra"
	UID      = 999
	GID      = 999
)

// User is the image config's User, numeric so a runtime needs no
// /etc/passwd lookup to know it is not root (Kubernetes' runAsNonRoot).
func User() string { return strconv.Itoa(UID) + ":" + strconv.Itoa(GID) }

// Ports Cassandra listens on: gossip, gossip over TLS, JMX (loopback
// only) and CQL.
const (
	StoragePort    = 7000
	SSLStoragePort = 7001
	JMXPort        = 7199
	CQLPort        = 9042
)

// ExposedPorts are the image config's ExposedPorts keys.
func ExposedPorts() []string {
	var out []string
	for _, p := range []int{StoragePort, SSLStoragePort, JMXPort, CQLPort} {
		out = append(out, strconv.Itoa(p)+"/tcp")
	}
	return out
}

// Files of Conf.
const (
	YAMLFile         = "cassandra.yaml"
	RackDCFile       = "cassandra-rackdc.properties"
	LogbackFile      = "logback.xml"       // the daemon's: stdout
	LogbackToolsFile = "logback-tools.xml" // nodetool's: warnings to stderr
)

// Env is the image config's environment, the official image's names.
func Env() []string {
	return []string{
		"PATH=" + JavaHome + "/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
		"JAVA_HOME=" + JavaHome,
		"CASSANDRA_HOME=" + Home,
		"CASSANDRA_CONF=" + Conf,
	}
}
