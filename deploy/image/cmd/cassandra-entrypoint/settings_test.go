package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sstable-flight/sstable-flight/deploy/image/cassandra"
)

func envOf(kv map[string]string) lookupFunc {
	return func(k string) (string, bool) {
		v, ok := kv[k]
		return v, ok
	}
}

func fixedIP(ip string) func() (string, error) {
	return func() (string, error) { return ip, nil }
}

// The official script's defaults: everything from "auto", rpc on all
// addresses, seeds the node itself.
func TestSettingsDefaults(t *testing.T) {
	s, err := readSettings(envOf(nil), fixedIP("10.0.0.7"))
	if err != nil {
		t.Fatal(err)
	}
	want := settings{listen: "10.0.0.7", broadcast: "10.0.0.7", rpc: "0.0.0.0", broadcastRPC: "10.0.0.7", seeds: "10.0.0.7"}
	if s != want {
		t.Errorf("settings %+v, want %+v", s, want)
	}
}

// The chart's variables: the listen address given, the seeds by name;
// the broadcast addresses follow the listen address.
func TestSettingsChart(t *testing.T) {
	env := map[string]string{
		"CASSANDRA_LISTEN_ADDRESS": "10.88.0.5", "CASSANDRA_SEEDS": "a-0.a.ns.svc,a-1.a.ns.svc",
		"CASSANDRA_CLUSTER_NAME": "demo", "CASSANDRA_DC": "dc1", "CASSANDRA_RACK": "r1",
		"CASSANDRA_ENDPOINT_SNITCH": "GossipingPropertyFileSnitch", "CASSANDRA_NUM_TOKENS": "4",
	}
	noIP := func() (string, error) { return "", errors.New("auto must not be needed") }
	s, err := readSettings(envOf(env), noIP)
	if err != nil {
		t.Fatal(err)
	}
	want := settings{listen: "10.88.0.5", broadcast: "10.88.0.5", rpc: "0.0.0.0", broadcastRPC: "10.88.0.5",
		seeds: "a-0.a.ns.svc,a-1.a.ns.svc", clusterName: "demo", numTokens: "4", snitch: "GossipingPropertyFileSnitch", dc: "dc1", rack: "r1"}
	if s != want {
		t.Errorf("settings %+v, want %+v", s, want)
	}
}

// ${VAR=default} versus ${VAR:=default}: an empty RPC address stays
// empty (the shipped line is kept), empty seeds take the default.
func TestSettingsEmptyVersusUnset(t *testing.T) {
	env := map[string]string{"CASSANDRA_RPC_ADDRESS": "", "CASSANDRA_SEEDS": "", "CASSANDRA_BROADCAST_ADDRESS": "auto", "CASSANDRA_LISTEN_ADDRESS": "127.0.0.9"}
	s, err := readSettings(envOf(env), fixedIP("10.1.1.1"))
	if err != nil {
		t.Fatal(err)
	}
	if s.rpc != "" || s.seeds != "10.1.1.1" || s.broadcast != "10.1.1.1" || s.listen != "127.0.0.9" {
		t.Errorf("settings %+v: want rpc empty, broadcast and seeds 10.1.1.1 (auto), listen 127.0.0.9", s)
	}
}

func TestSettingsAutoFails(t *testing.T) {
	_, err := readSettings(envOf(nil), func() (string, error) { return "", errors.New("no address") })
	if err == nil || !strings.Contains(err.Error(), "CASSANDRA_LISTEN_ADDRESS=auto") {
		t.Errorf("auto without an address: %v, want an error naming CASSANDRA_LISTEN_ADDRESS", err)
	}
}

// writeConfig over the shipped files: every variable lands on its line,
// commented defaults are switched on, the rest is kept.
func TestWriteConfig(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{cassandra.YAMLFile: cassandra.YAML(), cassandra.RackDCFile: cassandra.RackDC} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := settings{listen: "10.88.0.5", broadcast: "10.88.0.5", rpc: "0.0.0.0", broadcastRPC: "10.88.0.5",
		seeds: "a-0.a.ns.svc", clusterName: "my cluster", numTokens: "4", snitch: "GossipingPropertyFileSnitch", dc: "dc2", rack: "r9"}
	if err := s.writeConfig(dir); err != nil {
		t.Fatal(err)
	}
	yaml, _ := os.ReadFile(filepath.Join(dir, cassandra.YAMLFile))
	for _, want := range []string{
		"\nlisten_address: 10.88.0.5\n", "\nbroadcast_address: 10.88.0.5\n", "\nrpc_address: 0.0.0.0\n",
		"\nbroadcast_rpc_address: 10.88.0.5\n", "      - seeds: \"a-0.a.ns.svc\"\n", "\ncluster_name: my cluster\n",
		"\nnum_tokens: 4\n", "\nendpoint_snitch: GossipingPropertyFileSnitch\n",
		"class_name: org.apache.cassandra.auth.PasswordAuthenticator\n",
	} {
		if !strings.Contains(string(yaml), want) {
			t.Errorf("cassandra.yaml lacks %q:\n%s", want, yaml)
		}
	}
	if strings.Contains(string(yaml), "# broadcast_address:") {
		t.Errorf("cassandra.yaml still has the commented broadcast_address:\n%s", yaml)
	}
	props, _ := os.ReadFile(filepath.Join(dir, cassandra.RackDCFile))
	if !strings.Contains(string(props), "\ndc=dc2\n") || !strings.Contains(string(props), "\nrack=r9\n") {
		t.Errorf("cassandra-rackdc.properties:\n%s", props)
	}
	// A second start with the same settings changes nothing, so a
	// read-only file they agree with is fine.
	for _, name := range []string{cassandra.YAMLFile, cassandra.RackDCFile} {
		if err := os.Chmod(filepath.Join(dir, name), 0o444); err != nil {
			t.Fatal(err)
		}
	}
	if os.Geteuid() != 0 { // root writes read-only files anyway
		if err := s.writeConfig(dir); err != nil {
			t.Errorf("rewrite with the same settings: %v", err)
		}
	}
}
