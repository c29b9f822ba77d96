package flightserver

import (
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/sstable-flight/sstable-flight/snapshot"
	"github.com/sstable-flight/sstable-flight/snapshot/sidecar"
)

// TestConfigDefaults: a Config's zero values resolve to the documented
// defaults; values given stay.
func TestConfigDefaults(t *testing.T) {
	data := t.TempDir()
	for _, tc := range []struct {
		name                 string
		cfg                  Config
		streams, rows, bytes int
		wait                 time.Duration
		chunk, key           int64
	}{
		{"zero", Config{DataDir: data}, 2 * runtime.GOMAXPROCS(0), DefaultBatchRows, DefaultBatchBytes, DefaultAdmissionWait, DefaultChunkCacheBytes, DefaultKeyCacheBytes},
		{"given", Config{DataDir: data, MaxStreams: 3, BatchRows: 10, BatchBytes: 100, AdmissionWait: time.Minute, ChunkCacheBytes: -1, KeyCacheBytes: 5},
			3, 10, 100, time.Minute, -1, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.cfg
			if err := c.resolve(); err != nil {
				t.Fatal(err)
			}
			if c.MaxStreams != tc.streams || c.BatchRows != tc.rows || c.BatchBytes != tc.bytes || c.AdmissionWait != tc.wait ||
				c.ChunkCacheBytes != tc.chunk || c.KeyCacheBytes != tc.key {
				t.Fatalf("resolved to %+v", c)
			}
			if c.Logger == nil || c.Allocator == nil || c.Now == nil || c.Schemas == nil {
				t.Fatal("no default logger, allocator, clock or schema source")
			}
			if c.Snapshot.DataDir != data {
				t.Fatalf("Snapshot.DataDir %q, want DataDir %q", c.Snapshot.DataDir, data)
			}
		})
	}
}

// TestConfigRefused: New refuses a value that cannot work with a
// ConfigError naming the Config field, Snapshot's included, before it
// starts anything.
func TestConfigRefused(t *testing.T) {
	data := t.TempDir()
	client, err := sidecar.New("http://127.0.0.1:1", sidecar.Options{})
	if err != nil {
		t.Fatal(err)
	}
	live := snapshot.Config{Mode: snapshot.Live}
	blank := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(blank, []byte(" \n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, field, reason string
		cfg                 Config
	}{
		{"no data dir", "DataDir", "required in hardlink mode", Config{}},
		{"data dir missing", "DataDir", "not a readable directory", Config{DataDir: filepath.Join(data, "nope"), Snapshot: live}},
		{"data dir in sidecar mode", "DataDir", "not read in sidecar mode", Config{DataDir: data, Snapshot: snapshot.Config{Sidecar: client}}},
		{"negative max streams", "MaxStreams", "must not be negative (0: 2 per CPU)", Config{DataDir: data, Snapshot: live, MaxStreams: -1}},
		{"negative admission wait", "AdmissionWait", "must not be negative (0: 2s)", Config{DataDir: data, Snapshot: live, AdmissionWait: -time.Second}},
		{"negative batch rows", "BatchRows", "must not be negative (0: 32768)", Config{DataDir: data, Snapshot: live, BatchRows: -1}},
		{"negative batch bytes", "BatchBytes", "must not be negative", Config{DataDir: data, Snapshot: live, BatchBytes: -1}},
		{"certificate without key", "TLSKey", "required with a TLS certificate", Config{DataDir: data, Snapshot: live, TLSCert: "c.pem"}},
		{"key without certificate", "TLSCert", "required with a TLS key", Config{DataDir: data, Snapshot: live, TLSKey: "k.pem"}},
		{"client CA without TLS", "TLSCert", "required with a client CA", Config{DataDir: data, Snapshot: live, ClientCA: "ca.pem"}},
		{"blank token file", "AuthTokenFile", "holds no token", Config{DataDir: data, Snapshot: live, AuthTokenFile: blank}},
		{"missing token file", "AuthTokenFile", "no such file", Config{DataDir: data, Snapshot: live, AuthTokenFile: blank + ".nope"}},
		{"token and token file", "AuthTokenFile", "not both", Config{DataDir: data, Snapshot: live, AuthToken: "0123456789abcdef", AuthTokenFile: blank}},
		{"short token", "AuthToken", "at least 16", Config{DataDir: data, Snapshot: live, AuthToken: "s3cret"}},
		{"token with a space", "AuthToken", "not visible ASCII", Config{DataDir: data, Snapshot: live, AuthToken: "0123456789 abcdef"}},
		{"negative window", "Snapshot.Window", "must not be negative", Config{DataDir: data, Snapshot: snapshot.Config{Mode: snapshot.Live, Window: -time.Second}}},
		{"unknown mode", "Snapshot.Mode", "want hardlink, live or sidecar", Config{DataDir: data, Snapshot: snapshot.Config{Mode: "copy"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
			srv, err := New(tc.cfg)
			if err == nil {
				srv.Shutdown(t.Context())
				t.Fatalf("New accepted %+v", tc.cfg)
			}
			var ce *ConfigError
			if !errors.As(err, &ce) || ce.Field != tc.field || !strings.Contains(err.Error(), tc.reason) {
				t.Fatalf("New: %v; want a ConfigError of %s saying %q", err, tc.field, tc.reason)
			}
		})
	}
}
