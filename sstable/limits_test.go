package sstable_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sstable-flight/sstable-flight/sstable"
	"github.com/sstable-flight/sstable-flight/sstable/metadata"
)

// copyWholeSSTable copies every file of the SSTable whose Data.db is
// path into a new directory and returns the copy's Data.db.
func copyWholeSSTable(t *testing.T, path string) string {
	t.Helper()
	d, err := metadata.ParseDescriptor(filepath.Base(path))
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(filepath.Dir(path), d.Prefix()+"-*"))
	var comps []string
	for _, f := range files {
		comps = append(comps, strings.TrimPrefix(filepath.Base(f), d.Prefix()+"-"))
	}
	return filepath.Join(copySSTable(t, filepath.Dir(path), d.Prefix(), comps), filepath.Base(path))
}

// TestComponentsReadWholeAreCapped is issue #15's finding 6 for SSTable
// components: each component a reader reads whole, made a sparse 64 GiB
// file (no disk used), fails the open (or VerifyDigest) with corruption
// naming the component and its cap, before a byte is read. Before, the
// reader allocated the file's size: the test binary died with "fatal
// error: runtime: out of memory" (on a larger machine it would have read
// all 64 GiB, as the 13-15 GB RSS shows).
func TestComponentsReadWholeAreCapped(t *testing.T) {
	const huge = 64 << 30
	for _, tc := range []struct{ path, component string }{
		{"oa/corpus/timestamps-*/oa-3-big-Data.db", "TOC.txt"},
		{"oa/corpus/timestamps-*/oa-3-big-Data.db", "Statistics.db"},
		{"oa/corpus/timestamps-*/oa-3-big-Data.db", "CompressionInfo.db"},
		{"oa/corpus/timestamps-*/oa-3-big-Data.db", "Summary.db"},
		{"oa/corpus/timestamps-*/oa-3-big-Data.db", "Filter.db"},
		{"oa/corpus/timestamps-*/oa-3-big-Data.db", "Digest.crc32"},
		{"oa/corpus/comp_none-*/oa-1-big-Data.db", "CRC.db"},
		{"da/corpus/timestamps-*/da-3-bti-Data.db", "Filter.db"},
	} {
		t.Run(tc.path[:2]+"/"+tc.component, func(t *testing.T) {
			src, _ := filepath.Glob(filepath.Join(corpusRoot(), tc.path))
			if len(src) != 1 {
				t.Fatalf("%s: %v", tc.path, src)
			}
			data := copyWholeSSTable(t, src[0])
			victim := strings.TrimSuffix(data, "Data.db") + tc.component
			if err := os.Truncate(victim, huge); err != nil {
				t.Fatal(err)
			}
			r, err := sstable.Open(data, sstable.Options{})
			if err == nil && tc.component == "Digest.crc32" {
				err = r.VerifyDigest()
				r.Close()
			} else if err == nil {
				r.Close()
			}
			if !errors.Is(err, sstable.ErrCorruption) || !strings.Contains(err.Error(), tc.component) || !strings.Contains(err.Error(), "68719476736 bytes") {
				t.Fatalf("%s of 64 GiB: %v, want corruption naming it and its size", tc.component, err)
			}
			t.Log(err)
		})
	}
}

// TestLimitsAreConfigurable: a cap given in Options applies.
func TestLimitsAreConfigurable(t *testing.T) {
	src, _ := filepath.Glob(filepath.Join(corpusRoot(), "oa/corpus/timestamps-*/oa-3-big-Data.db"))
	if len(src) != 1 {
		t.Fatalf("corpus.timestamps: %v", src)
	}
	r, err := sstable.Open(src[0], sstable.Options{Limits: sstable.Limits{Statistics: 1024}})
	if err == nil {
		r.Close()
	}
	if !errors.Is(err, sstable.ErrCorruption) || !strings.Contains(err.Error(), "more than the 1024 a Statistics.db may have") {
		t.Fatalf("Statistics.db under a 1 KiB cap: %v", err)
	}
}
