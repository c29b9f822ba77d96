package cassandratest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/sstable-flight/sstable-flight/internal/cassandrajvm"
)

// ports are the loopback ports one node listens on.
type ports struct {
	CQL, Storage, JMX int
}

// nodeConfig is what differs between the nodes the harness writes
// configuration for.
type nodeConfig struct {
	Dir  string
	Mode Mode
	// Host is the node's listen and RPC address.
	Host  string
	Ports ports
	// Cluster is the cluster_name; nodes of one cluster share it, and a
	// node refuses to gossip with another cluster's.
	Cluster string
	// Seed is the host:port of the seed node (the node itself when
	// alone).
	Seed string
	// Ring, when set, makes the node one of a multi-node cluster: vnodes,
	// and its DC and rack through GossipingPropertyFileSnitch.
	Ring *ringConfig
	// Auth and TLS turn on authentication and TLS on the CQL port
	// (security.go).
	Auth bool
	TLS  *TLSFiles
	// ExtraYAML is Options.ExtraYAML: cassandra.yaml lines written last,
	// each of its top-level keys replacing the template's (overrideYAML).
	ExtraYAML string
}

// ringConfig is a cluster node's place on the ring.
type ringConfig struct {
	NumTokens int
	DC, Rack  string
}

// singleCluster is the cluster_name of a lone test node.
const singleCluster = "sstable-flight-test"

// writeConfig writes cassandra.yaml and logback.xml (and, for a cluster
// node, cassandra-rackdc.properties) for one node into c.Dir/conf and
// creates its data directories.
func writeConfig(c nodeConfig) error {
	dir, mode := c.Dir, c.Mode
	for _, sub := range []string{"conf", "data", "commitlog", "saved_caches", "hints", "cdc_raw", "logs"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			return fmt.Errorf("create node dir: %w", err)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, `# Written by internal/testkit/cassandratest for one throw-away test node.
cluster_name: %[5]s
partitioner: org.apache.cassandra.dht.Murmur3Partitioner
data_file_directories: [%[1]s/data]
commitlog_directory: %[1]s/commitlog
saved_caches_directory: %[1]s/saved_caches
hints_directory: %[1]s/hints
cdc_raw_directory: %[1]s/cdc_raw
commitlog_sync: periodic
commitlog_sync_period: 10000ms
seed_provider:
  - class_name: org.apache.cassandra.locator.SimpleSeedProvider
    parameters:
      - seeds: "%[6]s"
listen_address: %[4]s
rpc_address: %[4]s
storage_port: %[2]d
native_transport_port: %[3]d
start_native_transport: true
auto_snapshot: false
concurrent_compactors: 1
# Small row-index blocks so modest partitions already get Index.db IndexInfo
# entries (BIG) and multi-block Rows.db entries (BTI).
column_index_size: 4KiB
# Flush with each table's own compressor. The default (fast) flushes tables
# whose compressor is slow (Deflate, Zstd) with LZ4, and the corpus must
# hold real Deflate and Zstd chunks.
flush_compression: table
# Bulk writers (bench data) send unlogged batches of ~100 rows.
batch_size_warn_threshold: 64KiB
# Tests read right after writing; no need to keep a tombstone-heavy read
# from failing the query.
tombstone_failure_threshold: 1000000
`, dir, c.Ports.Storage, c.Ports.CQL, c.Host, c.Cluster, c.Seed)
	if c.Ring == nil {
		b.WriteString("num_tokens: 1\ninitial_token: 0\nendpoint_snitch: SimpleSnitch\n")
	} else {
		fmt.Fprintf(&b, `num_tokens: %d
# Tokens balanced for RF 2 rather than random, so every node owns about as
# much and a scan spread over the nodes' servers is even.
allocate_tokens_for_local_replication_factor: 2
endpoint_snitch: GossipingPropertyFileSnitch
# Three JVMs share two cores with the tests: a node starved for a few
# seconds is slow, not dead, and requests wait for it.
phi_convict_threshold: 12
read_request_timeout: 20s
range_request_timeout: 30s
write_request_timeout: 20s
counter_write_request_timeout: 20s
request_timeout: 30s
`, c.Ring.NumTokens)
		props := fmt.Sprintf("# Written by internal/testkit/cassandratest.\ndc=%s\nrack=%s\n", c.Ring.DC, c.Ring.Rack)
		if err := os.WriteFile(filepath.Join(dir, "conf", rackDCFile), []byte(props), 0o644); err != nil {
			return fmt.Errorf("write %s: %w", rackDCFile, err)
		}
	}
	storage, err := mode.storageYAML()
	if err != nil {
		return fmt.Errorf("write cassandra.yaml: %w", err)
	}
	b.WriteString(storage)
	b.WriteString(securityYAML(c.Auth, c.TLS))
	yaml := overrideYAML(b.String(), c.ExtraYAML)
	if err := os.WriteFile(filepath.Join(dir, "conf", "cassandra.yaml"), []byte(yaml), 0o644); err != nil {
		return fmt.Errorf("write cassandra.yaml: %w", err)
	}
	logback := `<configuration>
  <appender name="FILE" class="ch.qos.logback.core.FileAppender">
    <file>${cassandra.logdir}/system.log</file>
    <encoder><pattern>%-5level [%thread] %date{ISO8601} %F:%L - %msg%n</pattern></encoder>
  </appender>
  <root level="INFO"><appender-ref ref="FILE"/></root>
</configuration>
`
	if err := os.WriteFile(filepath.Join(dir, "conf", "logback.xml"), []byte(logback), 0o644); err != nil {
		return fmt.Errorf("write logback.xml: %w", err)
	}
	return nil
}

// rackDCFile is GossipingPropertyFileSnitch's file of the node's DC and
// rack; the JVM property of the same name points at it.
const rackDCFile = "cassandra-rackdc.properties"

// toolArgs are the JVM arguments shared by the daemon and the offline tools
// (NodeTool, SSTableExport): module openings, logging into the node's log
// directory, and the node's own configuration.
func toolArgs(rt Runtime, dir string) []string {
	args := cassandrajvm.JDK17Modules()
	return append(args,
		"-Dcassandra.config=file://"+filepath.Join(dir, "conf", "cassandra.yaml"),
		"-D"+rackDCFile+"=file://"+filepath.Join(dir, "conf", rackDCFile),
		"-Dlogback.configurationFile=file://"+filepath.Join(dir, "conf", "logback.xml"),
		"-Dcassandra.logdir="+filepath.Join(dir, "logs"),
		"-Dcassandra.storagedir="+dir,
		"-cp", rt.Classpath,
	)
}

// overrideYAML appends extra to the cassandra.yaml in base, first dropping
// from base every top-level key extra sets (with its indented lines), so
// that a node's own settings (commitlog_sync, say) replace the template's
// rather than repeat a key, which a YAML loader may refuse or resolve
// either way.
func overrideYAML(base, extra string) string {
	if extra == "" {
		return base
	}
	keys := map[string]bool{}
	for line := range strings.Lines(extra) {
		if k, ok := topLevelKey(line); ok {
			keys[k] = true
		}
	}
	var b strings.Builder
	dropping := false
	for line := range strings.Lines(base) {
		if k, ok := topLevelKey(line); ok {
			dropping = keys[k]
		} else if line != "" && line[0] != ' ' && line[0] != '-' {
			dropping = false // a comment or a blank line ends a dropped block
		}
		if !dropping {
			b.WriteString(line)
		}
	}
	b.WriteString("# Options.ExtraYAML\n")
	b.WriteString(extra)
	if !strings.HasSuffix(extra, "\n") {
		b.WriteString("\n")
	}
	return b.String()
}

// topLevelKey is the key of a line "key: ..." that starts in column 0.
func topLevelKey(line string) (string, bool) {
	if line == "" || line[0] == ' ' || line[0] == '#' || line[0] == '-' {
		return "", false
	}
	k, _, ok := strings.Cut(line, ":")
	return strings.TrimSpace(k), ok
}
