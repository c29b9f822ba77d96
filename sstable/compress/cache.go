package compress

import (
	"github.com/sstable-flight/sstable-flight/sstable/internal/lru"
)

// ChunkCache keeps decompressed chunks of many readers within a byte
// budget, least recently used out first, for point reads: a warm keyed
// read then copies a few hundred bytes instead of decompressing its whole
// chunk (an LZ4 16 KiB chunk was 16% of a point read's instructions,
// client included). Scans stream each chunk once and do not use it.
// Cached chunks are never written again, so readers copy from them
// without a lock. Safe for concurrent use.
type ChunkCache struct {
	c *lru.Cache[cacheKey, []byte]
}

type cacheKey struct {
	reader uint64 // Reader.id
	chunk  int
}

// NewChunkCache returns a cache holding up to maxBytes of chunks.
func NewChunkCache(maxBytes int64) *ChunkCache {
	return &ChunkCache{c: lru.New(maxBytes,
		func(k cacheKey) uint64 { return k.reader<<32 ^ uint64(k.chunk) },
		func(_ cacheKey, b []byte) int64 { return int64(cap(b)) })}
}

// ChunkCacheStats are a cache's counters since it was made.
type ChunkCacheStats struct {
	Hits, Misses, Bytes, Entries int64
}

// Stats reads the counters.
func (c *ChunkCache) Stats() ChunkCacheStats {
	st := c.c.Stats()
	return ChunkCacheStats{Hits: st.Hits, Misses: st.Misses, Bytes: st.Weight, Entries: st.Entries}
}

// get returns the cached chunk, which the caller must not modify.
func (c *ChunkCache) get(k cacheKey) ([]byte, bool) { return c.c.Get(k) }

// put caches b, which nobody may modify after.
func (c *ChunkCache) put(k cacheKey, b []byte) { c.c.Put(k, b) }

// drop forgets a closed reader's chunks.
func (c *ChunkCache) drop(reader uint64) {
	c.c.DropIf(func(k cacheKey) bool { return k.reader == reader })
}
