package main_test

// Starting the binary on a configuration under test: whether it serves
// or refuses to start, and what it said.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// liveArgs serve an empty data directory in live mode on free loopback
// ports: the least a server needs, with nothing written anywhere.
func liveArgs(t *testing.T, extra ...string) []string {
	t.Helper()
	return append([]string{"--data-dir", t.TempDir(), "--snapshot-mode", "live",
		"--listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0"}, extra...)
}

// requireRefused runs the binary and requires it to exit non-zero
// without serving, its stderr saying every one of want.
func requireRefused(t *testing.T, bin string, env []string, want []string, args ...string) {
	t.Helper()
	s := spawn(t, bin, env, args...)
	if s.waitServing(t) {
		s.fatalf(t, "%v (env %q): served on %s, want a refusal to start saying %q", args, env, s.addr, want)
	}
	if s.waitErr == nil {
		s.fatalf(t, "%v (env %q): exited 0 without serving, want a non-zero exit", args, env)
	}
	for _, w := range want {
		if !strings.Contains(s.stderr.String(), w) {
			s.fatalf(t, "%v (env %q): stderr does not say %q", args, env, w)
		}
	}
	t.Logf("refused: %s", strings.TrimSpace(s.stderr.String()))
}

// writeFile writes content to name in a new temporary directory and
// returns its path.
func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}
