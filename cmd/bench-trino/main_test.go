package main

import (
	"os"
	"path/filepath"
	"testing"
)

// trino-build.sh's Maven prints colour resets before the directory, on
// the same line; the path must come out clean.
func TestScriptStripsTerminalControl(t *testing.T) {
	s := filepath.Join(t.TempDir(), "build.sh")
	if err := os.WriteFile(s, []byte("printf '\\033[0m\\033[0m/tmp/plugin-dir\\n'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	got, err := script(s, `bash "$0"`)
	if err != nil {
		t.Fatal(err)
	}
	if got != "/tmp/plugin-dir" {
		t.Errorf("script = %q, want /tmp/plugin-dir", got)
	}
}
