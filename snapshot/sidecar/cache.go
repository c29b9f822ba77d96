package sidecar

import (
	"strings"
	"sync"

	"github.com/sstable-flight/sstable-flight/internal/lru"
)

// blockKey names one block: a file (see fileKey) and the block's index,
// its offset divided by the block size.
type blockKey struct {
	file  string
	index int64
}

// blockCache holds fetched blocks, least recently used evicted first,
// within a byte budget shared by every file of a client. A block being
// fetched is in flight: other readers of it wait for that fetch instead
// of sending their own request.
//
// NB: one lru.Map, not a sharded lru.Cache: the blocks, the fetches in
// flight and the purge generation are guarded by one lock, so that a
// fetch's check of the generation and its insert happen with no purge
// between them. The lock is never held across a fetch.
//
// NB: cached blocks are shared and never written after insertion;
// readers copy out of them.
type blockCache struct {
	st *counters

	mu       sync.Mutex
	blocks   lru.Map[blockKey, []byte] // weighs blocks in bytes; budget < 0 caches nothing
	inflight map[blockKey]*fetch
	// gen changes on every purge, so a fetch that started before one
	// does not insert what the purge meant to drop.
	gen uint64
}

// fetch is one block request in flight; done closes when data and err
// are set.
type fetch struct {
	done chan struct{}
	data []byte
	err  error
}

func newBlockCache(capacity int64, st *counters) *blockCache {
	c := &blockCache{st: st, inflight: map[blockKey]*fetch{}}
	c.blocks.Init(capacity, nil)
	return c
}

// get returns a block from the cache, from a fetch in flight, or from
// load, which it calls at most once at a time per key. Errors are not
// cached: the next reader tries again.
func (c *blockCache) get(key blockKey, load func() ([]byte, error)) ([]byte, error) {
	c.mu.Lock()
	if data, ok := c.blocks.Get(key); ok {
		c.mu.Unlock()
		c.st.hits.Add(1)
		return data, nil
	}
	if f, ok := c.inflight[key]; ok {
		c.mu.Unlock()
		c.st.shared.Add(1)
		<-f.done
		return f.data, f.err
	}
	f := &fetch{done: make(chan struct{})}
	c.inflight[key] = f
	gen := c.gen
	c.mu.Unlock()

	c.st.misses.Add(1)
	f.data, f.err = load()

	c.mu.Lock()
	delete(c.inflight, key)
	if f.err == nil && gen == c.gen {
		// No block is cached under key: only this fetch may insert it.
		evicted, _ := c.blocks.Add(key, f.data, int64(len(f.data)))
		c.st.evictions.Add(int64(evicted))
	}
	c.mu.Unlock()
	close(f.done)
	return f.data, f.err
}

// purge drops the blocks of every file whose key starts with prefix.
func (c *blockCache) purge(prefix string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	c.blocks.RemoveIf(func(key blockKey) bool { return strings.HasPrefix(key.file, prefix) })
}

// usage is the cache's size in bytes and blocks.
func (c *blockCache) usage() (bytes, blocks int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.blocks.Weight(), int64(c.blocks.Len())
}
