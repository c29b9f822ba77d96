package snapshot

import (
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"
)

// pinnedEvery is how often the sweep recomputes pinned bytes (a stat per
// linked file).
const pinnedEvery = 5 * time.Second

// ErrEpochGone reports a ticket's epoch that was retired (or cut by an
// earlier run of the server): the query must be planned again.
var ErrEpochGone = errors.New("snapshot epoch is gone; plan the query again")

// ErrClosed reports use of a closed Manager.
var ErrClosed = errors.New("snapshot manager closed")

// Stats are the Manager's counters and gauges for metrics.
type Stats struct {
	Epochs         int           // epochs alive, current or superseded
	EpochsCut      uint64        // epochs created since start
	OldestEpochAge time.Duration // age of the oldest alive epoch
	PinnedBytes    int64         // bytes only our links keep (Hardlink)
	Readers        int           // open SSTable readers
	ReadersOpened  uint64        // readers opened since start
	ReadersReused  uint64        // readers a new epoch took over from an older one
	Hits           uint64        // acquisitions served by an existing epoch
	Retired        uint64        // epochs removed
	ForcedRetired  uint64        // of them, retired early by PinnedCap
}

// Manager gives queries epochs: consistent, stable sets of a table's
// SSTables, shared within the freshness window.
type Manager struct {
	cfg         Config
	root        *root
	incarnation string

	mu       sync.Mutex
	seq      uint64
	tables   map[string]*tableState // live table directory → state
	epochs   map[string]*Epoch      // alive and leasable, by ID
	retiring int                    // retired, still leased
	readers  map[fileID]*sharedReader
	owned    int // readers of Sidecar epochs, each epoch's own
	journal  *journal
	stats    Stats
	closed   bool
	pinnedAt time.Time

	stop chan struct{}
	done chan struct{}
	// sleep pauses between listings of a cut (time.Sleep, real time: it
	// waits for Cassandra, not for a window; tests step through a race
	// with it).
	sleep func(time.Duration)
}

// tableState is one table directory's current epoch.
type tableState struct {
	cur     *Epoch
	checked time.Time     // when the live SSTables were last compared with cur's
	cutting chan struct{} // closed when the listing or cut in progress ends
}

// NewManager starts a manager. In Hardlink and Sidecar mode it takes its
// snapshot directory and removes what a crashed run left: the epochs'
// links, or the Cassandra snapshots its journal lists.
func NewManager(cfg Config) (*Manager, error) {
	if err := cfg.resolve(); err != nil {
		return nil, fmt.Errorf("start snapshot manager: %w", err)
	}
	m := &Manager{
		cfg: cfg,
		// NB: the real clock, not Config.Now: the incarnation is an
		// identity, which must differ between two runs even under a
		// fixed test clock, or a ticket of the last run could name an
		// epoch of this one.
		incarnation: strconv.FormatInt(time.Now().UnixNano(), 36),
		tables:      map[string]*tableState{},
		epochs:      map[string]*Epoch{},
		readers:     map[fileID]*sharedReader{},
		stop:        make(chan struct{}),
		done:        make(chan struct{}),
		sleep:       time.Sleep,
	}
	switch cfg.Mode {
	case Hardlink:
		r, err := openRoot(cfg.Dir, cfg.DataDir)
		if err != nil {
			return nil, err
		}
		m.root = r
	case Live:
	case Sidecar:
		// The directory only keeps the journal of our Cassandra snapshots.
		r, err := openRoot(cfg.Dir, "")
		if err != nil {
			return nil, err
		}
		m.root = r
		m.journal = openJournal(r.path)
		if err := m.clearLeftovers(); err != nil {
			r.close()
			return nil, err
		}
	}
	go m.janitor()
	return m, nil
}

// Mode is the manager's mode.
func (m *Manager) Mode() Mode { return m.cfg.Mode }

// DataDir is the data directory, resolved (symbolic links followed,
// absolute): what every path of a listing starts with, and what the
// snapshot directory was checked against. Empty in Sidecar mode.
func (m *Manager) DataDir() string { return m.cfg.DataDir }

// Dir is the snapshot directory (Hardlink mode), or the directory of
// the journal of our Cassandra snapshots (Sidecar mode).
func (m *Manager) Dir() string { return m.cfg.Dir }

// Window is the freshness window, resolved for the mode: whoever else
// trusts what it found for "one window" (the server's table cache) takes
// it from here, so the two never disagree.
func (m *Manager) Window() time.Duration { return m.cfg.Window }

// Stats returns the current counters.
func (m *Manager) Stats() Stats {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.stats
	s.Epochs = len(m.epochs) + m.retiring
	s.Readers = len(m.readers) + m.owned
	now := m.cfg.Now()
	for _, e := range m.epochs {
		s.OldestEpochAge = max(s.OldestEpochAge, now.Sub(e.Cut))
	}
	return s
}

// Close retires every epoch, cleaning up now those no stream leases
// (their last Release cleans up the others), and in Hardlink and Sidecar
// mode empties and releases the snapshot directory. Call it after the
// last stream ended.
func (m *Manager) Close() error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil
	}
	m.closed = true
	close(m.stop)
	var done []*Epoch
	for _, e := range m.epochs {
		if m.retire(e, false) {
			done = append(done, e)
		}
	}
	m.tables = map[string]*tableState{}
	m.mu.Unlock()
	<-m.done
	for _, e := range done {
		e.cleanup()
	}
	if m.root == nil {
		return nil
	}
	err := m.root.clear()
	m.root.close()
	return err
}
