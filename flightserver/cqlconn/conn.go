package cqlconn

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
)

// ErrNotConnected is wrapped by Session's error while there is no
// session: the node is not up yet, refuses us, or was lost.
var ErrNotConnected = errors.New("not connected to cassandra")

// Conn holds the server's session to its node, connecting in the
// background (Start) until Close.
type Conn struct {
	cfg Config

	mu      sync.Mutex
	session *gocql.Session // nil while down
	up      bool
	since   time.Time
	reason  string // while down: why the last attempt failed
	err     error  // while down: the last failure
	logged  string // the state last logged: "up" or a reason

	failures map[string]*atomic.Int64       // by reason, fixed at New
	open     func() (*gocql.Session, error) // Config.session; tests replace it
	// stuck counts the attempts and lost sessions given up on (attempt,
	// closeLost) whose driver calls have not returned yet.
	stuck atomic.Int32

	ctx    context.Context // ends at Close
	cancel context.CancelFunc
	done   chan struct{}
}

// New checks cfg (Config.resolve) and returns a Conn that has not
// connected yet: Start connects.
func New(cfg Config) (*Conn, error) {
	if err := cfg.resolve(); err != nil {
		return nil, err
	}
	c := &Conn{cfg: cfg, since: time.Now(), failures: map[string]*atomic.Int64{}, done: make(chan struct{})}
	c.open = c.cfg.session
	for _, r := range Reasons {
		c.failures[r] = new(atomic.Int64)
	}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	return c, nil
}

// Addr is the node's CQL address.
func (c *Conn) Addr() string { return c.cfg.Addr }

// Start connects in the background, and again whenever the session is
// lost, until Close. It returns at once.
func (c *Conn) Start() { go c.run() }

// Close stops connecting and closes the session. An attempt under way
// is given up (it closes its session itself if one comes), and the run
// waited for at most closeWait: a process draining must not wait on a
// node that does not answer.
func (c *Conn) Close() {
	c.cancel()
	t := time.NewTimer(closeWait)
	defer t.Stop()
	select {
	case <-c.done:
	case <-t.C:
		c.cfg.Logger.Warn("cassandra: closing while a connection attempt is under way; it is closed when it ends", "addr", c.cfg.Addr)
	}
}

// closeWait is how long Close waits for the run to end, and a lost
// session's close is waited for before connecting again.
const closeWait = time.Second

// Session returns the session of the moment, or an error wrapping
// ErrNotConnected that says why there is none. A session returned may
// be closed a moment later (lost): its queries then fail, and the next
// call returns the next session or the reason.
func (c *Conn) Session() (*gocql.Session, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.session != nil {
		return c.session, nil
	}
	if c.err == nil {
		return nil, fmt.Errorf("%w %s: connecting", ErrNotConnected, c.cfg.Addr)
	}
	return nil, fmt.Errorf("%w %s (%s): %w", ErrNotConnected, c.cfg.Addr, c.reason, c.err)
}

// Status is the connection's state, for metrics and node-info.
type Status struct {
	Addr string
	Up   bool
	// Since is when Up last changed (the server's start while it never
	// was up).
	Since time.Time
	// Reason and Err, while down, say why the last attempt failed (empty
	// before the first one ended), or why the session was lost.
	Reason string
	Err    error
	// Failures counts the failed attempts by reason (every one of
	// Reasons is there).
	Failures map[string]int64
}

// Status returns the connection's state now.
func (c *Conn) Status() Status {
	c.mu.Lock()
	st := Status{Addr: c.cfg.Addr, Up: c.up, Since: c.since, Reason: c.reason, Err: c.err}
	c.mu.Unlock()
	st.Failures = make(map[string]int64, len(c.failures))
	for r, n := range c.failures {
		st.Failures[r] = n.Load()
	}
	return st
}

// Failures is the count of failed attempts for one of Reasons.
func (c *Conn) Failures(reason string) int64 { return c.failures[reason].Load() }

// run connects, hands the session out while its probes answer, and
// connects again after a loss, until Close.
func (c *Conn) run() {
	defer close(c.done)
	for failed := 0; ; {
		s, err := c.attempt()
		if c.ctx.Err() != nil {
			if s != nil {
				s.Close()
			}
			return
		}
		if err != nil {
			failed++
			c.failedAttempt(err)
			if !c.sleep(backoff(c.cfg.MinBackoff, c.cfg.MaxBackoff, failed)) {
				return
			}
			continue
		}
		failed = 0
		c.connected(s)
		if c.cfg.OnUp != nil {
			c.cfg.OnUp(c.ctx)
		}
		lost := c.watch(s)
		c.disconnected(lost)
		if lost == nil { // closed
			s.Close()
			return
		}
		c.closeLost(s)
	}
}

// maxStuck bounds the driver calls given up on and still running: past
// it, attempts fail at once (and are retried after the backoff) rather
// than leave more goroutines behind.
const maxStuck = 4

// errNoAnswer is an attempt given up on: the driver had not returned
// within attemptWait.
var errNoAnswer = errors.New("no session within the attempt's bound")

// attemptWait bounds one attempt: the driver bounds each dial and query
// by ConnectTimeout and Timeout, but not the session's set-up as a
// whole, and a node half started (the port open, the node not
// answering) must not hold the connection in one attempt for ever.
func (c *Conn) attemptWait() time.Duration { return 2*c.cfg.ConnectTimeout + 3*c.cfg.Timeout }

// attempt opens a session, waiting for the driver at most attemptWait
// (or until Close). A call given up on goes on in the background and
// closes its session if one comes.
func (c *Conn) attempt() (*gocql.Session, error) {
	if n := c.stuck.Load(); n >= maxStuck {
		return nil, fmt.Errorf("connect to cassandra %s: %w: %d earlier attempts or closes have not returned", c.cfg.Addr, errNoAnswer, n)
	}
	type result struct {
		s   *gocql.Session
		err error
	}
	done := make(chan result, 1)
	go func() {
		s, err := c.open()
		done <- result{s, err}
	}()
	wait := c.attemptWait()
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case r := <-done:
		return r.s, r.err
	case <-c.ctx.Done():
	case <-t.C:
	}
	c.stuck.Add(1)
	go func() {
		if r := <-done; r.s != nil {
			r.s.Close()
		}
		c.stuck.Add(-1)
	}()
	return nil, fmt.Errorf("connect to cassandra %s: %w (%s)", c.cfg.Addr, errNoAnswer, wait)
}

// closeLost closes a lost session without waiting on it: the driver's
// Close waits for its own goroutines, which a node that half answers can
// hold, and the next attempt must not wait for them.
func (c *Conn) closeLost(s *gocql.Session) {
	c.stuck.Add(1)
	done := make(chan struct{})
	go func() {
		s.Close()
		close(done)
		c.stuck.Add(-1)
	}()
	t := time.NewTimer(closeWait)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
		c.cfg.Logger.Warn("cassandra: the lost session's close has not returned; connecting again meanwhile", "addr", c.cfg.Addr, "after", closeWait.String())
	}
}

// watch probes s every ProbeInterval until LossProbes probes in a row
// fail, returning the last failure, or until Close (nil).
func (c *Conn) watch(s *gocql.Session) error {
	t := time.NewTicker(c.cfg.ProbeInterval)
	defer t.Stop()
	failed := 0
	for {
		select {
		case <-c.ctx.Done():
			return nil
		case <-t.C:
		}
		err := c.probe(s)
		if err == nil {
			failed = 0
			continue
		}
		if c.ctx.Err() != nil {
			return nil
		}
		if failed++; failed >= LossProbes {
			return err
		}
		c.cfg.Logger.Debug("cassandra: probe failed", "addr", c.cfg.Addr, "err", err)
	}
}

// probe asks the node one cheap question, within Timeout.
func (c *Conn) probe(s *gocql.Session) error {
	ctx, cancel := context.WithTimeout(c.ctx, c.cfg.Timeout)
	defer cancel()
	var v string
	if err := s.Query("SELECT release_version FROM system.local").WithContext(ctx).Scan(&v); err != nil {
		return fmt.Errorf("probe cassandra %s: %w", c.cfg.Addr, err)
	}
	return nil
}

// sleep waits d, false if Close came first.
func (c *Conn) sleep(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-c.ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// backoff is the wait after the n-th failed attempt in a row (n ≥ 1):
// its bound doubles from min up to max, and the wait is drawn between
// half and all of it, so that servers restarted together do not knock
// on their nodes in step.
func backoff(min, max time.Duration, n int) time.Duration {
	bound := max
	if n < 32 {
		bound = min << (n - 1)
	}
	if bound > max || bound <= 0 {
		bound = max
	}
	half := bound / 2
	return half + rand.N(bound-half+1)
}

// failedAttempt records a failed attempt; the first one of a reason in
// a row is logged, later ones only at debug level.
func (c *Conn) failedAttempt(err error) {
	r := reason(err)
	c.failures[r].Add(1)
	c.mu.Lock()
	c.reason, c.err = r, err
	change := c.logged != r
	c.logged = r
	c.mu.Unlock()
	if change {
		c.cfg.Logger.Warn("cassandra: cannot connect; serving from schema.cql and SSTable headers, retrying in the background",
			"addr", c.cfg.Addr, "reason", r, "err", err)
		return
	}
	c.cfg.Logger.Debug("cassandra: connect attempt failed", "addr", c.cfg.Addr, "reason", r, "err", err)
}

func (c *Conn) connected(s *gocql.Session) {
	c.mu.Lock()
	down := time.Since(c.since)
	c.session, c.up, c.since, c.reason, c.err, c.logged = s, true, time.Now(), "", nil, "up"
	c.mu.Unlock()
	c.cfg.Logger.Info("cassandra: connected", "addr", c.cfg.Addr, "after", down.Round(time.Millisecond).String())
}

// disconnected records a lost session (lost nil: closed).
func (c *Conn) disconnected(lost error) {
	c.mu.Lock()
	c.session, c.up, c.since = nil, false, time.Now()
	if lost != nil {
		// The loss is logged here; attempts failing for the same reason
		// after it are the same state.
		c.reason, c.err, c.logged = reason(lost), lost, reason(lost)
	}
	c.mu.Unlock()
	if lost != nil {
		c.cfg.Logger.Warn("cassandra: connection lost; keeping the schemas and ring last read, reconnecting",
			"addr", c.cfg.Addr, "reason", reason(lost), "err", lost)
	}
}
