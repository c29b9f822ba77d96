package lru

import (
	"sync"
	"testing"
)

func newIntCache(max int64) *Cache[int, int] {
	return New(max, func(k int) uint64 { return uint64(k) }, func(k, v int) int64 { return int64(k%4) + 1 })
}

// TestCacheStats: Get counts hits and misses; Put replaces, refuses an
// entry over a shard's budget and keeps each shard within its sixteenth
// of the budget; DropIf removes what its test accepts.
func TestCacheStats(t *testing.T) {
	c := newIntCache(shards * 8)
	for k := range 1000 {
		c.Put(k, -k)
	}
	st := c.Stats()
	if st.Weight > shards*8 || st.Entries == 0 || st.Hits != 0 || st.Misses != 0 {
		t.Fatalf("after 1000 puts: %+v", st)
	}
	if v, ok := c.Get(999); !ok || v != -999 {
		t.Fatalf("Get(999) = %d, %v: the most recent of its shard", v, ok)
	}
	c.Put(999, 1)
	if v, _ := c.Get(999); v != 1 {
		t.Fatalf("replaced value is %d", v)
	}
	if _, ok := c.Get(0); ok {
		t.Fatal("the oldest key is still cached")
	}
	if st := c.Stats(); st.Hits != 2 || st.Misses != 1 {
		t.Fatalf("hits %d misses %d, want 2 and 1", st.Hits, st.Misses)
	}
	heavy := New(shards*8, func(k int) uint64 { return uint64(k) }, func(k, v int) int64 { return int64(v) })
	heavy.Put(1, 8)
	heavy.Put(1, 9) // over the shard's budget: refused, 8 stays
	if v, ok := heavy.Get(1); !ok || v != 8 {
		t.Fatalf("after an oversized Put: %d, %v; want the old 8", v, ok)
	}
	c.DropIf(func(k int) bool { return k%2 == 1 })
	for k := range 1000 {
		if _, ok := c.Get(k); ok && k%2 == 1 {
			t.Fatalf("key %d survived DropIf", k)
		}
	}
}

// TestCacheConcurrent hammers one cache from many goroutines (run with
// -race): every hit returns the value put under its key, and the weight
// stays within the budget and equal to the entries' weights.
func TestCacheConcurrent(t *testing.T) {
	const max = shards * 16
	c := New(max, func(k int) uint64 { return uint64(k) }, func(k, v int) int64 { return 2 })
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 5000 {
				k := (g*7919 + i*31) % 1000
				if v, ok := c.Get(k); ok {
					if v != k*3 {
						t.Errorf("key %d holds %d", k, v)
						return
					}
					continue
				}
				c.Put(k, k*3)
				if i%500 == 0 {
					c.DropIf(func(key int) bool { return key%10 == g })
				}
				if st := c.Stats(); st.Weight > max {
					t.Errorf("weight %d over %d", st.Weight, max)
					return
				}
			}
		}()
	}
	wg.Wait()
	if st := c.Stats(); st.Weight != 2*st.Entries || st.Hits+st.Misses != 8*5000 {
		t.Fatalf("%+v: want weight twice the entries, 40000 lookups", st)
	}
}
