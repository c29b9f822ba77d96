package snapshot

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sstable-flight/sstable-flight/snapshot/sidecar"
)

// TestConfigDefaults: a Config's zero values resolve to the documented
// defaults, the window and the directory by mode; values given stay.
func TestConfigDefaults(t *testing.T) {
	data := t.TempDir()
	client := newTestSidecarClient(t)
	for _, tc := range []struct {
		name   string
		cfg    Config
		mode   Mode
		dir    string
		window time.Duration
		grace  time.Duration
	}{
		{"zero: hardlink", Config{DataDir: data}, Hardlink, DefaultDir(data), DefaultWindow, DefaultGrace},
		{"live", Config{DataDir: data, Mode: Live}, Live, "", DefaultWindow, DefaultGrace},
		{"a sidecar client means sidecar mode", Config{Sidecar: client}, Sidecar, DefaultSidecarDir(), DefaultSidecarWindow, DefaultGrace},
		{"sidecar named", Config{Mode: Sidecar, Sidecar: client}, Sidecar, DefaultSidecarDir(), DefaultSidecarWindow, DefaultGrace},
		{"sidecar with its window given", Config{Sidecar: client, Window: DefaultWindow}, Sidecar, DefaultSidecarDir(), DefaultWindow, DefaultGrace},
		{"values given stay", Config{DataDir: data, Dir: "/snaps", Window: time.Minute, Grace: time.Hour}, Hardlink, "/snaps", time.Minute, time.Hour},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.cfg
			if err := c.resolve(); err != nil {
				t.Fatal(err)
			}
			if c.Mode != tc.mode || c.Dir != tc.dir || c.Window != tc.window || c.Grace != tc.grace {
				t.Fatalf("resolved to mode %s, dir %q, window %v, grace %v; want %s, %q, %v, %v",
					c.Mode, c.Dir, c.Window, c.Grace, tc.mode, tc.dir, tc.window, tc.grace)
			}
			if c.Now == nil || c.Open == nil || c.OpenFS == nil {
				t.Fatal("no default clock or opener")
			}
			again := c
			if err := again.resolve(); err != nil || again.Window != c.Window || again.Dir != c.Dir || again.Mode != c.Mode {
				t.Fatalf("resolving again: %v, %+v", err, again)
			}
		})
	}
}

// TestConfigRefused: NewManager refuses a value that cannot work with a
// ConfigError naming the field, before it touches any directory.
func TestConfigRefused(t *testing.T) {
	data := t.TempDir()
	file := filepath.Join(data, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	client := newTestSidecarClient(t)
	for _, tc := range []struct {
		name, field, reason string
		cfg                 Config
	}{
		{"no data dir", "DataDir", "required in hardlink mode", Config{}},
		{"no data dir, live", "DataDir", "required in live mode", Config{Mode: Live}},
		{"data dir missing", "DataDir", "not a readable directory", Config{DataDir: filepath.Join(data, "nope")}},
		{"data dir a file", "DataDir", "not a readable directory", Config{DataDir: file}},
		{"data dir in sidecar mode", "DataDir", "not read in sidecar mode", Config{DataDir: data, Sidecar: client}},
		{"unknown mode", "Mode", "want hardlink, live or sidecar", Config{DataDir: data, Mode: "copy"}},
		{"sidecar without client", "Sidecar", "required in sidecar mode", Config{Mode: Sidecar}},
		{"client in live mode", "Sidecar", "only for sidecar mode, not live", Config{DataDir: data, Mode: Live, Sidecar: client}},
		{"negative window", "Window", "must not be negative", Config{DataDir: data, Window: -time.Second}},
		{"negative grace", "Grace", "must not be negative", Config{DataDir: data, Grace: -time.Second}},
		{"negative pinned cap", "PinnedCap", "must not be negative", Config{DataDir: data, PinnedCap: -1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			snaps := filepath.Join(t.TempDir(), "snaps")
			if tc.cfg.Dir == "" && tc.cfg.Mode != Live {
				tc.cfg.Dir = snaps
			}
			m, err := NewManager(tc.cfg)
			if err == nil {
				m.Close()
				t.Fatalf("NewManager(%+v) accepted it", tc.cfg)
			}
			var ce *ConfigError
			if !errors.As(err, &ce) || ce.Field != tc.field || !strings.Contains(err.Error(), tc.reason) {
				t.Fatalf("NewManager: %v; want a ConfigError of %s saying %q", err, tc.field, tc.reason)
			}
			if _, err := os.Stat(snaps); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("a refused config made its snapshot directory: %v", err)
			}
		})
	}
}

// TestTinyGrace: a grace shorter than the janitor's tick works (its
// ticker was once half the grace, and a nanosecond made it zero, which
// panics).
func TestTinyGrace(t *testing.T) {
	td := liveTable(t, "1")
	m, c := newTestManager(t, td, func(cfg *Config) { cfg.Grace = time.Nanosecond })
	acquire(t, m, td).Release()
	c.Add(time.Second)
	m.Sweep()
}

func newTestSidecarClient(t *testing.T) *sidecar.Client {
	t.Helper()
	c, err := sidecar.New("http://127.0.0.1:1", sidecar.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return c
}
