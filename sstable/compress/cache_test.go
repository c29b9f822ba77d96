package compress

import (
	"bytes"
	"fmt"
	"sync"
	"testing"
)

// get reads a whole cached chunk of n bytes.
func (c *ChunkCache) get(k cacheKey, n int) ([]byte, bool) {
	b := make([]byte, n)
	m, ok := c.read(k, b, 0)
	return b[:m], ok
}

// checkSlots fails t unless every shard's slot accounting adds up: the
// slots its chunks weigh (the lru.Map's weight) are the slots handed out
// and not freed, and no slot is free twice.
func checkSlots(t *testing.T, c *ChunkCache) {
	t.Helper()
	for i := range c.shards {
		s := &c.shards[i]
		s.mu.Lock()
		seen := map[int32]bool{}
		for _, f := range s.free {
			if seen[f] || f >= s.next {
				t.Errorf("shard %d: slot %d free twice or never used (next %d)", i, f, s.next)
			}
			seen[f] = true
		}
		if w := s.lru.Weight(); w != int64(s.next)-int64(len(s.free)) || w > int64(s.slots) {
			t.Errorf("shard %d: chunks weigh %d slots, %d used and %d free of %d", i, w, s.next, len(s.free), s.slots)
		}
		s.mu.Unlock()
	}
}

// TestChunkCacheBudget: the cache never holds more bytes than its budget,
// keeps the most recently used chunks, returns their bytes intact (also
// from an offset, across slots), drops a closed reader's, and counts hits
// and misses.
func TestChunkCacheBudget(t *testing.T) {
	const chunk = 3*slotSize + 100 // four slots, the last one partly used
	c := NewChunkCache(cacheShards * 8 * slotSize)
	want := func(r uint64, i int) []byte {
		return bytes.Repeat([]byte{byte(r), byte(i)}, chunk/2)
	}
	for r := uint64(1); r <= 3; r++ {
		for i := range 200 {
			c.put(cacheKey{r, i}, want(r, i))
		}
	}
	checkSlots(t, c)
	st := c.Stats()
	if st.Bytes > cacheShards*8*slotSize || st.Bytes != st.Entries*4*slotSize {
		t.Fatalf("holds %d bytes in %d entries, budget %d", st.Bytes, st.Entries, cacheShards*8*slotSize)
	}
	if b, ok := c.get(cacheKey{3, 199}, chunk); !ok || !bytes.Equal(b, want(3, 199)) {
		t.Fatalf("most recent chunk: cached %v, intact %v", ok, bytes.Equal(b, want(3, 199)))
	}
	p := make([]byte, 10)
	if n, ok := c.read(cacheKey{3, 199}, p, slotSize-5); !ok || n != 10 || !bytes.Equal(p, want(3, 199)[slotSize-5:slotSize+5]) {
		t.Fatalf("read across a slot boundary: %d %v %x", n, ok, p)
	}
	if _, ok := c.get(cacheKey{1, 0}, chunk); ok {
		t.Fatal("oldest chunk still cached")
	}
	if st := c.Stats(); st.Hits != 2 || st.Misses != 1 {
		t.Fatalf("hits %d misses %d, want 2 and 1", st.Hits, st.Misses)
	}
	c.drop(3)
	checkSlots(t, c)
	for i := range 200 {
		if _, ok := c.get(cacheKey{3, i}, chunk); ok {
			t.Fatalf("chunk %d of a dropped reader still cached", i)
		}
	}
	// A chunk over a shard's budget is not kept.
	c.put(cacheKey{9, 0}, make([]byte, 9*slotSize))
	if _, ok := c.get(cacheKey{9, 0}, 9*slotSize); ok {
		t.Fatal("oversized chunk cached")
	}
}

// TestChunkCacheConcurrent hammers one cache from many goroutines (run
// with -race): every hit returns the bytes put under its key, though
// slots are evicted and reused all the time.
func TestChunkCacheConcurrent(t *testing.T) {
	c := NewChunkCache(cacheShards * 4 * slotSize)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 2000 {
				k := cacheKey{uint64(g % 3), i % 97}
				want := bytes.Repeat([]byte(fmt.Sprint(k)), 500)
				if b, ok := c.get(k, len(want)); ok {
					if !bytes.Equal(b, want) {
						t.Errorf("key %v holds other bytes", k)
						return
					}
					continue
				}
				c.put(k, want)
			}
		}()
	}
	wg.Wait()
	checkSlots(t, c)
}
