package snapshot_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sstable-flight/sstable-flight/snapshot"
)

// TestAwaitDataDir: a data directory that appears while its parent
// exists is waited for; one whose parent is missing, or that does not
// appear within the wait, or a file, is answered at once or at the end
// of the wait, never by blocking past it.
func TestAwaitDataDir(t *testing.T) {
	root := t.TempDir()
	data := filepath.Join(root, "data")
	waited := 0
	go func() {
		time.Sleep(200 * time.Millisecond)
		os.Mkdir(data, 0o755)
	}()
	if !snapshot.AwaitDataDir(context.Background(), data, time.Minute, 10*time.Millisecond, func() { waited++ }) {
		t.Fatal("the directory that appeared was not found")
	}
	if waited != 1 {
		t.Errorf("waiting called %d times, want once", waited)
	}

	start := time.Now()
	if snapshot.AwaitDataDir(context.Background(), filepath.Join(root, "nope", "data"), time.Minute, 10*time.Millisecond, nil) {
		t.Error("a directory under a missing parent was found")
	}
	if snapshot.AwaitDataDir(context.Background(), filepath.Join(root, "never"), 100*time.Millisecond, 10*time.Millisecond, nil) {
		t.Error("a directory that never appeared was found")
	}
	file := filepath.Join(root, "file")
	os.WriteFile(file, nil, 0o644)
	if snapshot.AwaitDataDir(context.Background(), file, time.Minute, 10*time.Millisecond, nil) {
		t.Error("a file was taken for the directory")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if snapshot.AwaitDataDir(ctx, filepath.Join(root, "cancelled"), time.Minute, 10*time.Millisecond, nil) {
		t.Error("a cancelled wait found a directory")
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("the waits that could not succeed took %v", d)
	}
}
