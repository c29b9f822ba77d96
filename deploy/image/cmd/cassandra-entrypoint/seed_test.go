package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/sstable-flight/sstable-flight/deploy/image/cassandra"
)

// TestSeedConfFillsAnEmptyDirectoryOnly: an empty configuration volume
// gets the shipped files, and a file already there (rewritten at an
// earlier start, or the operator's) is left as it is.
func TestSeedConfFillsAnEmptyDirectoryOnly(t *testing.T) {
	dir := t.TempDir()
	mine := filepath.Join(dir, cassandra.LogbackFile)
	if err := os.WriteFile(mine, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := seedConf(dir); err != nil {
		t.Fatal(err)
	}
	for name, want := range cassandra.ConfFiles() {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if name == cassandra.LogbackFile {
			want = "mine"
		}
		if string(got) != want {
			t.Errorf("%s: %d bytes, want %d", name, len(got), len(want))
		}
	}
	if err := seedConf(filepath.Join(dir, "missing")); err == nil {
		t.Error("seeding a directory that does not exist succeeded")
	}
}
