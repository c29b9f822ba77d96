package overlay_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sstable-flight/sstable-flight/internal/testkit/corpus"
	"github.com/sstable-flight/sstable-flight/overlay"
)

// TestBoundHitIsLostUntilTheSegmentGoes: past MaxBytes, entries are not
// held and every table is lost, saying which flag bounds it, with what
// is held never above the bound; once the segment whose entries were
// dropped is deleted (flushed by Cassandra), the overlay is whole again.
func TestBoundHitIsLostUntilTheSegmentGoes(t *testing.T) {
	src, _ := filepath.Glob(filepath.Join("..", "commitlog", "testdata", "v8-none", "CommitLog-*.log"))
	if len(src) == 0 {
		t.Fatal("no v8 fixture segments")
	}
	dir := t.TempDir()
	corpus.CopyFiles(t, dir, src...)
	const bound = 4096
	ov := overlay.New(overlay.Config{Dir: dir, MaxBytes: bound})
	if err := ov.Poll(); err != nil {
		t.Fatal(err)
	}
	st := ov.Stats()
	if err := ov.Lost(); err == nil || !strings.Contains(err.Error(), "--commitlog-overlay-max-bytes") || !st.Lost || st.Bytes > bound {
		t.Fatalf("past the bound: lost %v, stats %+v", err, st)
	}
	for _, f := range src {
		if err := os.Remove(filepath.Join(dir, filepath.Base(f))); err != nil {
			t.Fatal(err)
		}
	}
	if err := ov.Poll(); err != nil || ov.Lost() != nil || ov.Stats().Bytes != 0 {
		t.Fatalf("the segments deleted: poll %v, lost %v, stats %+v", err, ov.Lost(), ov.Stats())
	}
}
