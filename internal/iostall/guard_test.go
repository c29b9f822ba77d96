package iostall

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestDoReturnsResults(t *testing.T) {
	g := New(time.Second, 4)
	var got int
	if err := g.Do(context.Background(), Op{"read", "a", 0}, func() { got = 42 }, nil); err != nil || got != 42 {
		t.Fatalf("Do: %v, %d", err, got)
	}
}

// TestStuckOperationRefusesItsPath: an operation past its timeout is
// given up on and stuck; the next one on its path is refused at once,
// others run, and once it returns late runs and the path is free.
func TestStuckOperationRefusesItsPath(t *testing.T) {
	g := New(50*time.Millisecond, 4)
	release, lateRan := make(chan struct{}), make(chan struct{})
	start := time.Now()
	err := g.Do(context.Background(), Op{"read", "hung", 7}, func() { <-release }, func() { close(lateRan) })
	var se *StallError
	if !errors.Is(err, ErrStalled) || !errors.As(err, &se) || Refused(err) || se.Waited != 50*time.Millisecond || time.Since(start) > 2*time.Second {
		t.Fatalf("hung op: %v after %v", err, time.Since(start))
	}
	t.Log(err)
	if st := g.Stats(); st.Stuck != 1 || st.Stalls != 1 {
		t.Fatalf("stats %+v, want 1 stuck, 1 stall", st)
	}
	start = time.Now()
	err = g.Do(context.Background(), Op{"read", "hung", 8}, func() { t.Error("a refused op ran") }, nil)
	if !errors.As(err, &se) || !Refused(err) || se.Blocker.Path != "hung" || time.Since(start) > 10*time.Millisecond {
		t.Fatalf("op on the stuck path: %v after %v, want refused at once", err, time.Since(start))
	}
	t.Log(err)
	if err := g.Do(context.Background(), Op{"read", "fine", 0}, func() {}, nil); err != nil {
		t.Fatalf("op on another path: %v", err)
	}
	close(release)
	<-lateRan
	deadline := time.Now().Add(5 * time.Second)
	for g.Stats().Stuck != 0 {
		if time.Now().After(deadline) {
			t.Fatal("the returned op is still stuck")
		}
		time.Sleep(time.Millisecond)
	}
	if err := g.Do(context.Background(), Op{"read", "hung", 9}, func() {}, nil); err != nil {
		t.Fatalf("op on the path once free: %v", err)
	}
}

// TestLimitRefusesEverything: past the limit of stuck operations, every
// operation is refused, whatever its path.
func TestLimitRefusesEverything(t *testing.T) {
	g := New(10*time.Millisecond, 2)
	release := make(chan struct{})
	defer close(release)
	for _, p := range []string{"a", "b"} {
		if err := g.Do(context.Background(), Op{"read", p, -1}, func() { <-release }, nil); !errors.Is(err, ErrStalled) {
			t.Fatalf("hung op on %s: %v", p, err)
		}
	}
	err := g.Do(context.Background(), Op{"read", "c", -1}, func() { t.Error("ran past the limit") }, nil)
	var se *StallError
	if !errors.As(err, &se) || se.Stuck != 2 || se.Blocker.Path != "" {
		t.Fatalf("op past the limit: %v", err)
	}
	t.Log(err)
}

// TestCancelIsNotStuck: a caller whose context ends gets its error at
// once; its operation is abandoned but not stuck before the timeout, so
// the path stays open to others.
func TestCancelIsNotStuck(t *testing.T) {
	g := New(time.Hour, 1)
	release := make(chan struct{})
	defer close(release)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(10 * time.Millisecond); cancel() }()
	err := g.Do(ctx, Op{"list", "dir", -1}, func() { <-release }, nil)
	if !errors.Is(err, context.Canceled) || errors.Is(err, ErrStalled) {
		t.Fatalf("cancelled op: %v", err)
	}
	if err := g.Do(context.Background(), Op{"list", "dir", -1}, func() {}, nil); err != nil {
		t.Fatalf("op on the path of a cancelled one: %v", err)
	}
}

// TestCancelledStaysCounted: an operation its caller's context gave up
// on is not stuck at once (TestCancelIsNotStuck), but is once it has run
// for the timeout, and then refuses its path, as one given up on at the
// timeout does: a request that cancels does not hide a hung file.
func TestCancelledStaysCounted(t *testing.T) {
	g := New(50*time.Millisecond, 4)
	release := make(chan struct{})
	defer close(release)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Millisecond)
	defer cancel()
	if err := g.Do(ctx, Op{"read", "hung", 0}, func() { <-release }, nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("op whose context ends: %v", err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for g.Stats().Stuck != 1 {
		if time.Now().After(deadline) {
			t.Fatalf("an op cancelled and still running past its timeout is not counted stuck: %+v", g.Stats())
		}
		time.Sleep(time.Millisecond)
	}
	if err := g.Do(context.Background(), Op{"read", "hung", 1}, func() { t.Error("ran on a stuck path") }, nil); !Refused(err) {
		t.Fatalf("op on the path of a cancelled op now stuck: %v, want refused", err)
	}
}

// TestEndedContextStartsNothing: a caller whose context has already
// ended gets its error and no operation is started, since one it would
// give up on at once could still take a thread for ever. Before, the
// operation was started, and abandoned at once.
func TestEndedContextStartsNothing(t *testing.T) {
	g := New(time.Second, 4)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := g.Do(ctx, Op{"read", "f", 0}, func() { t.Error("an op ran for a caller whose context had ended") }, nil)
	if !errors.Is(err, context.Canceled) || !Refused(err) {
		t.Fatalf("op with an ended context: %v, want Canceled and refused", err)
	}
}

// TestCloseStopsWaits: Close ends every wait at once and refuses later
// operations.
func TestCloseStopsWaits(t *testing.T) {
	g := New(time.Hour, 4)
	release := make(chan struct{})
	defer close(release)
	done := make(chan error, 1)
	go func() { done <- g.Do(context.Background(), Op{"read", "x", 0}, func() { <-release }, nil) }()
	time.Sleep(10 * time.Millisecond)
	g.Close()
	select {
	case err := <-done:
		if !errors.Is(err, ErrClosed) || Refused(err) {
			t.Fatalf("wait ended by Close: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not end the wait")
	}
	if err := g.Do(context.Background(), Op{"read", "y", 0}, func() { t.Error("ran after Close") }, nil); !errors.Is(err, ErrClosed) || !Refused(err) {
		t.Fatalf("op after Close: %v", err)
	}
}

// BenchmarkDo is the cost a guarded read adds to each read.
func BenchmarkDo(b *testing.B) {
	g := New(time.Second, 4)
	ctx := context.Background()
	b.ReportAllocs()
	for range b.N {
		g.Do(ctx, Op{"read", "f", 0}, func() {}, nil)
	}
}
