package compress

import (
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
)

// ChunkCache keeps decompressed chunks of many readers within a byte
// budget, least recently used out first, for point reads: a warm keyed
// read then copies a few hundred bytes instead of decompressing its whole
// chunk (an LZ4 16 KiB chunk was 16% of a point read's instructions,
// client included). Scans stream each chunk once and do not use it. Safe
// for concurrent use.
//
// The chunks live outside the Go heap, in 4 KiB slots of anonymous memory
// mapped per shard (pages are touched, so resident, only as slots fill):
// on the heap the garbage collector let RSS grow to twice the cache (a
// full 64 MiB cache cost 130 MiB). Bytes are copied in and out under the
// shard's lock, so an evicted slot is never reused under a reader.
//
// NB: written here rather than taken from a library: golang-lru bounds
// entries, not bytes, and keeps them on the heap; otter and ristretto
// weigh entries but run upkeep on goroutines of their own.
type ChunkCache struct {
	shards [cacheShards]cacheShard
	hits   atomic.Int64
	misses atomic.Int64
}

const (
	cacheShards = 16
	slotSize    = 4 << 10
)

type cacheKey struct {
	reader uint64 // Reader.id
	chunk  int
}

type cacheShard struct {
	mu    sync.Mutex
	mem   []byte  // mapped; nil when the budget is under a slot or mapping failed
	slots int32   // slots in mem
	next  int32   // slots below next have been used at least once
	free  []int32 // slots below next that hold nothing
	m     map[cacheKey]*cacheEntry
	lru   cacheEntry // sentinel: lru.next is the most recent
}

type cacheEntry struct {
	key        cacheKey
	n          int     // chunk length
	slots      []int32 // where its bytes are, slotSize each
	prev, next *cacheEntry
}

// NewChunkCache returns a cache holding up to maxBytes of chunks.
func NewChunkCache(maxBytes int64) *ChunkCache {
	c := &ChunkCache{}
	for i := range c.shards {
		s := &c.shards[i]
		s.m = map[cacheKey]*cacheEntry{}
		s.lru.next, s.lru.prev = &s.lru, &s.lru
		size := maxBytes / cacheShards / slotSize * slotSize
		if size <= 0 {
			continue
		}
		mem, err := syscall.Mmap(-1, 0, int(size), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
		if err != nil {
			continue // no memory for this shard: it caches nothing
		}
		s.mem, s.slots = mem, int32(size/slotSize)
	}
	// The mappings go with the cache: nothing outside it refers to them.
	runtime.AddCleanup(c, func(mems [cacheShards][]byte) {
		for _, m := range mems {
			if m != nil {
				syscall.Munmap(m)
			}
		}
	}, c.mappings())
	return c
}

func (c *ChunkCache) mappings() (out [cacheShards][]byte) {
	for i := range c.shards {
		out[i] = c.shards[i].mem
	}
	return out
}

// ChunkCacheStats are a cache's counters since it was made.
type ChunkCacheStats struct {
	Hits, Misses, Bytes, Entries int64
}

// Stats reads the counters; Bytes counts whole slots.
func (c *ChunkCache) Stats() ChunkCacheStats {
	st := ChunkCacheStats{Hits: c.hits.Load(), Misses: c.misses.Load()}
	for i := range c.shards {
		s := &c.shards[i]
		s.mu.Lock()
		st.Bytes += int64(s.next-int32(len(s.free))) * slotSize
		st.Entries += int64(len(s.m))
		s.mu.Unlock()
	}
	return st
}

func (c *ChunkCache) shard(k cacheKey) *cacheShard {
	h := (k.reader<<32 ^ uint64(k.chunk)) * 0x9e3779b97f4a7c15
	return &c.shards[h>>60]
}

// read copies the cached chunk's bytes from off into p; false when the
// chunk is not cached.
func (c *ChunkCache) read(k cacheKey, p []byte, off int) (int, bool) {
	s := c.shard(k)
	s.mu.Lock()
	e, ok := s.m[k]
	n := 0
	if ok {
		e.unlink()
		s.pushFront(e)
		for off < e.n && n < len(p) {
			slot := e.slots[off/slotSize]
			in := off % slotSize
			end := min(slotSize, in+(e.n-off))
			m := copy(p[n:], s.mem[int(slot)*slotSize+in:int(slot)*slotSize+end])
			n += m
			off += m
		}
	}
	s.mu.Unlock()
	if !ok {
		c.misses.Add(1)
		return 0, false
	}
	c.hits.Add(1)
	return n, true
}

// put copies b into the cache, evicting the shard's least recent chunks
// to make room; a chunk larger than a shard is not kept.
func (c *ChunkCache) put(k cacheKey, b []byte) {
	s := c.shard(k)
	need := int32((len(b) + slotSize - 1) / slotSize)
	if need == 0 || need > s.slots {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.m[k]; ok {
		return // another read of the same chunk got here first
	}
	for int32(len(s.free))+s.slots-s.next < need {
		s.remove(s.lru.prev)
	}
	e := &cacheEntry{key: k, n: len(b), slots: make([]int32, need)}
	for i := range e.slots {
		if n := len(s.free); n > 0 {
			e.slots[i] = s.free[n-1]
			s.free = s.free[:n-1]
		} else {
			e.slots[i] = s.next
			s.next++
		}
		copy(s.mem[int(e.slots[i])*slotSize:int(e.slots[i]+1)*slotSize], b[i*slotSize:])
	}
	s.pushFront(e)
	s.m[k] = e
}

// drop forgets a closed reader's chunks.
func (c *ChunkCache) drop(reader uint64) {
	for i := range c.shards {
		s := &c.shards[i]
		s.mu.Lock()
		for k, e := range s.m {
			if k.reader == reader {
				s.remove(e)
			}
		}
		s.mu.Unlock()
	}
}

func (s *cacheShard) remove(e *cacheEntry) {
	e.unlink()
	delete(s.m, e.key)
	s.free = append(s.free, e.slots...)
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
