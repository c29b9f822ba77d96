package ring

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sstable-flight/sstable-flight/token"

	"github.com/sstable-flight/sstable-flight/cluster"
)

// TestRingViewBounded: a request waits for the first ring at most
// RingWait, then fails with errNoRing saying why; once a ring was read,
// a refresh that hangs holds no request; close ends a hung refresh.
func TestRingViewBounded(t *testing.T) {
	var calls atomic.Int32
	ring, err := cluster.NewRing(host(1), []cluster.Node{{HostID: host(1), Tokens: []token.Token{0}}})
	if err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	cfg := &Options{RefreshInterval: 10 * time.Millisecond, RefreshTimeout: time.Hour, RingWait: 50 * time.Millisecond,
		Discover: func(ctx context.Context) (*cluster.Topology, error) {
			switch calls.Add(1) {
			case 1:
				select { // the first read hangs until released
				case <-release:
				case <-ctx.Done():
					return nil, ctx.Err()
				}
				return &cluster.Topology{Ring: ring}, nil
			default:
				<-ctx.Done() // every later one hangs until cut
				return nil, ctx.Err()
			}
		}}
	v := NewView(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	v.Start()
	start := time.Now()
	if _, err := v.Get(context.Background()); !errors.Is(err, ErrNoRing) {
		t.Fatalf("view before the first ring: %v, want errNoRing", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Fatalf("view waited %v for the first ring, RingWait is 50ms", d)
	}
	close(release)
	for calls.Load() < 2 {
		time.Sleep(time.Millisecond)
	}
	start = time.Now()
	st, err := v.Get(context.Background())
	if err != nil || st.local != host(1) {
		t.Fatalf("view during a hung refresh: %v, %v", st, err)
	}
	if d := time.Since(start); d > 100*time.Millisecond {
		t.Fatalf("view waited %v during a hung refresh", d)
	}
	done := make(chan struct{})
	go func() { v.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("close did not end a hung refresh")
	}
}
