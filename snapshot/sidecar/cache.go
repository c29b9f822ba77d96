package sidecar

import (
	"container/list"
	"strings"
	"sync"
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
// NB: cached blocks are shared and never written after insertion;
// readers copy out of them.
type blockCache struct {
	capacity int64 // bytes; < 0 caches nothing
	st       *counters

	mu       sync.Mutex
	bytes    int64
	lru      list.List // of *cacheEntry, most recently used first
	entries  map[blockKey]*list.Element
	inflight map[blockKey]*fetch
	// gen changes on every purge, so a fetch that started before one
	// does not insert what the purge meant to drop.
	gen uint64
}

type cacheEntry struct {
	key  blockKey
	data []byte
}

// fetch is one block request in flight; done closes when data and err
// are set.
type fetch struct {
	done chan struct{}
	data []byte
	err  error
}

func newBlockCache(capacity int64, st *counters) *blockCache {
	return &blockCache{
		capacity: capacity,
		st:       st,
		entries:  map[blockKey]*list.Element{},
		inflight: map[blockKey]*fetch{},
	}
}

// get returns a block from the cache, from a fetch in flight, or from
// load, which it calls at most once at a time per key. Errors are not
// cached: the next reader tries again.
func (c *blockCache) get(key blockKey, load func() ([]byte, error)) ([]byte, error) {
	c.mu.Lock()
	if e, ok := c.entries[key]; ok {
		c.lru.MoveToFront(e)
		c.mu.Unlock()
		c.st.hits.Add(1)
		return e.Value.(*cacheEntry).data, nil
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
		c.insertLocked(key, f.data)
	}
	c.mu.Unlock()
	close(f.done)
	return f.data, f.err
}

func (c *blockCache) insertLocked(key blockKey, data []byte) {
	n := int64(len(data))
	if n > c.capacity {
		return
	}
	c.entries[key] = c.lru.PushFront(&cacheEntry{key: key, data: data})
	c.bytes += n
	for c.bytes > c.capacity {
		c.removeLocked(c.lru.Back())
		c.st.evictions.Add(1)
	}
}

func (c *blockCache) removeLocked(e *list.Element) {
	ce := c.lru.Remove(e).(*cacheEntry)
	delete(c.entries, ce.key)
	c.bytes -= int64(len(ce.data))
}

// purge drops the blocks of every file whose key starts with prefix.
func (c *blockCache) purge(prefix string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	for key, e := range c.entries {
		if strings.HasPrefix(key.file, prefix) {
			c.removeLocked(e)
		}
	}
}

// usage is the cache's size in bytes and blocks.
func (c *blockCache) usage() (bytes, blocks int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.bytes, int64(len(c.entries))
}
