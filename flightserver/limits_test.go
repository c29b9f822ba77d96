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
	done6, err := b.acquire(ctx, 6)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan int64, 3)
	take := func(n int64) {
		done, err := b.acquire(ctx, n)
		if err != nil {
			t.Error(err)
			return
		}
		got <- n
		done()
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
	done6()
	if a, b := <-got, <-got; a != 8 || b != 3 {
		t.Fatalf("taken in order %d, %d; want 8, 3", a, b)
	}

	b = newBudget(10, 20*time.Millisecond)
	hold, _ := b.acquire(ctx, 10)
	if _, err := b.acquire(ctx, 1); !errors.Is(err, errShed) {
		t.Fatalf("acquire with the budget held: %v, want shed", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := b.acquire(cctx, 1); !errors.Is(err, context.Canceled) {
		t.Fatalf("acquire cancelled: %v", err)
	}
	hold()
	if b.free != 10 || b.waiters.Len() != 0 {
		t.Fatalf("after all released: free %d, %d waiters", b.free, b.waiters.Len())
	}
}
