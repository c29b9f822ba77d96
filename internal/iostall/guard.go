package iostall

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"time"
)

// ErrStalled matches every error of a Guard that gave up on storage: an
// operation past its timeout, or one refused because operations are
// stuck.
var ErrStalled = errors.New("storage did not answer")

// ErrClosed matches the error of an operation the Guard stopped waiting
// for because it was closed (the server is shutting down).
var ErrClosed = errors.New("storage operation abandoned: shutting down")

// Op names an operation, for errors and for the list of stuck ones.
type Op struct {
	Action string // "read", "open", "list", ...
	Path   string // the file or directory; one stuck operation on it refuses the others
	Offset int64  // of a read; negative when there is none
}

func (o Op) String() string {
	if o.Offset >= 0 {
		return fmt.Sprintf("%s %s at offset %d", o.Action, o.Path, o.Offset)
	}
	return o.Action + " " + o.Path
}

// StallError is the error of an operation given up on or refused.
type StallError struct {
	Op Op
	// Waited is how long the caller waited before giving up; zero when
	// the operation was refused without being started.
	Waited time.Duration
	// Blocker, for a refused operation, is the stuck operation on the
	// same path and how long it has been running; zero otherwise.
	Blocker      Op
	BlockedFor   time.Duration
	Stuck, Limit int // operations stuck when it happened, and the Guard's limit
}

func (e *StallError) Error() string {
	switch {
	case e.Waited > 0:
		return fmt.Sprintf("%s: %v: no answer within %v (given up on; %d storage operations stuck)", e.Op, ErrStalled, e.Waited, e.Stuck)
	case e.Blocker.Path != "":
		return fmt.Sprintf("%s: %v: refused, %s has been stuck for %v", e.Op, ErrStalled, e.Blocker, e.BlockedFor.Round(time.Millisecond))
	}
	return fmt.Sprintf("%s: %v: refused, %d storage operations are stuck (the limit)", e.Op, ErrStalled, e.Stuck)
}

func (e *StallError) Is(target error) bool { return target == ErrStalled }

// refusal marks the error of an operation Do never started.
type refusal struct{ error }

func (r refusal) Unwrap() error { return r.error }

// Refused reports whether err is Do refusing to start its operation
// (one on the path or the limit stuck, or the Guard closed), rather
// than giving up on one that runs on: the caller may then do it some
// other way.
func Refused(err error) bool {
	var r refusal
	return errors.As(err, &r)
}

// Stats are a Guard's counters.
type Stats struct {
	Started int64 // operations started, since New
	Stuck   int64 // operations given up on, running for the timeout or longer
	Stalls  int64 // operations given up on after their timeout, since New
	Refused int64 // operations refused because others were stuck, since New
}

// Stuck is one stuck operation and how long it has been running.
type Stuck struct {
	Op  Op
	For time.Duration
}

// Guard runs operations that may block for ever. Its zero value is not
// usable; make one with New.
//
// An operation its caller stopped waiting for is abandoned; it is stuck
// once it has run for the timeout. Only stuck operations refuse others:
// a client that cancels a slow but healthy read makes nobody else wait.
type Guard struct {
	timeout time.Duration
	limit   int

	mu        sync.Mutex
	abandoned map[*call]struct{} // given up on, still running

	nabandoned               atomic.Int64
	started, stalls, refused atomic.Int64

	closed    chan struct{}
	closeOnce sync.Once

	// ticks is closed and replaced every timeout/8 (at most a second)
	// by a goroutine started with the first operation, until Close: a
	// waiting caller checks its deadline at each tick, which costs an
	// operation that returns in time nothing, where a timer per
	// operation was half of its overhead.
	ticks      atomic.Pointer[chan struct{}]
	tickerOnce sync.Once
}

// New returns a Guard that gives up on an operation after timeout (zero:
// never, only on its context or Close; every abandoned operation is then
// stuck) and refuses every operation while limit operations are stuck
// (at least 1).
func New(timeout time.Duration, limit int) *Guard {
	return &Guard{timeout: timeout, limit: max(1, limit), abandoned: map[*call]struct{}{}, closed: make(chan struct{})}
}

// Timeout is the Guard's timeout.
func (g *Guard) Timeout() time.Duration { return g.timeout }

// tick returns a channel closed at the next tick, nil (never ready)
// without a timeout to check.
func (g *Guard) tick(timeout time.Duration) <-chan struct{} {
	if timeout <= 0 {
		return nil
	}
	g.tickerOnce.Do(func() {
		ch := make(chan struct{})
		g.ticks.Store(&ch)
		go g.ticker(min(time.Second, max(time.Millisecond, g.timeout/8, timeout/8)))
	})
	return *g.ticks.Load()
}

func (g *Guard) ticker(every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-g.closed:
			close(*g.ticks.Load())
			return
		case <-t.C:
			next := make(chan struct{})
			close(*g.ticks.Swap(&next))
		}
	}
}

// call states.
const (
	running int32 = iota
	finished
	abandoned
)

type call struct {
	op      Op
	start   time.Time
	timeout time.Duration
	state   atomic.Int32
	done    chan struct{}
}

// stuckAt reports whether an abandoned call counts as stuck at now.
func (g *Guard) stuckAt(c *call, now time.Time) bool { return now.Sub(c.start) >= c.timeout }

// Do runs fn on a goroutine of its own and waits until it returns, ctx
// ends, the timeout passes or the Guard is closed. It returns nil once fn
// returned: fn's results, which fn stores where its closure says, are
// the caller's. Otherwise it returns an error matching ErrStalled (the
// timeout), ErrClosed, or ctx's error, each naming op; fn keeps running,
// abandoned, and when it returns late runs (if not nil) instead of
// anyone reading fn's results: it releases what fn acquired. Do refuses
// to start fn while an operation on op.Path is stuck, or while the limit
// is, or once ctx has ended; such an error matches Refused.
func (g *Guard) Do(ctx context.Context, op Op, fn, late func()) error {
	return g.DoTimeout(ctx, op, g.timeout, fn, late)
}

// DoTimeout is Do with a timeout of its own: for an operation made of
// guarded ones, a longer timeout lets the first of those that stalls
// report itself, naming its file, before the whole gives up.
func (g *Guard) DoTimeout(ctx context.Context, op Op, timeout time.Duration, fn, late func()) error {
	if g.nabandoned.Load() > 0 {
		if err := g.refuse(op); err != nil {
			return refusal{err}
		}
	}
	select {
	case <-g.closed:
		return refusal{fmt.Errorf("%s: %w", op, ErrClosed)}
	default:
	}
	if err := ctx.Err(); err != nil {
		// NB: a caller that already stopped waiting starts nothing: an
		// operation it would give up on at once could still block a
		// thread for ever.
		return refusal{fmt.Errorf("%s: %w", op, err)}
	}
	g.started.Add(1)
	c := &call{op: op, start: time.Now(), timeout: timeout, done: make(chan struct{})}
	go func() {
		fn()
		if c.state.CompareAndSwap(running, finished) {
			close(c.done)
			return
		}
		if late != nil {
			late()
		}
		g.forget(c)
	}()
	var err error
	for err == nil {
		select {
		case <-c.done:
			return nil
		case <-ctx.Done():
			err = fmt.Errorf("%s: %w", op, ctx.Err())
		case <-g.tick(timeout):
			// NB: real time: how long storage may take is real time.
			if waited := time.Since(c.start); timeout > 0 && waited >= timeout {
				err = &StallError{Op: op, Waited: timeout}
			}
		case <-g.closed:
			err = fmt.Errorf("%s: %w", op, ErrClosed)
		}
	}
	if !g.abandon(c) {
		<-c.done // it returned meanwhile: its results stand
		return nil
	}
	if se, ok := err.(*StallError); ok {
		g.stalls.Add(1)
		se.Stuck, se.Limit = int(g.Stats().Stuck), g.limit
	}
	return err
}

// abandon marks c given up on, unless it finished first.
func (g *Guard) abandon(c *call) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	// NB: under g.mu, so that forget, which takes g.mu after failing its
	// own CompareAndSwap, always finds c registered.
	if !c.state.CompareAndSwap(running, abandoned) {
		return false
	}
	g.abandoned[c] = struct{}{}
	g.nabandoned.Add(1)
	return true
}

// forget drops an abandoned call that returned at last.
func (g *Guard) forget(c *call) {
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.abandoned, c)
	g.nabandoned.Add(-1)
}

// refuse returns the error refusing op, or nil to let it run.
func (g *Guard) refuse(op Op) error {
	now := time.Now()
	g.mu.Lock()
	defer g.mu.Unlock()
	var blocker *call
	n := 0
	for c := range g.abandoned {
		if !g.stuckAt(c, now) {
			continue
		}
		n++
		if c.op.Path == op.Path && (blocker == nil || c.start.Before(blocker.start)) {
			blocker = c
		}
	}
	switch {
	case blocker != nil:
		g.refused.Add(1)
		return &StallError{Op: op, Blocker: blocker.op, BlockedFor: now.Sub(blocker.start), Stuck: n, Limit: g.limit}
	case n >= g.limit:
		g.refused.Add(1)
		return &StallError{Op: op, Stuck: n, Limit: g.limit}
	}
	return nil
}

// Close stops every wait now and refuses what comes after: the callers
// return ErrClosed, their operations stay abandoned until they return.
func (g *Guard) Close() { g.closeOnce.Do(func() { close(g.closed) }) }

// Stats reads the counters.
func (g *Guard) Stats() Stats {
	return Stats{Started: g.started.Load(), Stuck: int64(len(g.StuckOps())), Stalls: g.stalls.Load(), Refused: g.refused.Load()}
}

// StuckOps lists the stuck operations, longest stuck first.
func (g *Guard) StuckOps() []Stuck {
	now := time.Now()
	g.mu.Lock()
	var out []Stuck
	for c := range g.abandoned {
		if g.stuckAt(c, now) {
			out = append(out, Stuck{Op: c.op, For: now.Sub(c.start)})
		}
	}
	g.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].For > out[j].For })
	return out
}
