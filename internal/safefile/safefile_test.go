package safefile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestOpenRefusesWhatIsNotAFile: a FIFO (at once: opening it for
// reading without O_NONBLOCK waits for a writer for ever), a symbolic
// link (even to a regular file), a directory and a device are
// ErrNotRegular; a regular file opens; a missing one is fs.ErrNotExist.
func TestOpenRefusesWhatIsNotAFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(file, link); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{fifo, link, dir, "/dev/urandom"} {
		start := time.Now()
		f, _, err := Open(p)
		if err == nil {
			f.Close()
		}
		if !errors.Is(err, ErrNotRegular) || time.Since(start) > time.Second {
			t.Fatalf("Open(%s): %v after %v, want ErrNotRegular at once", p, err, time.Since(start))
		}
		t.Log(err)
	}
	f, fi, err := Open(file)
	if err != nil || fi.Size() != 1 {
		t.Fatalf("Open(regular file): %v", err)
	}
	f.Close()
	if _, _, err := Open(filepath.Join(dir, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Open(missing): %v", err)
	}
}

// TestReadFileIsCapped: a file over the cap, by its size (a sparse file
// costs no disk), is ErrTooLarge without being read.
func TestReadFileIsCapped(t *testing.T) {
	path := filepath.Join(t.TempDir(), "schema.cql")
	if err := os.WriteFile(path, []byte("CREATE"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadFile(path, 6); err != nil || string(b) != "CREATE" {
		t.Fatalf("ReadFile at the cap: %q, %v", b, err)
	}
	if err := os.Truncate(path, 64<<30); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(path, 1<<20); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("ReadFile of 64 GiB under a 1 MiB cap: %v", err)
	}
}
