package snapshot

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestListerSeesNewAndRemovedSSTables: the cached listing follows files
// appearing and disappearing in the table directory, including within
// the racy window of the directory's mtime.
func TestListerSeesNewAndRemovedSSTables(t *testing.T) {
	data := t.TempDir()
	dir := filepath.Join(data, "ks", "t-0123456789abcdef0123456789abcdef")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	touch := func(name string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	count := func(l *Lister) int {
		dirs, err := l.Find("ks", "t")
		if err != nil {
			t.Fatal(err)
		}
		if len(dirs) != 1 {
			t.Fatalf("%d dirs", len(dirs))
		}
		return len(dirs[0].SSTables)
	}
	l := NewLister(data, nil)
	touch("oa-1-big-Data.db")
	if n := count(l); n != 1 {
		t.Fatalf("%d SSTables, want 1", n)
	}
	touch("oa-2-big-Data.db") // within the racy window: must be seen
	if n := count(l); n != 2 {
		t.Fatalf("%d SSTables after a flush, want 2", n)
	}
	// Past the racy window the listing is reused...
	l.now = func() time.Time { return time.Now().Add(time.Hour) }
	count(l)
	count(l)
	// ...until the directory changes.
	if err := os.Remove(filepath.Join(dir, "oa-1-big-Data.db")); err != nil {
		t.Fatal(err)
	}
	if n := count(l); n != 1 {
		t.Fatalf("%d SSTables after a compaction removed one, want 1", n)
	}
	if dirs, err := l.Find("nope", "t"); err != nil || len(dirs) != 0 {
		t.Fatalf("unknown keyspace: %v %v", dirs, err)
	}
}
