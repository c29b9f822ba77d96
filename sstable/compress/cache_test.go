package compress

import (
	"bytes"
	"fmt"
	"sync"
	"testing"
)

// TestChunkCacheBudget: the cache never holds more bytes than its budget,
// keeps the most recently used chunks, drops a closed reader's, and
// counts hits and misses.
func TestChunkCacheBudget(t *testing.T) {
	const chunk = 1 << 10
	c := NewChunkCache(16 * 4 * chunk) // 4 chunks a shard
	for r := uint64(1); r <= 3; r++ {
		for i := range 200 {
			c.put(cacheKey{r, i}, bytes.Repeat([]byte{byte(i)}, chunk))
		}
	}
	st := c.Stats()
	if st.Bytes > 16*4*chunk || st.Entries*chunk != st.Bytes {
		t.Fatalf("holds %d bytes in %d entries, budget %d", st.Bytes, st.Entries, 16*4*chunk)
	}
	// The last chunk put is the most recent of its shard: still there.
	if b, ok := c.get(cacheKey{3, 199}); !ok || b[0] != 199 {
		t.Fatalf("most recent chunk: %v %v", ok, b[:1])
	}
	// The first ones are long gone.
	if _, ok := c.get(cacheKey{1, 0}); ok {
		t.Fatal("oldest chunk still cached")
	}
	if st := c.Stats(); st.Hits != 1 || st.Misses != 1 {
		t.Fatalf("hits %d misses %d, want 1 and 1", st.Hits, st.Misses)
	}
	c.drop(3)
	for i := range 200 {
		if _, ok := c.get(cacheKey{3, i}); ok {
			t.Fatalf("chunk %d of a dropped reader still cached", i)
		}
	}
	// A chunk over a shard's budget is not kept.
	c.put(cacheKey{9, 0}, make([]byte, 5*chunk))
	if _, ok := c.get(cacheKey{9, 0}); ok {
		t.Fatal("oversized chunk cached")
	}
}

// TestChunkCacheConcurrent hammers one cache from many goroutines (run
// with -race): every hit returns the bytes put under its key.
func TestChunkCacheConcurrent(t *testing.T) {
	c := NewChunkCache(64 << 10)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 2000 {
				k := cacheKey{uint64(g % 3), i % 97}
				if b, ok := c.get(k); ok {
					if want := fmt.Sprint(k); string(b) != want {
						t.Errorf("key %v holds %q", k, b)
						return
					}
					continue
				}
				c.put(k, []byte(fmt.Sprint(k)))
			}
		}()
	}
	wg.Wait()
}
