package sstable

import (
	"bytes"
	"sync/atomic"

	"github.com/sstable-flight/sstable-flight/internal/lru"
	"github.com/sstable-flight/sstable-flight/token"
)

// KeyCache keeps where partitions start in Data.db, by reader and key,
// for point reads of BIG SSTables: a warm keyed read then skips the
// Index.db scan between two summary entries (up to min_index_interval
// entries decoded, 11% of a keyed read's instructions, client included),
// as Cassandra's own key cache does. The key read at that position is
// still checked against the one sought. Safe for concurrent use.
type KeyCache struct {
	c *lru.Cache[keyCacheKey, keyCacheEntry]
}

type keyCacheKey struct {
	reader uint64
	token  token.Token // tokens spread keys; the entry holds the key itself
}

type keyCacheEntry struct {
	key []byte // never written after it is cached
	pos int64
}

// NewKeyCache returns a key cache of about maxBytes (each entry weighs its
// key plus a fixed 96 bytes for the map and list around it).
func NewKeyCache(maxBytes int64) *KeyCache {
	return &KeyCache{c: lru.New(maxBytes,
		func(k keyCacheKey) uint64 { return k.reader<<40 ^ uint64(k.token) },
		func(_ keyCacheKey, e keyCacheEntry) int64 { return int64(len(e.key)) + 96 })}
}

// KeyCacheStats are a key cache's counters since it was made.
type KeyCacheStats struct {
	Hits, Misses, Bytes, Entries int64
}

// Stats reads the counters.
func (c *KeyCache) Stats() KeyCacheStats {
	st := c.c.Stats()
	return KeyCacheStats{Hits: st.Hits, Misses: st.Misses, Bytes: st.Weight, Entries: st.Entries}
}

// get returns the cached position of key and the cached copy of the key.
// Two keys of one token share a slot: the other one is a miss.
func (c *KeyCache) get(reader uint64, t token.Token, key []byte) (keyCacheEntry, bool) {
	e, ok := c.c.Get(keyCacheKey{reader, t})
	if !ok || !bytes.Equal(e.key, key) {
		return keyCacheEntry{}, false
	}
	return e, true
}

// put caches a partition's position; key must not change after.
func (c *KeyCache) put(reader uint64, t token.Token, key []byte, pos int64) {
	c.c.Put(keyCacheKey{reader, t}, keyCacheEntry{key: key, pos: pos})
}

// drop forgets a closed reader's entries.
func (c *KeyCache) drop(reader uint64) {
	c.c.DropIf(func(k keyCacheKey) bool { return k.reader == reader })
}

// readerIDs numbers readers for the key cache.
var readerIDs atomic.Uint64
