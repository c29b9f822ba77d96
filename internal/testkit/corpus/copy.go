package corpus

import (
	"os"
	"path/filepath"
	"testing"
)

// CopyFiles copies files into directory dir, which it creates, each
// under its base name: how tests get SSTables of their own to change or
// damage. A failure fails t.
func CopyFiles(t testing.TB, dir string, files ...string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(f)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// CopyDir copies the regular files of directory src into dst
// (CopyFiles): of a table directory, its SSTables and schema.cql, without
// the subdirectories (sstabledump, sstablemetadata, snapshots).
func CopyDir(t testing.TB, src, dst string) {
	t.Helper()
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, e := range entries {
		if e.Type().IsRegular() {
			files = append(files, filepath.Join(src, e.Name()))
		}
	}
	CopyFiles(t, dst, files...)
}
