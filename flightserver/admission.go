package flightserver

import (
	"context"
	"errors"
	"sync/atomic"
	"time"
)

// errShed is returned when a stream waited its bounded time for a slot.
var errShed = errors.New("admission: every stream slot is busy")

// admission bounds the number of concurrent DoGet streams. A stream
// beyond the bound waits a bounded time for a slot, then is shed: the
// client gets UNAVAILABLE and may retry, and the server keeps its CPU and
// memory for the streams it admitted instead of slowing them all down.
type admission struct {
	slots   chan struct{}
	wait    time.Duration
	active  atomic.Int64
	waiting atomic.Int64

	releaseFn func()
}

func newAdmission(max int, wait time.Duration) *admission {
	a := &admission{slots: make(chan struct{}, max), wait: wait}
	a.releaseFn = a.release // one func value, not a closure per stream
	return a
}

// release gives a slot back.
func (a *admission) release() {
	a.active.Add(-1)
	<-a.slots
}

// acquire takes a slot; the returned func gives it back.
func (a *admission) acquire(ctx context.Context) (func(), error) {
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
			return nil, errShed
		case <-ctx.Done():
			t.Stop()
			a.waiting.Add(-1)
			return nil, ctx.Err()
		}
	}
	a.active.Add(1)
	return a.releaseFn, nil
}
