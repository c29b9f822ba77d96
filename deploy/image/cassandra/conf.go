package cassandra

import (
	"fmt"
	"strings"
)

// The files the image ships in Conf and /etc. The entrypoint rewrites
// cassandra.yaml's and cassandra-rackdc.properties' lines from the
// environment at every start, as the official image's entrypoint does;
// every key it may set is present here, commented where Cassandra's
// default applies, so the rewrite finds its line.

// ConfFiles are the files of Conf, by name, as shipped. The entrypoint
// writes one that is missing from its configuration directory, so that
// the directory may be an empty volume (a pod whose root filesystem is
// read-only mounts one there, as cass-operator's pods do).
func ConfFiles() map[string]string {
	return map[string]string{
		YAMLFile:         YAML(),
		RackDCFile:       RackDC,
		LogbackFile:      Logback,
		LogbackToolsFile: LogbackTools,
	}
}

// YAML is the shipped cassandra.yaml: one node that listens on
// localhost until the entrypoint says otherwise, its directories under
// Data, and authentication on. The default superuser cassandra/cassandra
// is created by Cassandra itself on the first start of a cluster with
// PasswordAuthenticator (CassandraRoleManager's setup).
func YAML() string {
	var b strings.Builder
	fmt.Fprintf(&b, `# cassandra.yaml of the sstable-flight test image (deploy/image/cassandra).
# The entrypoint rewrites cluster_name, num_tokens, listen_address,
# broadcast_address, rpc_address, broadcast_rpc_address, endpoint_snitch
# and the seeds from CASSANDRA_* variables at every start.
cluster_name: 'Test Cluster'
num_tokens: 16
allocate_tokens_for_local_replication_factor: 3
partitioner: org.apache.cassandra.dht.Murmur3Partitioner

authenticator:
  class_name: org.apache.cassandra.auth.PasswordAuthenticator
authorizer:
  class_name: org.apache.cassandra.auth.CassandraAuthorizer
role_manager:
  class_name: org.apache.cassandra.auth.CassandraRoleManager
network_authorizer:
  class_name: org.apache.cassandra.auth.AllowAllNetworkAuthorizer

data_file_directories:
  - %[1]s/data
commitlog_directory: %[1]s/commitlog
hints_directory: %[1]s/hints
saved_caches_directory: %[1]s/saved_caches
cdc_raw_directory: %[1]s/cdc_raw

commitlog_sync: periodic
commitlog_sync_period: 10000ms

seed_provider:
  - class_name: org.apache.cassandra.locator.SimpleSeedProvider
    parameters:
      - seeds: "127.0.0.1:%[2]d"

listen_address: localhost
# broadcast_address: 1.2.3.4
rpc_address: localhost
# broadcast_rpc_address: 1.2.3.4
storage_port: %[2]d
ssl_storage_port: %[3]d
native_transport_port: %[4]d
start_native_transport: true

endpoint_snitch: SimpleSnitch
`, Data, StoragePort, SSLStoragePort, CQLPort)
	return b.String()
}

// RackDC is the shipped cassandra-rackdc.properties, which
// GossipingPropertyFileSnitch reads: Cassandra's own defaults, rewritten
// from CASSANDRA_DC and CASSANDRA_RACK.
const RackDC = "# cassandra-rackdc.properties of the sstable-flight test image.\ndc=dc1\nrack=rack1\n"

// Logback is the daemon's logback.xml: INFO to stdout only, where a
// container runtime collects it (the distribution's also writes
// system.log and debug.log files; nothing reads them in a pod).
const Logback = `<configuration scan="false">
  <appender name="STDOUT" class="ch.qos.logback.core.ConsoleAppender">
    <encoder><pattern>%-5level [%thread] %date{ISO8601} %F:%L - %msg%n</pattern></encoder>
  </appender>
  <root level="INFO"><appender-ref ref="STDOUT"/></root>
</configuration>
`

// LogbackTools is nodetool's logback-tools.xml: warnings to stderr, so
// its stdout holds only its answer.
const LogbackTools = `<configuration scan="false">
  <appender name="STDERR" class="ch.qos.logback.core.ConsoleAppender">
    <target>System.err</target>
    <encoder><pattern>%-5level %date{ISO8601} %msg%n</pattern></encoder>
  </appender>
  <root level="WARN"><appender-ref ref="STDERR"/></root>
</configuration>
`

// Passwd and Group hold root and the cassandra user, as the official
// image's useradd makes it (a system user whose home is not created
// there; here it is, for nodetool's history file).
func Passwd() string {
	return fmt.Sprintf("root:x:0:0:root:/root:/sbin/nologin\n%s:x:%d:%d::%s:/sbin/nologin\n", UserName, UID, GID, UserHome)
}

// Group is /etc/group.
func Group() string {
	return fmt.Sprintf("root:x:0:\n%s:x:%d:\n", UserName, GID)
}

// NSSwitch is /etc/nsswitch.conf: users and hosts from files, hosts
// then from DNS (the seeds of a StatefulSet are DNS names). glibc has
// had both sources built in since 2.34, so no libnss module is needed.
const NSSwitch = "passwd: files\ngroup: files\nshadow: files\nhosts: files dns\n"
