// Package lru is a sharded least-recently-used cache bounded by the
// summed weight (bytes) of its entries, with no goroutines of its own.
// The SSTable reader keeps partition positions in it, for point reads.
// (Decompressed chunks have a cache of their own, off the Go heap:
// compress.ChunkCache.)
//
// NB: written here rather than taken from a library: golang-lru bounds
// entries, not bytes, and the entries' sizes differ (chunks per table,
// keys); otter and ristretto weigh entries but run their upkeep on
// goroutines of their own, which a library package should not start.
package lru

import (
	"sync"
	"sync/atomic"
)

const shards = 16

// Cache maps K to V within a weight budget. Safe for concurrent use.
type Cache[K comparable, V any] struct {
	shards [shards]shard[K, V]
	hash   func(K) uint64
	weigh  func(K, V) int64
	hits   atomic.Int64
	misses atomic.Int64
}

type shard[K comparable, V any] struct {
	mu     sync.Mutex
	max    int64
	weight int64
	m      map[K]*entry[K, V]
	lru    entry[K, V] // sentinel: lru.next is the most recent
}

type entry[K comparable, V any] struct {
	key        K
	val        V
	weight     int64
	prev, next *entry[K, V]
}

// New returns a cache of at most maxWeight in total; hash spreads keys
// over the shards and weigh gives an entry's weight.
func New[K comparable, V any](maxWeight int64, hash func(K) uint64, weigh func(K, V) int64) *Cache[K, V] {
	c := &Cache[K, V]{hash: hash, weigh: weigh}
	for i := range c.shards {
		s := &c.shards[i]
		s.max = maxWeight / shards
		s.m = map[K]*entry[K, V]{}
		s.lru.next, s.lru.prev = &s.lru, &s.lru
	}
	return c
}

// Stats are a cache's counters.
type Stats struct {
	Hits, Misses, Weight, Entries int64
}

// Stats reads the counters.
func (c *Cache[K, V]) Stats() Stats {
	st := Stats{Hits: c.hits.Load(), Misses: c.misses.Load()}
	for i := range c.shards {
		s := &c.shards[i]
		s.mu.Lock()
		st.Weight += s.weight
		st.Entries += int64(len(s.m))
		s.mu.Unlock()
	}
	return st
}

func (c *Cache[K, V]) shard(k K) *shard[K, V] {
	return &c.shards[(c.hash(k)*0x9e3779b97f4a7c15)>>60]
}

// Get returns the value cached under k and makes it the most recent.
func (c *Cache[K, V]) Get(k K) (V, bool) {
	s := c.shard(k)
	s.mu.Lock()
	e, ok := s.m[k]
	if ok {
		e.unlink()
		s.pushFront(e)
	}
	s.mu.Unlock()
	if !ok {
		c.misses.Add(1)
		var zero V
		return zero, false
	}
	c.hits.Add(1)
	return e.val, true
}

// Put caches v under k, evicting the least recent entries of its shard
// to make room; an entry heavier than a shard's budget is not kept, and
// an existing one is replaced.
func (c *Cache[K, V]) Put(k K, v V) {
	s := c.shard(k)
	w := c.weigh(k, v)
	if w > s.max {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if old, ok := s.m[k]; ok {
		s.remove(old)
	}
	for s.weight+w > s.max {
		s.remove(s.lru.prev)
	}
	e := &entry[K, V]{key: k, val: v, weight: w}
	s.pushFront(e)
	s.m[k] = e
	s.weight += w
}

// DropIf removes every entry whose key f accepts.
func (c *Cache[K, V]) DropIf(f func(K) bool) {
	for i := range c.shards {
		s := &c.shards[i]
		s.mu.Lock()
		for k, e := range s.m {
			if f(k) {
				s.remove(e)
			}
		}
		s.mu.Unlock()
	}
}

func (s *shard[K, V]) remove(e *entry[K, V]) {
	e.unlink()
	delete(s.m, e.key)
	s.weight -= e.weight
}

func (s *shard[K, V]) pushFront(e *entry[K, V]) {
	e.prev, e.next = &s.lru, s.lru.next
	s.lru.next.prev = e
	s.lru.next = e
}

func (e *entry[K, V]) unlink() {
	e.prev.next, e.next.prev = e.next, e.prev
	e.prev, e.next = nil, nil
}
