package ring

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/sstable-flight/sstable-flight/cluster"
	"github.com/sstable-flight/sstable-flight/flightserver/cqlconn"
)

// errNoRing marks a request that needs the ring when the server has none
// yet (UNAVAILABLE: it may have one soon).
var ErrNoRing = errors.New("no ring view")

// Options are what a View needs of the server's ClusterConfig, whose
// fields of the same names document them.
type Options struct {
	Discover        func(ctx context.Context) (*cluster.Topology, error)
	Changes         <-chan struct{}
	RefreshInterval time.Duration
	RefreshTimeout  time.Duration
	ChangeDebounce  time.Duration
	RingWait        time.Duration
}

// ringView is the server's picture of its cluster: the topology its own
// node reports, read at start, every RefreshInterval and after the
// driver's topology and schema events (Changes, debounced) by one
// goroutine.
// Requests take the last one read without waiting (view), except before
// the first, which they wait for up to RingWait: a refresh, however slow,
// never holds a request longer.
type View struct {
	cfg  *Options
	log  *slog.Logger
	cur  atomic.Pointer[State]
	last atomic.Pointer[error] // the last refresh's failure, for errors

	ready     chan struct{} // closed once cur is set
	readyOnce sync.Once
	stop      chan struct{}
	done      chan struct{}
	// kick asks the loop for a refresh now (newer); stored is closed and
	// replaced each time a refresh ends, read or failed.
	kick   chan struct{}
	mu     sync.Mutex
	stored chan struct{}
}

// ringState is one topology and the server's node in it, with the
// replica maps computed from it as keyspaces are asked for.
type State struct {
	top   *cluster.Topology
	local uuid.UUID
	read  time.Time // real time: when its read began

	mu   sync.Mutex
	maps map[string]cluster.ReplicaMap
}

func NewView(cfg *Options, log *slog.Logger) *View {
	return &View{cfg: cfg, log: log, ready: make(chan struct{}), stop: make(chan struct{}), done: make(chan struct{}),
		kick: make(chan struct{}, 1), stored: make(chan struct{})}
}

// Start reads the ring now, then every RefreshInterval and
// ChangeDebounce after a change is signalled, until close.
func (v *View) Start() {
	go func() {
		defer close(v.done)
		t := time.NewTicker(v.cfg.RefreshInterval)
		defer t.Stop()
		// debounce is the pending change's timer, nil when none is
		// pending: a signal during the wait or the read leaves its value
		// in Changes (it holds one), so it starts the next wait.
		var debounce <-chan time.Time
		for {
			v.refresh()
		wait:
			for {
				select {
				case <-v.stop:
					return
				case <-t.C:
					break wait
				case <-v.kick:
					break wait
				case <-v.cfg.Changes: // nil without Changes: never ready
					if debounce == nil {
						debounce = time.After(v.cfg.ChangeDebounce)
					}
				case <-debounce:
					v.log.Debug("read the ring: the driver signalled a topology or schema change")
					break wait
				}
			}
			debounce = nil
		}
	}()
}

// Close stops the refreshes and waits for the one running.
func (v *View) Close() {
	select {
	case <-v.stop:
	default:
		close(v.stop)
	}
	<-v.done
}

// refresh reads the topology once, within RefreshTimeout. A failure keeps
// the last ring: the cluster is still as it was last seen until a read
// says otherwise, and every read checks ownership again at DoGet.
func (v *View) refresh() {
	ctx, cancel := context.WithTimeout(context.Background(), v.cfg.RefreshTimeout)
	defer cancel()
	go func() {
		select {
		case <-v.stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	st, err := v.read(ctx)
	defer v.ended()
	if err != nil {
		v.last.Store(&err)
		if errors.Is(err, cqlconn.ErrNotConnected) {
			// The connection logs its own state, once per change.
			v.log.Debug("read the ring: keeping the last one", "err", err)
			return
		}
		v.log.Warn("read the ring: keeping the last one", "err", err)
		return
	}
	v.cur.Store(st)
	v.readyOnce.Do(func() { close(v.ready) })
}

// ended wakes those waiting in newer for a refresh to end.
func (v *View) ended() {
	v.mu.Lock()
	close(v.stored)
	v.stored = make(chan struct{})
	v.mu.Unlock()
}

// Newer asks for a refresh now and returns the ring of the first one
// that started after the call, waiting at most RingWait: for a keyspace
// created since the last ring, whose replication that ring does not
// know. Past the wait, or if the refreshes fail, the caller keeps old.
func (v *View) Newer(ctx context.Context, old *State) *State {
	since := time.Now()
	t := time.NewTimer(v.cfg.RingWait)
	defer t.Stop()
	for {
		v.mu.Lock()
		stored := v.stored
		v.mu.Unlock()
		if st := v.cur.Load(); st != nil && !st.read.Before(since) {
			return st
		}
		select {
		case v.kick <- struct{}{}:
		default: // one is asked for already
		}
		select {
		case <-stored:
		case <-ctx.Done():
			return old
		case <-t.C:
			return old
		}
	}
}

func (v *View) read(ctx context.Context) (*State, error) {
	start := time.Now()
	top, err := v.cfg.Discover(ctx)
	if err != nil {
		return nil, fmt.Errorf("read the ring: %w", err)
	}
	local, ok := top.Ring.Local()
	if !ok {
		return nil, errors.New("read the ring: the server's own node owns no token")
	}
	return &State{top: top, local: local.HostID, read: start, maps: map[string]cluster.ReplicaMap{}}, nil
}

// Get returns the last ring read, waiting up to RingWait for the first.
func (v *View) Get(ctx context.Context) (*State, error) {
	if st := v.cur.Load(); st != nil {
		return st, nil
	}
	t := time.NewTimer(v.cfg.RingWait)
	defer t.Stop()
	select {
	case <-v.ready:
		return v.cur.Load(), nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-t.C:
	}
	why := "not read yet"
	if e := v.last.Load(); e != nil {
		why = (*e).Error()
	}
	return nil, fmt.Errorf("%w: the server has not read its node's ring (%s)", ErrNoRing, why)
}

// Local is the server's node in the ring, Topology what its node
// reported.
func (st *State) Local() uuid.UUID            { return st.local }
func (st *State) Topology() *cluster.Topology { return st.top }

// Latest is the last ring read, without waiting; nil before the first.
func (v *View) Latest() *State { return v.cur.Load() }

// Replicas is keyspace's placement on this ring, computed once.
func (st *State) Replicas(keyspace string) (cluster.ReplicaMap, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if m, ok := st.maps[keyspace]; ok {
		return m, nil
	}
	m, err := st.top.Replicas(keyspace)
	if err != nil {
		return nil, err
	}
	st.maps[keyspace] = m
	return m, nil
}
