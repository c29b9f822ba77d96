package sidecar

import (
	"bytes"
	"errors"
	"runtime"
	"sync"
	"testing"
)

// TestBlockCacheInFlight: readers of a block being fetched wait for that
// fetch (one load); a purge while it is in flight keeps its block out of
// the cache, so the next reader loads again; errors are not cached; and
// the cache stays within its budget, counting what it evicts.
func TestBlockCacheInFlight(t *testing.T) {
	var st counters
	c := newBlockCache(3*4, &st)
	key := blockKey{file: "ks/t/snap/a-Data.db", index: 0}
	block := []byte("abcd")

	started, release := make(chan struct{}), make(chan struct{})
	loads := 0
	load := func() ([]byte, error) {
		loads++
		close(started)
		<-release
		return block, nil
	}
	var wg sync.WaitGroup
	got := make([][]byte, 4)
	wg.Add(1)
	go func() { defer wg.Done(); got[0], _ = c.get(key, load) }()
	<-started
	for i := 1; i < len(got); i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i], _ = c.get(key, func() ([]byte, error) { t.Error("a second load of a block in flight"); return nil, nil })
		}()
	}
	for st.shared.Load() < int64(len(got)-1) { // the others are waiting
		runtime.Gosched()
	}
	c.purge("ks/t/snap/")
	close(release)
	wg.Wait()
	for i, b := range got {
		if !bytes.Equal(b, block) {
			t.Fatalf("reader %d got %q", i, b)
		}
	}
	if bytes, blocks := c.usage(); loads != 1 || bytes != 0 || blocks != 0 {
		t.Fatalf("%d loads, %d bytes in %d blocks after a purge during the fetch; want 1 load, nothing cached", loads, bytes, blocks)
	}

	if _, err := c.get(key, func() ([]byte, error) { return nil, errors.New("boom") }); err == nil {
		t.Fatal("load error lost")
	}
	for i := range int64(5) {
		if _, err := c.get(blockKey{file: key.file, index: i}, func() ([]byte, error) { return block, nil }); err != nil {
			t.Fatal(err)
		}
	}
	if bytes, blocks := c.usage(); bytes != 12 || blocks != 3 || st.evictions.Load() != 2 || st.misses.Load() != 7 {
		t.Fatalf("%d bytes in %d blocks, %d evictions, %d misses; want 12, 3, 2, 7", bytes, blocks, st.evictions.Load(), st.misses.Load())
	}
}
