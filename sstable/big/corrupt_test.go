package big

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/sstable-flight/sstable-flight/sstable/internal/base"
)

// wantCorruption fails unless err is nil or a CorruptionError naming the
// file and component.
func wantCorruption(t *testing.T, err error, file, component string) {
	t.Helper()
	if err == nil {
		return
	}
	var ce *base.CorruptionError
	if !errors.As(err, &ce) || !errors.Is(err, base.ErrCorruption) {
		t.Fatalf("error %v (%T) is not a corruption error", err, err)
	}
	if ce.File != file || ce.Component != component || !strings.Contains(err.Error(), "offset") {
		t.Fatalf("error %q does not name %s (%s) and an offset", err, file, component)
	}
}

// scanIndex reads a whole Index.db, as the fuzzer and corruption tests do.
func scanIndex(b []byte, file string, opts IndexOptions) (int, error) {
	it := NewIndexReader(context.Background(), base.BytesReadable{B: b, Path: file}, 0, opts)
	n := 0
	for it.Next() {
		n++
		e := it.Entry()
		for _, blk := range e.Blocks {
			if blk.Width <= 0 || len(blk.First.Values) > len(opts.ClusteringTypes) {
				panic("inconsistent block")
			}
		}
	}
	return n, it.Err()
}

// mutations yields every truncation and, at each byte, a few flips.
func mutations(b []byte, f func(m []byte)) {
	for n := 0; n < len(b); n++ {
		f(append([]byte(nil), b[:n]...))
	}
	for i := range b {
		for _, x := range []byte{0x01, 0x80, 0xff} {
			m := append([]byte(nil), b...)
			m[i] ^= x
			f(m)
		}
	}
}

func TestCorruptSummary(t *testing.T) {
	for _, s := range corpusTables(t) {
		t.Run(s.name, func(t *testing.T) {
			b := s.read(t, "Summary.db")
			file := s.path("Summary.db")
			mutations(b, func(m []byte) {
				sum, err := ParseSummary(m, file)
				wantCorruption(t, err, file, "Summary.db")
				if err == nil {
					// A surviving summary must be usable without panics.
					for i := 0; i < sum.Len(); i++ {
						_, _ = sum.Key(i), sum.IndexPosition(i)
					}
					sum.Floor(sum.FirstKey())
				}
				if err == nil && len(m) < len(b) {
					t.Fatalf("%s: truncated to %d bytes yet parsed", file, len(m))
				}
			})
		})
	}
}

func TestCorruptIndex(t *testing.T) {
	for _, s := range corpusTables(t) {
		if s.table != "wide" && s.table != "many" && s.table != "clustered" && s.table != "deletions" {
			continue
		}
		t.Run(s.name, func(t *testing.T) {
			b := s.read(t, "Index.db")
			file := s.path("Index.db")
			want, err := scanIndex(b, file, s.opts(PromotedFull))
			if err != nil {
				t.Fatal(err)
			}
			if len(b) > 8<<10 {
				b = b[:8<<10] // the many table: its first 8 KiB suffice
				want = -1
			}
			for _, mode := range []PromotedMode{PromotedFull, PromotedHeader, PromotedSkip} {
				opts := s.opts(mode)
				mutations(b, func(m []byte) {
					n, err := scanIndex(m, file, opts)
					wantCorruption(t, err, file, "Index.db")
					if err == nil && len(m) < len(b) && want >= 0 && n == want && s.table == "wide" {
						// Truncating a wide Index.db must cut an entry or a
						// promoted index, never pass unnoticed.
						t.Fatalf("%s: truncated to %d bytes yet read all %d entries", file, len(m), n)
					}
				})
			}
		})
	}
}

func TestCorruptFilter(t *testing.T) {
	for _, s := range corpusTables(t) {
		b := s.read(t, "Filter.db")
		file := s.path("Filter.db")
		if len(b) > 256 {
			continue
		}
		t.Run(s.name, func(t *testing.T) {
			mutations(b, func(m []byte) {
				for _, parse := range []func([]byte, string) (*Filter, error){ParseFilter, ParseOldFilter} {
					f, err := parse(m, file)
					wantCorruption(t, err, file, "Filter.db")
					if err == nil {
						f.MayContain([]byte("key"))
						f.MayContain(nil)
					}
				}
			})
		})
	}
}

// TestIndexReaderRefill reads Index.db files 7 bytes at a time at first,
// so entries and promoted indexes straddle refills.
func TestIndexReaderRefill(t *testing.T) {
	defer func(n int) { indexBufSize = n }(indexBufSize)
	indexBufSize = 7
	for _, s := range corpusTables(t) {
		if s.table != "many" && s.table != "wide" {
			continue
		}
		t.Run(s.name, func(t *testing.T) {
			b := s.read(t, "Index.db")
			want := readIndex(t, s, PromotedFull)
			it := NewIndexReader(context.Background(), base.BytesReadable{B: b, Path: s.path("Index.db")}, 0, s.opts(PromotedFull))
			i := 0
			for it.Next() {
				if i >= len(want) || string(it.Entry().Key) != string(want[i].key) || it.Pos() != want[i].pos {
					t.Fatalf("%s: entry %d differs", s.prefix, i)
				}
				i++
			}
			if it.Err() != nil || i != len(want) {
				t.Fatalf("%s: %d of %d entries, %v", s.prefix, i, len(want), it.Err())
			}
			// Starting mid-file at an entry boundary reads the rest.
			mid := want[len(want)/2]
			it = NewIndexReader(context.Background(), base.BytesReadable{B: b, Path: s.path("Index.db")}, mid.pos, s.opts(PromotedSkip))
			if !it.Next() || string(it.Entry().Key) != string(mid.key) {
				t.Fatalf("%s: reading from %d does not give the entry there", s.prefix, mid.pos)
			}
			// A short file is reported, not read past.
			it = NewIndexReader(context.Background(), base.BytesReadable{B: b[:len(b)-1], Path: s.path("Index.db")}, 0, s.opts(PromotedSkip))
			for it.Next() {
			}
			wantCorruption(t, it.Err(), s.path("Index.db"), "Index.db")
			if it.Err() == nil {
				t.Fatalf("%s: a file missing its last byte read cleanly", s.prefix)
			}
		})
	}
}
