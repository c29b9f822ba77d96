package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/sstable-flight/sstable-flight/deploy/image/cassandra"
)

// settings are what the environment says of the node, resolved as
// docker-entrypoint.sh resolves them. An empty field leaves the shipped
// file's line as it is.
type settings struct {
	listen, broadcast, rpc, broadcastRPC string
	seeds                                string
	clusterName, numTokens, snitch       string
	dc, rack                             string
}

// lookupFunc is os.LookupEnv: set-but-empty and unset differ, as in the
// official script's ${VAR=default} (unset only) and ${VAR:=default}
// (unset or empty).
type lookupFunc func(string) (string, bool)

// readSettings applies the official script's defaults: rpc_address
// 0.0.0.0 (clients anywhere), listen_address "auto" (the container's own
// address, from ownIP), broadcast_address the listen address,
// broadcast_rpc_address the broadcast address, seeds the broadcast
// address (a lone node seeds itself).
func readSettings(lookup lookupFunc, ownIP func() (string, error)) (settings, error) {
	orUnset := func(name, def string) string {
		if v, ok := lookup(name); ok {
			return v
		}
		return def
	}
	orEmpty := func(name, def string) string {
		if v, _ := lookup(name); v != "" {
			return v
		}
		return def
	}
	auto := func(name, v string) (string, error) {
		if v != "auto" {
			return v, nil
		}
		ip, err := ownIP()
		if err != nil {
			return "", fmt.Errorf("%s=auto: %w", name, err)
		}
		return ip, nil
	}
	var s settings
	var err error
	s.rpc = orUnset("CASSANDRA_RPC_ADDRESS", "0.0.0.0")
	if s.listen, err = auto("CASSANDRA_LISTEN_ADDRESS", orUnset("CASSANDRA_LISTEN_ADDRESS", "auto")); err != nil {
		return settings{}, err
	}
	if s.broadcast, err = auto("CASSANDRA_BROADCAST_ADDRESS", orUnset("CASSANDRA_BROADCAST_ADDRESS", s.listen)); err != nil {
		return settings{}, err
	}
	s.broadcastRPC = orEmpty("CASSANDRA_BROADCAST_RPC_ADDRESS", s.broadcast)
	s.seeds = orEmpty("CASSANDRA_SEEDS", s.broadcast)
	s.clusterName = orUnset("CASSANDRA_CLUSTER_NAME", "")
	s.numTokens = orUnset("CASSANDRA_NUM_TOKENS", "")
	s.snitch = orUnset("CASSANDRA_ENDPOINT_SNITCH", "")
	s.dc = orUnset("CASSANDRA_DC", "")
	s.rack = orUnset("CASSANDRA_RACK", "")
	return s, nil
}

// yamlKeys are the cassandra.yaml keys the settings set, in the order
// the official script sets them.
func (s settings) yamlKeys() [][2]string {
	return [][2]string{
		{"broadcast_address", s.broadcast},
		{"broadcast_rpc_address", s.broadcastRPC},
		{"cluster_name", s.clusterName},
		{"endpoint_snitch", s.snitch},
		{"listen_address", s.listen},
		{"num_tokens", s.numTokens},
		{"rpc_address", s.rpc},
	}
}

// String is the start-up line's summary.
func (s settings) String() string {
	parts := []string{"seeds " + s.seeds}
	for _, kv := range s.yamlKeys() {
		if kv[1] != "" {
			parts = append(parts, kv[0]+" "+kv[1])
		}
	}
	if s.dc != "" || s.rack != "" {
		parts = append(parts, "dc "+s.dc+" rack "+s.rack)
	}
	return strings.Join(parts, ", ")
}

// writeConfig rewrites cassandra.yaml and cassandra-rackdc.properties in
// dir. Each file is written in place (truncated, not replaced), so a
// file bind-mounted over the shipped one is rewritten too, and only when
// its text changes, so a read-only one the settings agree with is fine.
func (s settings) writeConfig(dir string) error {
	err := rewriteFile(filepath.Join(dir, cassandra.YAMLFile), func(text string) (string, error) {
		text, err := setSeeds(text, s.seeds)
		if err != nil {
			return "", err
		}
		for _, kv := range s.yamlKeys() {
			if kv[1] != "" {
				text = setYAMLKey(text, kv[0], kv[1])
			}
		}
		return text, nil
	})
	if err != nil {
		return err
	}
	return rewriteFile(filepath.Join(dir, cassandra.RackDCFile), func(text string) (string, error) {
		for _, kv := range [][2]string{{"dc", s.dc}, {"rack", s.rack}} {
			if kv[1] != "" {
				text = setProperty(text, kv[0], kv[1])
			}
		}
		return text, nil
	})
}

// rewriteFile applies edit to the file at path.
func rewriteFile(path string, edit func(string) (string, error)) error {
	old, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	text, err := edit(string(old))
	if err != nil {
		return fmt.Errorf("rewrite %s: %w", path, err)
	}
	if text == string(old) {
		return nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return fmt.Errorf("rewrite %s: %w", path, err)
	}
	_, err = f.WriteString(text)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("rewrite %s: %w", path, err)
	}
	return nil
}
