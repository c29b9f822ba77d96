package transport

import (
	"sync"
	"time"

	"google.golang.org/grpc/codes"
)

// FailureLogInterval is how often, at most, failures of one status code
// are logged after the first: a client can fail every call it makes (no
// token, a table it may not read, a server shedding it), and each must
// not cost a line; the metrics count every one.
const FailureLogInterval = 10 * time.Second

// LogLimiter lets the first failure of each status code be logged, then
// at most one per interval, which carries the count of those held back
// since the line before. The codes are a fixed set, so its state is
// bounded whatever clients send. NB: real time (time.Now, never
// Config.Now): the interval bounds the log's rate, a property of the
// wall clock like a latency.
type LogLimiter struct {
	interval time.Duration
	now      func() time.Time

	mu    sync.Mutex
	codes map[codes.Code]*logState
}

type logState struct {
	last time.Time
	held int // failures not logged since last
}

func NewLogLimiter(interval time.Duration, now func() time.Time) *LogLimiter {
	return &LogLimiter{interval: interval, now: now, codes: map[codes.Code]*logState{}}
}

// Allow reports whether a failure of code is logged now, and how many of
// its code were held back since the last line logged.
func (l *LogLimiter) Allow(code codes.Code) (ok bool, held int) {
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	st := l.codes[code]
	if st == nil {
		l.codes[code] = &logState{last: now}
		return true, 0
	}
	if now.Sub(st.last) < l.interval {
		st.held++
		return false, 0
	}
	held = st.held
	st.last, st.held = now, 0
	return true, held
}
