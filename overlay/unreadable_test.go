package overlay_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/sstable-flight/sstable-flight/internal/testkit/corpus"
	"github.com/sstable-flight/sstable-flight/overlay"
)

// TestUnreadableDirectoryIsLostUntilBack: a commit log directory that
// cannot be listed (gone, or a file in its place) fails the Poll and
// makes the overlay lost, so every table is served flushed-only, saying
// why; once it reads again, the overlay is whole again with nothing
// handed out twice or skipped (the tailer resumes where it stopped).
func TestUnreadableDirectoryIsLostUntilBack(t *testing.T) {
	src, _ := filepath.Glob(filepath.Join("..", "commitlog", "testdata", "v8-none", "CommitLog-*.log"))
	if len(src) == 0 {
		t.Fatal("no v8 fixture segments")
	}
	dir := filepath.Join(t.TempDir(), "commitlog")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	corpus.CopyFiles(t, dir, src...)
	ov := overlay.New(overlay.Config{Dir: dir})
	if err := ov.Poll(); err != nil || ov.Lost() != nil {
		t.Fatalf("a readable log: poll %v, lost %v", err, ov.Lost())
	}
	before := ov.Stats()
	if err := os.Rename(dir, dir+".away"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir, []byte("not a directory"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := ov.Poll(); err == nil || ov.Lost() == nil || !ov.Stats().Lost {
		t.Fatalf("a file where the log was: poll %v, lost %v", err, ov.Lost())
	}
	if err := os.Remove(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(dir+".away", dir); err != nil {
		t.Fatal(err)
	}
	if err := ov.Poll(); err != nil || ov.Lost() != nil {
		t.Fatalf("the log back: poll %v, lost %v", err, ov.Lost())
	}
	if after := ov.Stats(); after.Pending != before.Pending || after.Bytes != before.Bytes || after.Unknown != before.Unknown {
		t.Errorf("after the log came back: %+v, before it went %+v: entries handed out again or skipped", after, before)
	}
}
