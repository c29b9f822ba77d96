package arrowenc

import (
	"fmt"
	"sync"
	"unsafe"
	"weak"

	"github.com/sstable-flight/sstable-flight/internal/invariants"
)

// poolGuard is what an invariants build adds to the buffer pool: the set
// of buffers sitting in it, so that freeing one twice panics instead of
// handing the same memory to two streams, and the check, when a buffer
// is handed out again, that its poison is intact (nobody wrote to it
// after freeing it). Other builds never call it; its zero value is an
// empty map and a mutex.
//
// The set holds weak pointers: a buffer the sync.Pool dropped and the GC
// took is no longer in the set, and a new buffer at the same address is
// another weak pointer, never mistaken for it.
type poolGuard struct {
	mu      sync.Mutex
	pooled  map[weak.Pointer[byte]]struct{}
	sweepAt int // size of pooled at which collected buffers are forgotten
}

// freed poisons a whole buffer (b[:cap]) going into the pool and records
// it there; it panics if the buffer is there already.
func (g *poolGuard) freed(b []byte) {
	k := weak.Make(unsafe.SliceData(b))
	g.mu.Lock()
	_, twice := g.pooled[k]
	if !twice {
		if len(g.pooled) >= g.sweepAt {
			for w := range g.pooled {
				if w.Value() == nil {
					delete(g.pooled, w)
				}
			}
			g.sweepAt = 2*len(g.pooled) + 1024
		}
		if g.pooled == nil {
			g.pooled = map[weak.Pointer[byte]]struct{}{}
		}
		g.pooled[k] = struct{}{}
	}
	g.mu.Unlock()
	if twice {
		panic(fmt.Sprintf("flightserver: Arrow buffer %p (%d bytes) freed twice: the pool would hand it to two streams", unsafe.SliceData(b), len(b)))
	}
	invariants.Poison(b)
}

// taken checks a whole buffer (b[:cap]) coming out of the pool still
// holds only poison, and forgets it.
func (g *poolGuard) taken(b []byte) {
	if !invariants.Poisoned(b) {
		panic(fmt.Sprintf("flightserver: Arrow buffer %p (%d bytes) was written after it was freed", unsafe.SliceData(b), len(b)))
	}
	g.mu.Lock()
	delete(g.pooled, weak.Make(unsafe.SliceData(b)))
	g.mu.Unlock()
}
