package compress

import (
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/sstable-flight/sstable-flight/internal/lru"
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
// NB: the order of use and the budget are an lru.Map per shard, which
// weighs each chunk in slots, its budget the shard's slot count; this
// file keeps the slots themselves. The Map hands an evicted chunk's
// slots back to the shard's free list (release) inside MakeRoom, under
// the shard's lock, and put takes slots only after MakeRoom.
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
	// lru orders the chunks and weighs them in slots, within slots.
	lru lru.Map[cacheKey, cachedChunk]
}

// cachedChunk is where a cached chunk's bytes are.
type cachedChunk struct {
	n     int     // chunk length
	slots []int32 // slotSize each
}

// NewChunkCache returns a cache holding up to maxBytes of chunks.
func NewChunkCache(maxBytes int64) *ChunkCache {
	c := &ChunkCache{}
	for i := range c.shards {
		s := &c.shards[i]
		if size := maxBytes / cacheShards / slotSize * slotSize; size > 0 {
			mem, err := syscall.Mmap(-1, 0, int(size), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
			if err == nil { // else no memory for this shard: it caches nothing
				s.mem, s.slots = mem, int32(size/slotSize)
			}
		}
		s.lru.Init(int64(s.slots), s.release)
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
		st.Bytes += s.lru.Weight() * slotSize
		st.Entries += int64(s.lru.Len())
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
	e, ok := s.lru.Get(k)
	n := 0
	if ok {
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
	if _, ok := s.lru.Peek(k); ok {
		return // another read of the same chunk got here first
	}
	s.lru.MakeRoom(int64(need)) // frees at least need slots (release)
	e := cachedChunk{n: len(b), slots: make([]int32, need)}
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
	s.lru.Add(k, e, int64(need))
}

// drop forgets a closed reader's chunks.
func (c *ChunkCache) drop(reader uint64) {
	for i := range c.shards {
		s := &c.shards[i]
		s.mu.Lock()
		s.lru.RemoveIf(func(k cacheKey) bool { return k.reader == reader })
		s.mu.Unlock()
	}
}

// release frees a chunk's slots when its shard's Map lets it go; the
// shard's lock is held.
func (s *cacheShard) release(_ cacheKey, e cachedChunk) {
	s.free = append(s.free, e.slots...)
}
