package main

// The same binary and sources give the same image, whatever the build
// machine's clock and file metadata: the digests depend on the commit's
// time only.

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
)

func TestImageRepeats(t *testing.T) {
	bin, m := standIn(t)
	first := digestOf(t, m, bin)
	// Another mode and time on the build machine's copy of the binary
	// change nothing.
	if err := os.Chmod(bin, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(bin, time.Now(), time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if again := digestOf(t, m, bin); again != first {
		t.Errorf("the same binary and meta gave image %s, then %s", first, again)
	}
	// The commit's time is the one time in the image.
	later := m
	later.created = m.created.Add(time.Second)
	if other := digestOf(t, later, bin); other == first {
		t.Errorf("another commit time gave the same image %s: the time is not in it", first)
	}
}

func digestOf(t *testing.T, m meta, bin string) string {
	t.Helper()
	img, err := platformImage(m, "amd64", bin)
	if err != nil {
		t.Fatal(err)
	}
	idx := index(m, map[string]v1.Image{"amd64": img})
	d, err := idx.Digest()
	if err != nil {
		t.Fatal(err)
	}
	return d.String()
}

// standIn is a file in the binary's place and a meta, for the tests
// of what the builder makes of them without building the server.
func standIn(t *testing.T) (string, meta) {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "sstable-flight")
	if err := os.WriteFile(bin, []byte("\x7fELF stand-in for the server"), 0o600); err != nil {
		t.Fatal(err)
	}
	return bin, meta{source: "https://example.invalid/s", version: "v1", revision: "abc", created: time.Unix(1700000000, 0).UTC()}
}
