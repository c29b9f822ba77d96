package transport

import (
	"container/list"
	"context"
	"fmt"
	"sync"
	"time"
)

// Budget bounds the request bytes being decoded and planned at once
// (Config.MaxDecodeBytes). Decoding a request costs many times its size
// (a 1 MiB command of short keys allocates ~55 MiB in encoding/json and
// the planner), so the cost is bounded by weighing each request by its
// size rather than by counting requests: thousands of small ones pass at
// once, two of the largest do. Waiters are served in order, so a large
// request is not starved by a stream of small ones; one that waits
// longer than its bound is shed like a stream without a slot.
type Budget struct {
	mu      sync.Mutex
	free    int64
	waiters list.List // of *budgetWaiter, oldest first
	wait    time.Duration
}

type budgetWaiter struct {
	n     int64
	ready chan struct{} // closed once n is taken for it
}

func NewBudget(n int64, wait time.Duration) *Budget { return &Budget{free: n, wait: wait} }

// Acquire takes n bytes of the budget, which Release(n) gives back.
func (b *Budget) Acquire(ctx context.Context, n int64) error {
	b.mu.Lock()
	if b.waiters.Len() == 0 && b.free >= n {
		b.free -= n
		b.mu.Unlock()
		return nil
	}
	w := &budgetWaiter{n: n, ready: make(chan struct{})}
	e := b.waiters.PushBack(w)
	b.mu.Unlock()

	// A real timer, not Config.Now: the wait is the client's real time.
	t := time.NewTimer(b.wait)
	defer t.Stop()
	var err error
	select {
	case <-w.ready:
		return nil
	case <-t.C:
		err = fmt.Errorf("decode request: %w: the requests being read fill MaxDecodeBytes", ErrShed)
	case <-ctx.Done():
		err = ctx.Err()
	}
	b.mu.Lock()
	select {
	case <-w.ready:
		// Granted while giving up: give it back.
		b.free += n
	default:
		b.waiters.Remove(e)
	}
	b.grant()
	b.mu.Unlock()
	return err
}

func (b *Budget) Release(n int64) {
	b.mu.Lock()
	b.free += n
	b.grant()
	b.mu.Unlock()
}

// grant serves the waiters, oldest first, while the oldest fits.
func (b *Budget) grant() {
	for e := b.waiters.Front(); e != nil; e = b.waiters.Front() {
		w := e.Value.(*budgetWaiter)
		if w.n > b.free {
			return
		}
		b.free -= w.n
		b.waiters.Remove(e)
		close(w.ready)
	}
}
