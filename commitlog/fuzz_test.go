package commitlog_test

import (
	"errors"
	"os"
	"testing"

	"github.com/sstable-flight/sstable-flight/commitlog"
)

// FuzzSegment reads arbitrary bytes as a segment, live and not: no panic,
// no allocation past the section bound, and every failure one of the
// package's kinds. Seeds: each fixture segment's first 4 KiB and whole
// compressed segments.
func FuzzSegment(f *testing.F) {
	for _, fx := range fixtures(f) {
		_, b := fx.dataSegment(f)
		f.Add(b[:min(len(b), 4096)], false)
		if fx.Compression != "" && len(b) < 64<<10 {
			f.Add(b, true)
		}
	}
	f.Add(header(8, 1796652184405, `{"compressionClass":"SnappyCompressor"}`), true)
	f.Fuzz(func(t *testing.T, b []byte, live bool) {
		name := "CommitLog-8-1796652184405.log"
		res := readBytes(t, b, name, commitlog.Options{Live: live, MaxSectionBytes: 1 << 20})
		if res.err != nil && !errors.Is(res.err, commitlog.ErrCorruption) && !errors.Is(res.err, commitlog.ErrEncrypted) &&
			!errors.Is(res.err, commitlog.ErrUnsupportedVersion) && !errors.Is(res.err, commitlog.ErrUnknownCompressor) {
			t.Fatalf("error of no known kind: %v", res.err)
		}
		for _, e := range res.entries {
			if len(e.Mutation) < 10 || e.Position.Offset <= e.Start {
				t.Fatalf("entry %+v", e.Position)
			}
		}
	})
}

// TestListDir: segments in id order; CDC indexes, other files and
// directories left out.
func TestListDir(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"CommitLog-8-30.log", "CommitLog-7-4.log", "CommitLog-8-100.log", "CommitLog-8-30_cdc.idx",
		"CommitLog-8.log", "CommitLog-x-1.log", "commitlog-8-5.log", "CommitLog-8-6.log.tmp"} {
		if err := os.WriteFile(dir+"/"+n, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(dir+"/CommitLog-8-1.log", 0o755); err != nil {
		t.Fatal(err)
	}
	segs, err := commitlog.ListDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range segs {
		got = append(got, s.FileName())
	}
	want := []string{"CommitLog-7-4.log", "CommitLog-8-30.log", "CommitLog-8-100.log"}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Fatalf("ListDir: %v, want %v", got, want)
	}
	if _, err := commitlog.ListDir(dir + "/missing"); err == nil {
		t.Fatal("a missing directory lists")
	}
}
