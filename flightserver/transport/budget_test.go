package transport

import (
	"context"
	"errors"
	"runtime"
	"testing"
	"time"
)

// TestBudget: requests take their weight of the budget in order, a large
// one is not passed by later small ones, and one that waits too long is
// shed.
func TestBudget(t *testing.T) {
	b := NewBudget(10, time.Second)
	ctx := context.Background()
	if err := b.Acquire(ctx, 6); err != nil {
		t.Fatal(err)
	}
	got := make(chan int64, 3)
	take := func(n int64) {
		if err := b.Acquire(ctx, n); err != nil {
			t.Error(err)
			return
		}
		got <- n
		b.Release(n)
	}
	go take(8) // waits for the 6
	for waiters := 0; waiters == 0; {
		b.mu.Lock()
		waiters = b.waiters.Len()
		b.mu.Unlock()
		runtime.Gosched()
	}
	go take(3) // would fit beside the 6, but the 8 came first
	select {
	case n := <-got:
		t.Fatalf("%d taken before the waiting 8", n)
	case <-time.After(50 * time.Millisecond):
	}
	b.Release(6)
	if a, b := <-got, <-got; a != 8 || b != 3 {
		t.Fatalf("taken in order %d, %d; want 8, 3", a, b)
	}

	shed := NewBudget(10, 20*time.Millisecond)
	if err := shed.Acquire(ctx, 10); err != nil {
		t.Fatal(err)
	}
	if err := shed.Acquire(ctx, 1); !errors.Is(err, ErrShed) {
		t.Fatalf("acquire with the budget held: %v, want shed", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := shed.Acquire(cctx, 1); !errors.Is(err, context.Canceled) {
		t.Fatalf("acquire cancelled: %v", err)
	}
	shed.Release(10)
	if shed.free != 10 || shed.waiters.Len() != 0 {
		t.Fatalf("after all released: free %d, %d waiters", shed.free, shed.waiters.Len())
	}
}
