package main

import (
	"flag"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sstable-flight/sstable-flight/flightserver"
	"github.com/sstable-flight/sstable-flight/snapshot"
)

func parse(t *testing.T, args ...string) (*options, error) {
	t.Helper()
	fs := flag.NewFlagSet("sstable-flight", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return parseFlags(fs, args)
}

// TestFlagsApplyNoDefaults: the command leaves every default to the
// packages: a flag not given is zero or the package's own constant, in
// Sidecar mode too (the window is the snapshot package's to resolve).
func TestFlagsApplyNoDefaults(t *testing.T) {
	for _, args := range [][]string{nil, {"--sidecar", "http://127.0.0.1:9043"}} {
		o, err := parse(t, args...)
		if err != nil {
			t.Fatal(err)
		}
		c := o.cfg
		if c.MaxDecodeBytes != 0 || c.MaxRequests != 0 ||
			c.MaxRequestBytes != flightserver.DefaultMaxRequestBytes || c.MaxConnStreams != flightserver.DefaultMaxConnStreams ||
			c.MaxConns != flightserver.DefaultMaxConns || c.StreamStallTimeout != flightserver.DefaultStreamStallTimeout ||
			c.HandshakeTimeout != flightserver.DefaultHandshakeTimeout || c.ConnIdleTimeout != flightserver.DefaultConnIdleTimeout ||
			c.ConnMaxAge != 0 || c.ConnMaxAgeGrace != flightserver.DefaultConnMaxAgeGrace {
			t.Errorf("%v: a limit's flag default is not its package's: %+v", args, c)
		}
		if c.DataDir != "" || c.MaxStreams != 0 || c.Snapshot.Window != 0 || c.Snapshot.Mode != "" || c.Snapshot.Dir != "" || c.Snapshot.PinnedCap != 0 {
			t.Errorf("%v: the command applied a default: %+v", args, c)
		}
		if c.AdmissionWait != flightserver.DefaultAdmissionWait || c.BatchRows != flightserver.DefaultBatchRows ||
			c.KeyCacheBytes != flightserver.DefaultKeyCacheBytes || c.ChunkCacheBytes != flightserver.DefaultChunkCacheBytes ||
			c.Snapshot.Grace != snapshot.DefaultGrace || c.QueryPins != flightserver.DefaultQueryPins || c.QueryPinTTL != flightserver.DefaultQueryPinTTL {
			t.Errorf("%v: a flag default is not its package's constant: %+v", args, c)
		}
		if (c.Snapshot.Sidecar != nil) != (len(args) > 0) {
			t.Errorf("%v: Sidecar client %v", args, c.Snapshot.Sidecar)
		}
	}
}

// TestRefusedFlagsAreNamed: a value the server refuses is reported by
// the flag the operator typed, before anything starts.
func TestRefusedFlagsAreNamed(t *testing.T) {
	data := t.TempDir()
	emptyKeys := filepath.Join(t.TempDir(), "ticket.key")
	if err := os.WriteFile(emptyKeys, []byte(" \n"), 0o600); err != nil {
		t.Fatal(err)
	}
	d := func(args ...string) []string {
		return append([]string{"--data-dir", data, "--snapshot-mode", "live"}, args...)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "--data-dir: required in hardlink mode"},
		{[]string{"--data-dir", filepath.Join(data, "nope")}, `--data-dir "` + filepath.Join(data, "nope") + `": not a readable directory`},
		{[]string{"--sidecar", "http://127.0.0.1:9043", "--data-dir", data}, "--data-dir " + `"` + data + `": not read in sidecar mode`},
		{[]string{"--snapshot-mode", "sidecar"}, "--sidecar: required in sidecar mode"},
		{d("--sidecar", "http://127.0.0.1:9043"), "--sidecar: a Sidecar client is only for sidecar mode, not live"},
		{[]string{"--sidecar", "cassandra-0:9043"}, "read --sidecar: read sidecar base URL"},
		{[]string{"--data-dir", data, "--snapshot-mode", "copy"}, `--snapshot-mode "copy": want hardlink, live or sidecar`},
		{d("--snapshot-window", "-1s"), "--snapshot-window -1s: must not be negative (0: 3s, or 30s in sidecar mode)"},
		{d("--snapshot-grace", "-1s"), "--snapshot-grace -1s: must not be negative"},
		{d("--snapshot-pinned-cap", "-1"), "--snapshot-pinned-cap -1: must not be negative"},
		{d("--max-streams", "-1"), "--max-streams -1: must not be negative"},
		{d("--query-pins", "-1"), "--query-pins -1: must not be negative"},
		{d("--query-pin-ttl", "-1s"), "--query-pin-ttl -1s: must not be negative"},
		{d("--admission-wait", "-1s"), "--admission-wait -1s: must not be negative"},
		{d("--batch-rows", "-1"), "--batch-rows -1: must not be negative"},
		{d("--max-request-bytes", "-1"), "--max-request-bytes -1: must not be negative"},
		{d("--max-decode-bytes", "1000", "--max-request-bytes", "2000"), "--max-decode-bytes 1000: must be at least MaxRequestBytes (2000)"},
		{d("--max-requests", "-1"), "--max-requests -1: must not be negative"},
		{d("--max-conn-streams", "-1"), "--max-conn-streams -1: must not be negative"},
		{d("--max-conns", "-1"), "--max-conns -1: must not be negative"},
		{d("--stream-stall-timeout", "-1s"), "--stream-stall-timeout -1s: must not be negative"},
		{d("--handshake-timeout", "-1s"), "--handshake-timeout -1s: must not be negative"},
		{d("--conn-idle-timeout", "-1s"), "--conn-idle-timeout -1s: must not be negative"},
		{d("--conn-max-age", "-1s"), "--conn-max-age -1s: must not be negative"},
		{d("--conn-max-age-grace", "-1s"), "--conn-max-age-grace -1s: must not be negative"},
		{d("--tls-cert", "c.pem"), "--tls-key: required with a TLS certificate"},
		{d("--tls-key", "k.pem"), "--tls-cert: required with a TLS key"},
		{d("--tls-client-ca", "ca.pem"), "--tls-cert: required with a client CA"},
		{d("--ticket-key-file", emptyKeys), "--ticket-key-file " + emptyKeys + ": no key"},
		{d("--log-level", "loud"), "read --log-level"},
		{d("--peers", "127.0.0.1=grpc://a:1"), "planning over the ring needs --cassandra"},
		{d("--cassandra", "127.0.0.1:9042", "--peers", "127.0.0.1=grpc://a:1", "--peer-port", "8815"), "--peers and --peer-port: give one way"},
		{d("--cassandra", "127.0.0.1:9042", "--peers", "127.0.0.1=http://a:1"), `read --peers: read peers: "127.0.0.1=http://a:1"`},
		{d("--cassandra", "127.0.0.1:9042", "--peer-port", "70000"), "read --peer-port 70000: not a port"},
		{d("--kube-namespace", "ns"), "--kube-namespace: needs --kube-service"},
		{d("--kubeconfig", "k"), "--kubeconfig: needs --kube-service"},
		{d("--kube-service", "cass"), "--kube-service: planning over the ring needs --cassandra"},
		{d("--cassandra", "127.0.0.1:9042", "--kube-service", "cass", "--peer-port", "8815"), "--kube-service and --peers or --peer-port: give one way"},
		{d("--cassandra", "127.0.0.1:9042", "--kube-service", "cass"), "--kube-service: no --kube-namespace: read the pod's namespace"},
		{d("--cassandra", "127.0.0.1:9042", "--kube-service", "cass", "--kube-namespace", "ns", "--kubeconfig", "/nonexistent/kubeconfig"), "--kube-service: read kubeconfig /nonexistent/kubeconfig"},
		{d("--cassandra", "127.0.0.1:9042", "--kube-service", "cass", "--kube-namespace", "ns"), "--kube-service: read in-cluster API config"},
		{d("extra"), `unexpected argument "extra"`},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			o, err := parse(t, tc.args...)
			if err == nil {
				o.cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
				var srv *flightserver.Server
				if srv, err = newServer(o.cfg); err == nil {
					srv.Shutdown(t.Context())
					t.Fatalf("%v: accepted", tc.args)
				}
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("%v: %v; want %q", tc.args, err, tc.want)
			}
		})
	}
}

// TestConfigFlagsExist: every flag configFlags names is registered, so
// a refused field is never reported by a flag that does not exist.
func TestConfigFlagsExist(t *testing.T) {
	fs := flag.NewFlagSet("sstable-flight", flag.ContinueOnError)
	if _, err := parseFlags(fs, nil); err != nil {
		t.Fatal(err)
	}
	for field, name := range configFlags {
		if fs.Lookup(name) == nil {
			t.Errorf("Config field %s: no flag --%s", field, name)
		}
	}
}
