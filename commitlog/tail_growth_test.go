package commitlog_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/sstable-flight/sstable-flight/commitlog"
)

// TestTailerFollowsGrowthInSteps: a segment growing a few bytes at a
// time, as a compressed or direct-written one does at each sync, is
// handed out whole, each entry once, whatever the cuts: a reading that
// stopped inside a section resumes there (its checkpoint's After lies past
// the section's start).
func TestTailerFollowsGrowthInSteps(t *testing.T) {
	for _, f := range fixtures(t) {
		t.Run(f.Name, func(t *testing.T) {
			path, b := f.dataSegment(t)
			full := readBytes(t, b, path, commitlog.Options{})
			for _, step := range []int{61, 997} {
				dir := t.TempDir()
				dst := filepath.Join(dir, filepath.Base(path))
				tl := commitlog.NewTailer(dir, commitlog.Options{})
				n := 0
				for k := 0; ; k += step {
					if k > len(b) {
						k = len(b)
					}
					if err := os.WriteFile(dst, b[:k], 0o644); err != nil {
						t.Fatal(err)
					}
					es, _, err := poll(t, tl)
					if err != nil {
						t.Fatalf("step %d cut at %d: %v", step, k, err)
					}
					n += len(es)
					if k == len(b) {
						break
					}
				}
				if n != len(full.entries) {
					t.Fatalf("%s step %d: handed out %d entries, the segment has %d", f.Compression, step, n, len(full.entries))
				}
			}
		})
	}
}
