package sstable_test

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/sstable-flight/sstable-flight/internal/testkit/corpus"
	"github.com/sstable-flight/sstable-flight/sstable"
	"github.com/sstable-flight/sstable-flight/token"
)

type part struct {
	key   []byte
	token int64
	pos   int64
	rows  int
}

func fullScan(t *testing.T, r *sstable.Reader) []part {
	t.Helper()
	return collect(t, r.Scan())
}

func collect(t *testing.T, s *sstable.Scanner) []part {
	t.Helper()
	var out []part
	for s.NextPartition() {
		p := part{key: append([]byte{}, s.Partition().Key...), pos: s.Partition().Position}
		p.token = int64(token.Of(p.key))
		for s.NextUnfiltered() {
			p.rows++
		}
		out = append(out, p)
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func inRange(start, end, tok int64) bool {
	switch {
	case start == end:
		return true
	case start < end:
		return tok > start && tok <= end
	}
	return tok > start || tok <= end
}

// TestPointAndRangeMatchFullScan is the property test of the access
// paths: over every corpus SSTable (BIG via Summary/Index.db/Filter.db,
// BTI via the partition trie), a point read of each key returns exactly
// that partition, absent keys return nothing, and random token ranges —
// wrap-around, full ring, bounds on and next to real tokens, the ring's
// ends — return exactly the partitions a full scan has in that range, in
// Cassandra's order.
func TestPointAndRangeMatchFullScan(t *testing.T) {
	checked := 0
	cases := eachCorpusTable(t, func(t *testing.T, mode string, tbl *corpus.CorpusTable) {
		rng := corpus.Rand(t, 1)
		for _, st := range tbl.SSTables {
			name := fmt.Sprintf("%s/%s/%s", mode, tbl.Name, st.Prefix)
			r, err := sstable.Open(filepath.Join(tbl.Dir, st.Prefix+"-Data.db"), sstable.Options{})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			all := fullScan(t, r)
			for _, p := range all {
				s, err := r.Get(p.key)
				if err != nil {
					t.Fatalf("%s: get %x: %v", name, p.key, err)
				}
				got := collect(t, s)
				if len(got) != 1 || !bytes.Equal(got[0].key, p.key) || got[0].pos != p.pos || got[0].rows != p.rows {
					t.Errorf("%s: get %x: got %+v, want %+v", name, p.key, got, p)
				}
				checked++
			}
			for range 50 {
				key := make([]byte, len(all[0].key))
				for i := range key {
					key[i] = byte(rng.Uint32())
				}
				if present(all, key) {
					continue
				}
				s, err := r.Get(key)
				if err != nil {
					t.Fatalf("%s: get absent %x: %v", name, key, err)
				}
				if got := collect(t, s); len(got) != 0 {
					t.Errorf("%s: get absent %x returned %d partitions", name, key, len(got))
				}
			}
			bound := func() int64 {
				p := all[rng.IntN(len(all))]
				switch rng.IntN(6) {
				case 0:
					return p.token
				case 1:
					return p.token - 1
				case 2:
					return p.token + 1
				case 3:
					return math.MinInt64
				case 4:
					return math.MaxInt64
				}
				return int64(rng.Uint64())
			}
			for range 40 {
				start, end := bound(), bound()
				if rng.IntN(10) == 0 {
					end = start // full ring
				}
				s, err := r.ScanRange(start, end)
				if err != nil {
					t.Fatalf("%s: range (%d, %d]: %v", name, start, end, err)
				}
				got := collect(t, s)
				var want []part
				for _, p := range all {
					if inRange(start, end, p.token) && (start >= end && start != end) == false {
						want = append(want, p)
					}
				}
				if start > end { // wrapped: (start, max] first, then [min, end]
					for _, p := range all {
						if p.token > start {
							want = append(want, p)
						}
					}
					for _, p := range all {
						if p.token <= end {
							want = append(want, p)
						}
					}
				}
				if fmt.Sprint(keys(got)) != fmt.Sprint(keys(want)) {
					t.Errorf("%s: range (%d, %d]: got %d partitions %v, want %d %v", name, start, end, len(got), keys(got), len(want), keys(want))
				}
				checked++
			}
			r.Close()
		}
	})
	if cases.All() && checked < 5000 {
		t.Errorf("only %d lookups and ranges checked", checked)
	}
}

func present(all []part, key []byte) bool {
	for _, p := range all {
		if bytes.Equal(p.key, key) {
			return true
		}
	}
	return false
}

func keys(ps []part) []string {
	var out []string
	for _, p := range ps {
		out = append(out, fmt.Sprintf("%x@%d", p.key, p.rows))
	}
	return out
}

// TestVerifyDigest: every corpus Data.db matches Cassandra's Digest.crc32,
// and a flipped byte anywhere does not.
func TestVerifyDigest(t *testing.T) {
	eachCorpusTable(t, func(t *testing.T, mode string, tbl *corpus.CorpusTable) {
		st := tbl.SSTables[0]
		r, err := sstable.Open(filepath.Join(tbl.Dir, st.Prefix+"-Data.db"), sstable.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if err := r.VerifyDigest(); err != nil {
			t.Errorf("%s/%s: %v", mode, tbl.Name, err)
		}
		r.Close()
	})
	c := corpus.LoadEach(t)["oa"].Tables["wide"]
	dir := t.TempDir()
	for comp := range c.SSTables[0].Components {
		b, _ := os.ReadFile(filepath.Join(c.Dir, c.SSTables[0].Prefix+"-"+comp))
		if comp == "Data.db" {
			b[len(b)/2] ^= 1
		}
		os.WriteFile(filepath.Join(dir, c.SSTables[0].Prefix+"-"+comp), b, 0o644)
	}
	r, err := sstable.Open(filepath.Join(dir, c.SSTables[0].Prefix+"-Data.db"), sstable.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := r.VerifyDigest(); !errors.Is(err, sstable.ErrCorruption) {
		t.Errorf("flipped Data.db: got %v, want a corruption error", err)
	}
}

// TestVerifyIndexesOnCorpus: every corpus SSTable's indexes agree with
// its Data.db.
func TestVerifyIndexesOnCorpus(t *testing.T) {
	eachCorpusTable(t, func(t *testing.T, mode string, tbl *corpus.CorpusTable) {
		for _, st := range tbl.SSTables {
			r, err := sstable.Open(filepath.Join(tbl.Dir, st.Prefix+"-Data.db"), sstable.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if err := r.VerifyIndexes(); err != nil {
				t.Errorf("%s/%s/%s: %v", mode, tbl.Name, st.Prefix, err)
			}
			r.Close()
		}
	})
}
