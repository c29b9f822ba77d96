//go:build invariants

package arrowenc

import (
	"strings"
	"testing"

	"github.com/sstable-flight/sstable-flight/internal/invariants"
)

// reusedOnce allocates size bytes until the pool hands back a buffer
// freed just before (see recycle), without dirtying it.
func reusedOnce(t *testing.T, p *poolAllocator, size int) (first, again []byte) {
	t.Helper()
	for range 200 {
		b := p.Allocate(size)
		p.Free(b)
		c := p.Allocate(size)
		if addr(c) == addr(b) {
			return b, c
		}
		p.Free(c)
	}
	t.Fatal("the pool never handed back a freed buffer")
	return nil, nil
}

func TestPoolPoisonsFreedBuffers(t *testing.T) {
	p := newPoolAllocator()
	b := p.Allocate(1000)
	for i := range b {
		b[i] = 1
	}
	p.Free(b)
	if !invariants.Poisoned(b[:cap(b)]) {
		t.Fatal("a freed buffer is not poisoned")
	}
	// Past the largest class, and not the pool's: poisoned too (the
	// caller gave them up), though never pooled.
	big := p.Allocate(1<<maxClass + 1)
	p.Free(big)
	foreign := make([]byte, 100)
	p.Free(foreign)
	if !invariants.Poisoned(big) || !invariants.Poisoned(foreign) {
		t.Fatal("a freed unpooled buffer is not poisoned")
	}
	// Handed out again, it is zero.
	_, again := reusedOnce(t, p, 1000)
	for i, c := range again {
		if c != 0 {
			t.Fatalf("reused buffer byte %d is %#x", i, c)
		}
	}
}

func TestPoolDoubleFreePanics(t *testing.T) {
	p := newPoolAllocator()
	b := p.Allocate(1000)
	p.Free(b)
	if msg := invariants.PanicMessage(func() { p.Free(b) }); !strings.Contains(msg, "freed twice") {
		t.Fatalf("second Free of a pooled buffer: panic %q", msg)
	}

	// A stale Free after the buffer went to another user poisons that
	// user's bytes and makes the user's own Free panic.
	stale, mine := reusedOnce(t, p, 1000)
	mine[0] = 7
	p.Free(stale)
	if mine[0] != invariants.PoisonByte {
		t.Fatal("a stale Free did not poison the buffer's new user")
	}
	if msg := invariants.PanicMessage(func() { p.Free(mine) }); !strings.Contains(msg, "freed twice") {
		t.Fatalf("Free after a stale Free: panic %q", msg)
	}
}

func TestPoolWriteAfterFreePanics(t *testing.T) {
	p := newPoolAllocator()
	for range 200 {
		b := p.Allocate(1000)
		p.Free(b)
		b[10] = 1 // a use after release
		var c []byte
		msg := invariants.PanicMessage(func() { c = p.Allocate(1000) })
		if msg == "" {
			if addr(c) == addr(b) {
				t.Fatal("the written buffer was handed out again without a panic")
			}
			continue // the pool dropped it: try again
		}
		if !strings.Contains(msg, "written after it was freed") {
			t.Fatalf("panic %q", msg)
		}
		return
	}
	t.Fatal("the pool never handed back a freed buffer")
}
