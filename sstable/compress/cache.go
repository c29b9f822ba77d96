package compress

import (
	"sync"
	"sync/atomic"
)

// ChunkCache keeps decompressed chunks of many readers within a byte
// budget, least recently used out first, for point reads: a warm keyed
// read then copies a few hundred bytes instead of decompressing its whole
// chunk (an LZ4 16 KiB chunk was 16% of a point read's instructions,
// client included). Scans stream each chunk once and do not use it.
// Entries are never written after they are cached, so readers copy from
// them without a lock. Safe for concurrent use.
//
// NB: written here rather than taken from a library: golang-lru bounds
// entries, not bytes, and chunk sizes differ per table; otter and
// ristretto weigh entries but run their upkeep on goroutines of their own,
// which a library package should not start.
type ChunkCache struct {
	shards [cacheShards]cacheShard
	hits   atomic.Int64
	misses atomic.Int64
}

const cacheShards = 16

type cacheKey struct {
	reader uint64 // Reader.id
	chunk  int
}

type cacheShard struct {
	mu    sync.Mutex
	max   int64
	bytes int64
	m     map[cacheKey]*cacheEntry
	lru   cacheEntry // sentinel: lru.next is the most recent
}

type cacheEntry struct {
	key        cacheKey
	b          []byte
	prev, next *cacheEntry
}

// NewChunkCache returns a cache holding up to maxBytes of chunks.
func NewChunkCache(maxBytes int64) *ChunkCache {
	c := &ChunkCache{}
	for i := range c.shards {
		s := &c.shards[i]
		s.max = maxBytes / cacheShards
		s.m = map[cacheKey]*cacheEntry{}
		s.lru.next, s.lru.prev = &s.lru, &s.lru
	}
	return c
}

// ChunkCacheStats are a cache's counters since it was made.
type ChunkCacheStats struct {
	Hits, Misses, Bytes, Entries int64
}

// Stats reads the counters.
func (c *ChunkCache) Stats() ChunkCacheStats {
	st := ChunkCacheStats{Hits: c.hits.Load(), Misses: c.misses.Load()}
	for i := range c.shards {
		s := &c.shards[i]
		s.mu.Lock()
		st.Bytes += s.bytes
		st.Entries += int64(len(s.m))
		s.mu.Unlock()
	}
	return st
}

func (c *ChunkCache) shard(k cacheKey) *cacheShard {
	h := k.reader*0x9e3779b97f4a7c15 ^ uint64(k.chunk)*0xbf58476d1ce4e5b9
	return &c.shards[h>>60]
}

// get returns the cached chunk, which the caller must not modify.
func (c *ChunkCache) get(k cacheKey) ([]byte, bool) {
	s := c.shard(k)
	s.mu.Lock()
	e, ok := s.m[k]
	if ok {
		e.unlink()
		s.pushFront(e)
	}
	s.mu.Unlock()
	if ok {
		c.hits.Add(1)
		return e.b, true
	}
	c.misses.Add(1)
	return nil, false
}

// put caches b, which nobody may modify after; chunks larger than a
// shard's budget are not kept.
func (c *ChunkCache) put(k cacheKey, b []byte) {
	s := c.shard(k)
	n := int64(cap(b))
	if n > s.max {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.m[k]; ok {
		return // another reader of the same chunk got here first
	}
	for s.bytes+n > s.max {
		old := s.lru.prev
		old.unlink()
		delete(s.m, old.key)
		s.bytes -= int64(cap(old.b))
	}
	e := &cacheEntry{key: k, b: b}
	s.pushFront(e)
	s.m[k] = e
	s.bytes += n
}

// drop forgets a closed reader's chunks.
func (c *ChunkCache) drop(reader uint64) {
	for i := range c.shards {
		s := &c.shards[i]
		s.mu.Lock()
		for k, e := range s.m {
			if k.reader == reader {
				e.unlink()
				delete(s.m, k)
				s.bytes -= int64(cap(e.b))
			}
		}
		s.mu.Unlock()
	}
}

func (s *cacheShard) pushFront(e *cacheEntry) {
	e.prev, e.next = &s.lru, s.lru.next
	s.lru.next.prev = e
	s.lru.next = e
}

func (e *cacheEntry) unlink() {
	e.prev.next, e.next.prev = e.next, e.prev
	e.prev, e.next = nil, nil
}
