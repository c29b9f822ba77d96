package transport

import (
	"context"
	"errors"
	"sync/atomic"
	"time"
)

// ErrShed is returned when a stream waited its bounded time for a slot.
var ErrShed = errors.New("admission: every stream slot is busy")

// Admission bounds the number of concurrent DoGet streams. A stream
// beyond the bound waits a bounded time for a slot, then is shed: the
// client gets UNAVAILABLE and may retry, and the server keeps its CPU and
// memory for the streams it admitted instead of slowing them all down.
type Admission struct {
	slots   chan struct{}
	wait    time.Duration
	active  atomic.Int64
	waiting atomic.Int64

	releaseFn func()
}

func NewAdmission(max int, wait time.Duration) *Admission {
	a := &Admission{slots: make(chan struct{}, max), wait: wait}
	a.releaseFn = a.release // one func value, not a closure per stream
	return a
}

// Active is the streams holding a slot, Waiting those waiting for one,
// Slots how many there are: the server's gauges.
func (a *Admission) Active() int64  { return a.active.Load() }
func (a *Admission) Waiting() int64 { return a.waiting.Load() }
func (a *Admission) Slots() int     { return cap(a.slots) }

// release gives a slot back.
func (a *Admission) release() {
	a.active.Add(-1)
	<-a.slots
}

// Acquire takes a slot; the returned func gives it back.
func (a *Admission) Acquire(ctx context.Context) (func(), error) {
	select {
	case a.slots <- struct{}{}:
	default:
		a.waiting.Add(1)
		// A real timer, not Config.Now: the wait is the client's real
		// time in the queue.
		t := time.NewTimer(a.wait)
		select {
		case a.slots <- struct{}{}:
			t.Stop()
			a.waiting.Add(-1)
		case <-t.C:
			a.waiting.Add(-1)
			return nil, ErrShed
		case <-ctx.Done():
			t.Stop()
			a.waiting.Add(-1)
			return nil, ctx.Err()
		}
	}
	a.active.Add(1)
	return a.releaseFn, nil
}
