package cassandratest

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strconv"
)

// NodeTool runs Cassandra's own org.apache.cassandra.tools.NodeTool against
// the node over local JMX and returns its standard output.
func (n *Node) NodeTool(ctx context.Context, args ...string) ([]byte, error) {
	full := append([]string{"-h", Host, "-p", strconv.Itoa(n.JMXPort)}, args...)
	return n.runTool(ctx, "org.apache.cassandra.tools.NodeTool", full...)
}

// Flush writes the memtables of the keyspace (or of the named tables) to
// new SSTables.
func (n *Node) Flush(ctx context.Context, keyspace string, tables ...string) error {
	_, err := n.NodeTool(ctx, append([]string{"flush", keyspace}, tables...)...)
	return err
}

// Compact runs a major compaction of the keyspace (or of the named tables).
func (n *Node) Compact(ctx context.Context, keyspace string, tables ...string) error {
	_, err := n.NodeTool(ctx, append([]string{"compact", keyspace}, tables...)...)
	return err
}

// DisableAutoCompaction keeps every flush as its own SSTable generation.
func (n *Node) DisableAutoCompaction(ctx context.Context, keyspace string, tables ...string) error {
	_, err := n.NodeTool(ctx, append([]string{"disableautocompaction", keyspace}, tables...)...)
	return err
}

// SSTableDump runs Cassandra's sstabledump (org.apache.cassandra.tools.
// SSTableExport) on one Data.db and returns its JSON output unchanged.
func (n *Node) SSTableDump(ctx context.Context, dataFile string, args ...string) ([]byte, error) {
	return n.runTool(ctx, "org.apache.cassandra.tools.SSTableExport", append([]string{dataFile}, args...)...)
}

// SSTableMetadata runs Cassandra's sstablemetadata (org.apache.cassandra.
// tools.SSTableMetadataViewer) on one Data.db and returns its report.
func (n *Node) SSTableMetadata(ctx context.Context, dataFile string) ([]byte, error) {
	return n.runTool(ctx, "org.apache.cassandra.tools.SSTableMetadataViewer", dataFile)
}

func (n *Node) runTool(ctx context.Context, class string, args ...string) ([]byte, error) {
	jargs := append([]string{"-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"}, toolArgs(n.rt, n.Dir)...)
	jargs = append(jargs, class)
	jargs = append(jargs, args...)
	cmd := exec.CommandContext(ctx, n.rt.Java, jargs...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("run %s %v: %w\n%s%s", class, args, err, tail(stdout.String(), 20), tail(stderr.String(), 20))
	}
	return stdout.Bytes(), nil
}
