package arrowenc

import (
	"math/bits"
	"sync"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/sstable-flight/sstable-flight/internal/invariants"
)

// poolAllocator is an Arrow allocator that recycles buffers by
// power-of-two size class. A stream's builders hand their buffers to
// each record batch and the batch frees them once sent, so the next batch
// reuses the same memory instead of allocating megabytes per batch: the
// scan profile before it showed a quarter of the CPU in the garbage
// collector (write barriers, clearing, scanning) driven by that churn.
// arrow-go's own allocators either do not pool (GoAllocator) or need cgo
// (mallocator).
type poolAllocator struct {
	fresh *memory.GoAllocator
	pools [maxClass + 1]sync.Pool
	// hdrs recycles the *[]byte holders the pools keep buffers in: a
	// new holder per Free was 10 allocations of a point read.
	hdrs sync.Pool
	// guard, in invariants builds only, knows which buffers sit in the
	// pools (pool_guard.go).
	guard poolGuard
}

const (
	minClass = 6  // 64 B
	maxClass = 26 // 64 MiB; larger buffers are not pooled
)

// NewPoolAllocator is the allocator a server's streams share by default
// (Config.Allocator): record batches free their buffers once sent and the
// next batch, of any stream, reuses them. Tests put arrow's checked
// allocator over it, never in its place, so that the streams' buffers
// still go through the pool.
func NewPoolAllocator() memory.Allocator { return newPoolAllocator() }

func newPoolAllocator() *poolAllocator { return &poolAllocator{fresh: memory.NewGoAllocator()} }

func sizeClass(n int) int {
	if n <= 1<<minClass {
		return minClass
	}
	return bits.Len(uint(n - 1))
}

// Allocate returns zeroed memory of the given size, 64-byte aligned as
// GoAllocator's is.
func (p *poolAllocator) Allocate(size int) []byte {
	c := sizeClass(size)
	if c > maxClass {
		return p.fresh.Allocate(size)
	}
	if v := p.pools[c].Get(); v != nil {
		h := v.(*[]byte)
		if invariants.Enabled {
			p.guard.taken(*h)
		}
		b := (*h)[:size]
		*h = nil
		p.hdrs.Put(h)
		clear(b)
		return b
	}
	return p.fresh.Allocate(1 << c)[:size]
}

// Reallocate grows in place within the size class, else moves.
func (p *poolAllocator) Reallocate(size int, b []byte) []byte {
	if size <= cap(b) {
		old := len(b)
		b = b[:size]
		if size > old {
			clear(b[old:])
		}
		return b
	}
	nb := p.Allocate(size)
	copy(nb, b)
	p.Free(b)
	return nb
}

// Free recycles a buffer this allocator made (its capacity is a size
// class); others are left to the garbage collector. In invariants builds
// the buffer is poisoned, and freeing one that is already in the pool
// panics: two streams would otherwise get the same memory.
func (p *poolAllocator) Free(b []byte) {
	c := cap(b)
	if c < 1<<minClass || c&(c-1) != 0 || sizeClass(c) > maxClass {
		if invariants.Enabled {
			invariants.Poison(b)
		}
		return
	}
	if invariants.Enabled {
		p.guard.freed(b[:c])
	}
	h, _ := p.hdrs.Get().(*[]byte)
	if h == nil {
		h = new([]byte)
	}
	*h = b[:c]
	p.pools[sizeClass(c)].Put(h)
}
