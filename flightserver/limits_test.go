package flightserver

import (
	"context"
	"errors"
	"runtime"
	"testing"
	"time"
)

// TestLimitDefaults: the limits' zero values resolve to their documented
// defaults, which follow MaxStreams and MaxRequestBytes; values given
// stay.
func TestLimitDefaults(t *testing.T) {
	data := t.TempDir()
	c := Config{DataDir: data}
	if err := c.resolve(); err != nil {
		t.Fatal(err)
	}
	streams := 2 * runtime.GOMAXPROCS(0)
	if c.MaxRequestBytes != DefaultMaxRequestBytes || c.MaxDecodeBytes != 2*DefaultMaxRequestBytes ||
		c.MaxRequests != 64+4*streams || c.MaxConnStreams != DefaultMaxConnStreams {
		t.Fatalf("zero limits resolved to %+v", c)
	}
	if c.MaxConns != DefaultMaxConns || c.StreamStallTimeout != DefaultStreamStallTimeout || c.HandshakeTimeout != DefaultHandshakeTimeout ||
		c.ConnIdleTimeout != DefaultConnIdleTimeout || c.ConnMaxAge != 0 || c.ConnMaxAgeGrace != DefaultConnMaxAgeGrace {
		t.Fatalf("zero connection limits resolved to %+v", c)
	}
	c = Config{DataDir: data, MaxStreams: 3, MaxRequestBytes: 1000, MaxDecodeBytes: 5000, MaxRequests: 7, MaxConnStreams: 2}
	if err := c.resolve(); err != nil {
		t.Fatal(err)
	}
	if c.MaxRequestBytes != 1000 || c.MaxDecodeBytes != 5000 || c.MaxRequests != 7 || c.MaxConnStreams != 2 {
		t.Fatalf("given limits resolved to %+v", c)
	}
	c = Config{DataDir: data, MaxRequestBytes: 1000}
	if err := c.resolve(); err != nil || c.MaxDecodeBytes != 2000 {
		t.Fatalf("MaxDecodeBytes for MaxRequestBytes 1000: %d, %v", c.MaxDecodeBytes, err)
	}
}

// TestBudget: requests take their weight of the budget in order, a large
// one is not passed by later small ones, and one that waits too long is
// shed.
func TestBudget(t *testing.T) {
	b := newBudget(10, time.Second)
	ctx := context.Background()
	if err := b.acquire(ctx, 6); err != nil {
		t.Fatal(err)
	}
	got := make(chan int64, 3)
	take := func(n int64) {
		if err := b.acquire(ctx, n); err != nil {
			t.Error(err)
			return
		}
		got <- n
		b.release(n)
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
	b.release(6)
	if a, b := <-got, <-got; a != 8 || b != 3 {
		t.Fatalf("taken in order %d, %d; want 8, 3", a, b)
	}

	shed := newBudget(10, 20*time.Millisecond)
	if err := shed.acquire(ctx, 10); err != nil {
		t.Fatal(err)
	}
	if err := shed.acquire(ctx, 1); !errors.Is(err, errShed) {
		t.Fatalf("acquire with the budget held: %v, want shed", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := shed.acquire(cctx, 1); !errors.Is(err, context.Canceled) {
		t.Fatalf("acquire cancelled: %v", err)
	}
	shed.release(10)
	if shed.free != 10 || shed.waiters.Len() != 0 {
		t.Fatalf("after all released: free %d, %d waiters", shed.free, shed.waiters.Len())
	}
}
