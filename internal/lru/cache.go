package lru

import (
	"sync"
	"sync/atomic"
)

const shards = 16

// Cache is a Map made safe for concurrent use: keys are spread over
// shards, each a Map under its own lock with a sixteenth of the budget.
type Cache[K comparable, V any] struct {
	shards [shards]shard[K, V]
	hash   func(K) uint64
	weigh  func(K, V) int64
	hits   atomic.Int64
	misses atomic.Int64
}

type shard[K comparable, V any] struct {
	mu sync.Mutex
	m  Map[K, V]
}

// New returns a cache of at most maxWeight in total; hash spreads keys
// over the shards and weigh gives an entry's weight.
func New[K comparable, V any](maxWeight int64, hash func(K) uint64, weigh func(K, V) int64) *Cache[K, V] {
	c := &Cache[K, V]{hash: hash, weigh: weigh}
	for i := range c.shards {
		c.shards[i].m.Init(maxWeight/shards, nil)
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
		st.Weight += s.m.Weight()
		st.Entries += int64(s.m.Len())
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
	v, ok := s.m.Get(k)
	s.mu.Unlock()
	if !ok {
		c.misses.Add(1)
		return v, false
	}
	c.hits.Add(1)
	return v, true
}

// Put caches v under k, evicting the least recent entries of its shard
// to make room; an entry heavier than a shard's budget is not kept (an
// existing one stays), and an existing one is replaced.
func (c *Cache[K, V]) Put(k K, v V) {
	s := c.shard(k)
	w := c.weigh(k, v)
	if w > s.m.MaxWeight() { // set before c was shared: no lock needed
		return
	}
	s.mu.Lock()
	s.m.Add(k, v, w)
	s.mu.Unlock()
}

// DropIf removes every entry whose key f accepts.
func (c *Cache[K, V]) DropIf(f func(K) bool) {
	for i := range c.shards {
		s := &c.shards[i]
		s.mu.Lock()
		s.m.RemoveIf(f)
		s.mu.Unlock()
	}
}
