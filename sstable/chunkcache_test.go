package sstable_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/sstable-flight/sstable-flight/internal/testkit/corpus"
	"github.com/sstable-flight/sstable-flight/sstable"
)

// TestChunkCachePointReads: point reads through a chunk cache and a key
// cache return what they return without them, the first time (filling
// them) and the second (served from them), for every partition of every
// corpus SSTable; small caches, shared by all the readers, also evict on
// the way. Scans do not fill them.
func TestChunkCachePointReads(t *testing.T) {
	cache := sstable.NewChunkCache(256 << 10)
	keys := sstable.NewKeyCache(16 << 10)
	render := func(s *sstable.Scanner) string {
		out := ""
		for s.NextPartition() {
			out += fmt.Sprintf("%x:", s.Partition().Key)
			for s.NextUnfiltered() {
				u := s.Unfiltered()
				out += fmt.Sprintf("%x/%d/%d ", u.Clustering, len(u.Cells), u.Liveness.Timestamp)
				for _, c := range u.Cells {
					out += fmt.Sprintf("%x ", c.Value)
				}
			}
		}
		if err := s.Err(); err != nil {
			return "error: " + err.Error()
		}
		return out
	}
	reads := 0
	cases := eachCorpusTable(t, func(t *testing.T, mode string, tbl *corpus.CorpusTable) {
		name := tbl.Name
		for _, st := range tbl.SSTables {
			path := filepath.Join(tbl.Dir, st.Prefix+"-Data.db")
			plain, err := sstable.Open(path, sstable.Options{})
			if err != nil {
				t.Fatal(err)
			}
			cached, err := sstable.Open(path, sstable.Options{ChunkCache: cache, KeyCache: keys})
			if err != nil {
				t.Fatal(err)
			}
			if !plain.Murmur3() {
				plain.Close()
				cached.Close()
				continue
			}
			before := cache.Stats()
			fullScan(t, cached)
			if after := cache.Stats(); after.Hits+after.Misses != before.Hits+before.Misses {
				t.Fatalf("%s/%s: a scan used the chunk cache", mode, name)
			}
			for _, p := range fullScan(t, plain) {
				g, err := plain.Get(p.key)
				if err != nil {
					t.Fatal(err)
				}
				want := render(g)
				g.Release()
				for pass := range 2 {
					g, err := cached.Get(p.key)
					if err != nil {
						t.Fatal(err)
					}
					if got := render(g); got != want {
						t.Fatalf("%s/%s %x, pass %d: cached point read\n%s\nwant\n%s", mode, name, p.key, pass, got, want)
					}
					g.Release()
					reads++
				}
			}
			plain.Close()
			cached.Close()
		}
	})
	st := cache.Stats()
	ks := keys.Stats()
	t.Logf("%d cached point reads: %d chunk hits, %d misses, %d bytes held", reads, st.Hits, st.Misses, st.Bytes)
	t.Logf("key cache: %d hits, %d misses", ks.Hits, ks.Misses)
	if st.Bytes > 256<<10 {
		t.Fatalf("holds %d bytes, budget %d", st.Bytes, 256<<10)
	}
	// One table need not use both caches (a BTI SSTable has no key
	// cache); the whole corpus must.
	if !cases.All() {
		return
	}
	if st.Hits == 0 || st.Misses == 0 {
		t.Fatalf("hits %d, misses %d: the cache was not used", st.Hits, st.Misses)
	}
	if ks.Hits == 0 || ks.Misses == 0 {
		t.Fatalf("key cache hits %d, misses %d: not used", ks.Hits, ks.Misses)
	}
}

// TestChunkCacheConcurrentGets: point reads of one reader from many
// goroutines through a cache small enough to evict all the time (run
// under -race) each return what the read returns alone.
func TestChunkCacheConcurrentGets(t *testing.T) {
	c := corpus.LoadEach(t)["oa"]
	tbl := c.Tables["wide"]
	path := filepath.Join(tbl.Dir, tbl.SSTables[0].Prefix+"-Data.db")
	r, err := sstable.Open(path, sstable.Options{ChunkCache: sstable.NewChunkCache(64 << 10)})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	parts := fullScan(t, r)
	errs := make(chan error, 8)
	for g := range 8 {
		go func() {
			for i := range 40 {
				if err := getEach(r, parts[(g+i)%len(parts):][:1]); err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}
