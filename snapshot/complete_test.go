package snapshot

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestCutWaitsOutADeletionInProgress: a listing that read the files of an
// SSTable Cassandra was deleting (Data.db already gone) and its txn logs
// after Cassandra removed the last one sees an incomplete SSTable that no
// log hides. Listing again, once the rest of its files are gone, is
// right: the cut succeeds without it, in both local modes.
func TestCutWaitsOutADeletionInProgress(t *testing.T) {
	for _, mode := range []Mode{Hardlink, Live} {
		t.Run(string(mode), func(t *testing.T) {
			td := liveTable(t, "1", "2", "3")
			m, _ := newTestManager(t, td, func(cfg *Config) { cfg.Mode = mode })
			if err := os.Remove(filepath.Join(td.Path, "oa-1-big-Data.db")); err != nil {
				t.Fatal(err)
			}
			pauses := 0
			m.sleep = func(time.Duration) {
				if pauses++; pauses == 1 {
					removeGeneration(t, td.Path, "1") // Cassandra deletes the rest
				}
			}
			e := acquire(t, m, td)
			defer e.Release()
			if got := prefixes(e); got != "oa-2-big,oa-3-big" || pauses != 1 {
				t.Fatalf("epoch holds %s after %d pauses, want oa-2-big,oa-3-big after 1", got, pauses)
			}
		})
	}
}

// TestCutReportsAStableProblem: an SSTable that stays incomplete fails the
// cut after stableAttempts identical listings (100 ms of pauses), with an
// error naming the file relative to the data directory; not after every
// attempt as a directory that "kept changing".
func TestCutReportsAStableProblem(t *testing.T) {
	for _, c := range []struct {
		name   string
		damage func(t *testing.T, dir string)
		want   error
		file   string
	}{
		{"Data.db deleted", func(t *testing.T, dir string) {
			if err := os.Remove(filepath.Join(dir, "oa-2-big-Data.db")); err != nil {
				t.Fatal(err)
			}
		}, ErrMissingComponent, "oa-2-big-Data.db"},
		{"Filter.db a symlink", func(t *testing.T, dir string) {
			if err := os.Remove(filepath.Join(dir, "oa-2-big-Filter.db")); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink("/etc/passwd", filepath.Join(dir, "oa-2-big-Filter.db")); err != nil {
				t.Fatal(err)
			}
		}, ErrNotRegular, "oa-2-big-Filter.db"},
		// Every file of the SSTable a link: the listing still has it.
		{"every component a symlink", func(t *testing.T, dir string) {
			moved := t.TempDir()
			files, _ := filepath.Glob(filepath.Join(dir, "oa-2-big-*"))
			for _, f := range files {
				to := filepath.Join(moved, filepath.Base(f))
				if err := os.Rename(f, to); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(to, f); err != nil {
					t.Fatal(err)
				}
			}
		}, ErrNotRegular, "oa-2-big-TOC.txt"},
		{"Data.db a directory, every other file gone", func(t *testing.T, dir string) {
			removeGeneration(t, dir, "2")
			if err := os.Mkdir(filepath.Join(dir, "oa-2-big-Data.db"), 0o755); err != nil {
				t.Fatal(err)
			}
		}, ErrMissingComponent, "oa-2-big-TOC.txt"},
		{"stray Filter.db", func(t *testing.T, dir string) {
			removeGeneration(t, dir, "2")
			if err := os.WriteFile(filepath.Join(dir, "oa-2-big-Filter.db"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}, ErrMissingComponent, "oa-2-big-TOC.txt"},
	} {
		for _, mode := range []Mode{Hardlink, Live} {
			t.Run(string(mode)+"/"+c.name, func(t *testing.T) {
				td := liveTable(t, "1", "2", "3")
				m, _ := newTestManager(t, td, func(cfg *Config) { cfg.Mode = mode })
				c.damage(t, td.Path)
				pauses := 0
				m.sleep = func(time.Duration) { pauses++ }
				_, err := m.Acquire(td)
				file := "ks/t-0123456789abcdef0123456789abcdef/" + c.file
				if !errors.Is(err, c.want) || !strings.Contains(err.Error(), file) || strings.Contains(err.Error(), "kept changing") {
					t.Fatalf("got %v, want %v naming %s", err, c.want, file)
				}
				if pauses != stableAttempts-1 {
					t.Fatalf("reported after %d pauses, want %d", pauses, stableAttempts-1)
				}
				// Nothing is left of the failed cuts.
				if left, _ := filepath.Glob(filepath.Join(m.Dir(), "ks", "*", "*")); len(left) != 0 {
					t.Fatalf("failed cuts left %v", left)
				}
			})
		}
	}
}
