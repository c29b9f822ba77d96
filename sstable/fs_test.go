package sstable_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/sstable-flight/sstable-flight/internal/testkit/corpus"
	"github.com/sstable-flight/sstable-flight/sstable"
	"github.com/sstable-flight/sstable-flight/sstable/dump"
	"github.com/sstable-flight/sstable-flight/sstable/metadata"
	"github.com/sstable-flight/sstable-flight/token"
)

// memFS serves components from memory, read from disk on first use, and
// counts opens and closes: a stand-in for a remote FS that can prove the
// reader goes through it for every file.
type memFS struct {
	mu     sync.Mutex
	files  map[string][]byte
	hide   map[string]bool // base names that do not exist here
	opens  map[string]int
	closes int
}

func newMemFS() *memFS {
	return &memFS{files: map[string][]byte{}, hide: map[string]bool{}, opens: map[string]int{}}
}

func (m *memFS) Open(path string) (sstable.File, io.Closer, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.opens[filepath.Base(path)]++
	if m.hide[filepath.Base(path)] {
		return nil, nil, fmt.Errorf("open %s: %w", path, fs.ErrNotExist)
	}
	b, ok := m.files[path]
	if !ok {
		var err error
		if b, err = os.ReadFile(path); err != nil {
			return nil, nil, err
		}
		m.files[path] = b
	}
	return memFile{bytes.NewReader(b), path}, closeFunc(func() error {
		m.mu.Lock()
		m.closes++
		m.mu.Unlock()
		return nil
	}), nil
}

func (m *memFS) totalOpens() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for _, c := range m.opens {
		n += c
	}
	return n
}

type memFile struct {
	*bytes.Reader
	name string
}

func (f memFile) Name() string { return f.name }

type closeFunc func() error

func (f closeFunc) Close() error { return f() }

// readerOutput is everything a reader shows of an SSTable: the full dump,
// point reads of sampled keys (summary, Index.db and filter, or the
// tries) and a token-range scan (the index's first-after search).
func readerOutput(t *testing.T, r *sstable.Reader) string {
	t.Helper()
	var out strings.Builder
	if err := dump.Write(&out, r, dump.Options{}); err != nil {
		t.Fatalf("dump %s: %v", r.Desc.FileName(), err)
	}
	if !r.Murmur3() {
		return out.String()
	}
	var keys [][]byte
	var tokens []int64
	s := r.Scan()
	for s.NextPartition() {
		keys = append(keys, append([]byte(nil), s.Partition().Key...))
		tokens = append(tokens, int64(token.Of(s.Partition().Key)))
	}
	if err := s.Err(); err != nil {
		t.Fatalf("scan %s: %v", r.Desc.FileName(), err)
	}
	step := max(1, len(keys)/16)
	for i := 0; i < len(keys); i += step {
		g, err := r.Get(keys[i])
		if err != nil {
			t.Fatalf("get %x: %v", keys[i], err)
		}
		n := 0
		for g.NextPartition() {
			for g.NextUnfiltered() {
				n++
			}
			fmt.Fprintf(&out, "get %x at %d: %d unfiltereds\n", keys[i], g.Partition().Position, n)
		}
		if err := g.Err(); err != nil {
			t.Fatalf("get %x: %v", keys[i], err)
		}
	}
	if len(tokens) > 2 {
		rs, err := r.ScanRange(tokens[len(tokens)/3], tokens[2*len(tokens)/3])
		if err != nil {
			t.Fatalf("scan range: %v", err)
		}
		n := 0
		for rs.NextPartition() {
			n++
		}
		if err := rs.Err(); err != nil {
			t.Fatalf("scan range: %v", err)
		}
		fmt.Fprintf(&out, "range: %d partitions\n", n)
	}
	return out.String()
}

// TestFSMatchesLocal opens every committed corpus SSTable both from the
// local file system and through an in-memory FS: the output must be the
// same, every component must come through the FS, and every file opened
// must be closed with the reader.
func TestFSMatchesLocal(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join(corpusRoot(), "*", "*", "*", "*-Data.db"))
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) < 30 {
		t.Fatalf("only %d corpus SSTables found", len(paths))
	}
	for _, path := range paths {
		t.Run(corpus.SSTableCase(path), func(t *testing.T) {
			local, err := sstable.Open(path, sstable.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer local.Close()
			mem := newMemFS()
			remote, err := sstable.Open(path, sstable.Options{FS: mem})
			if err != nil {
				t.Fatal(err)
			}
			if got, want := readerOutput(t, remote), readerOutput(t, local); got != want {
				t.Fatalf("output through the FS differs from the local one:\n%s", firstDiff(want, got))
			}
			if remote.VerifyDigest() != nil || local.VerifyDigest() != nil {
				t.Errorf("digest: through FS %v, local %v", remote.VerifyDigest(), local.VerifyDigest())
			}
			prefix := remote.Desc.Prefix() + "-"
			for _, c := range remote.Components {
				switch c {
				case "TOC.txt", "Statistics.db", "Data.db", "Summary.db", "Filter.db", "Partitions.db", "Rows.db", "Digest.crc32":
					if mem.opens[prefix+c] == 0 {
						t.Errorf("%s was not opened through the FS", c)
					}
				}
			}
			for base := range mem.opens {
				if !strings.HasPrefix(base, prefix) {
					t.Errorf("opened %s, not a component of %s", base, prefix)
				}
			}
			if err := remote.Close(); err != nil {
				t.Fatal(err)
			}
			if n := mem.totalOpens(); mem.closes != n {
				t.Errorf("%d opens, %d closes", n, mem.closes)
			}
		})
	}
}

// TestFSMissingComponent: a component the FS lacks is an error that
// errors.Is(fs.ErrNotExist), whichever component it is.
func TestFSMissingComponent(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join(corpusRoot(), "*", "*", "*", "*-Data.db"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no corpus SSTables: %v", err)
	}
	byFormat := map[string]string{}
	for _, p := range paths {
		d, err := metadata.ParseDescriptor(filepath.Base(p))
		if err != nil {
			t.Fatal(err)
		}
		byFormat[d.Format] = p
	}
	for _, format := range slices.Sorted(maps.Keys(byFormat)) {
		path := byFormat[format]
		d, _ := metadata.ParseDescriptor(filepath.Base(path))
		comps := []string{"TOC.txt", "Statistics.db", "Data.db"}
		if format == "bti" {
			comps = append(comps, "Partitions.db", "Rows.db")
		} else {
			comps = append(comps, "Summary.db", "Index.db", "Filter.db")
		}
		for _, c := range comps {
			t.Run(format+"/"+c, func(t *testing.T) {
				mem := newMemFS()
				mem.hide[d.Prefix()+"-"+c] = true
				r, err := sstable.Open(path, sstable.Options{FS: mem})
				if err == nil {
					r.Close()
					t.Fatalf("opened without %s", c)
				}
				if !errors.Is(err, fs.ErrNotExist) {
					t.Fatalf("error is not fs.ErrNotExist: %v", err)
				}
				if n := mem.totalOpens(); mem.closes != n-1 {
					t.Errorf("%d opens (one failed), %d closes", n, mem.closes)
				}
			})
		}
	}
	t.Run("local", func(t *testing.T) {
		_, err := sstable.Open(filepath.Join(t.TempDir(), "oa-1-big-Data.db"), sstable.Options{})
		if !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("error is not fs.ErrNotExist: %v", err)
		}
	})
}

// firstDiff shows where two long outputs part.
func firstDiff(want, got string) string {
	i := 0
	for i < len(want) && i < len(got) && want[i] == got[i] {
		i++
	}
	lo := max(0, i-200)
	return fmt.Sprintf("at byte %d:\nwant …%s\ngot  …%s", i, want[lo:min(len(want), i+200)], got[lo:min(len(got), i+200)])
}
