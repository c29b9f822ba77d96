package snapshot

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/sstable-flight/sstable-flight/snapshot/sidecar"
	"github.com/sstable-flight/sstable-flight/sstable"
)

// Mode is how a query's SSTables are held still.
type Mode string

const (
	// Hardlink links every live SSTable of a table into a directory of
	// ours on the same filesystem: a compaction that deletes Cassandra's
	// names leaves ours, so an epoch's files never change under a scan.
	Hardlink Mode = "hardlink"
	// Live reads Cassandra's directory directly, with the same listing
	// rules and retries, holding files open instead of linked (for
	// development, and for data directories that never change).
	Live Mode = "live"
)

// Config configures a Manager.
type Config struct {
	DataDir string
	Mode    Mode // default Hardlink
	// Dir is where Hardlink mode keeps its epochs: on DataDir's
	// filesystem, outside it. Default: sstable-flight-snapshots beside
	// DataDir (its parent directory).
	Dir string
	// Window is how long queries share one epoch before the next query
	// looks for new SSTables (default 3 s): the staleness bound a flush
	// adds to.
	Window time.Duration
	// Grace keeps a superseded epoch this long after its last use
	// (default 30 s), so the splits of a query planned on it can still
	// run.
	Grace time.Duration
	// PinnedCap, when > 0, caps the bytes held only by our links
	// (Cassandra deleted its names): above it, superseded epochs retire
	// without waiting for the grace period.
	PinnedCap int64
	Now       func() time.Time
	// Open opens an SSTable (default sstable.Open with CRC checks).
	Open func(path string) (*sstable.Reader, error)
	// Sidecar is Sidecar mode's client: epochs are Cassandra snapshots
	// read over HTTP (see sidecarmode.go). OpenFS opens an SSTable through
	// its FS (default sstable.Open with CRC checks).
	Sidecar *sidecar.Client
	OpenFS  func(path string, fsys sstable.FS) (*sstable.Reader, error)
}

// DefaultWindow and DefaultGrace are Config's defaults.
const (
	DefaultWindow = 3 * time.Second
	DefaultGrace  = 30 * time.Second
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
	// sleep pauses between listings of a cut (time.Sleep; tests step
	// through a race with it).
	sleep func(time.Duration)
}

// tableState is one table directory's current epoch.
type tableState struct {
	cur     *Epoch
	checked time.Time     // when the live SSTables were last compared with cur's
	cutting chan struct{} // closed when the listing or cut in progress ends
}

// NewManager starts a manager; in Hardlink mode it takes its snapshot
// directory and removes what a crashed run left there.
func NewManager(cfg Config) (*Manager, error) {
	if cfg.Mode == "" {
		cfg.Mode = Hardlink
	}
	if cfg.Window <= 0 {
		cfg.Window = DefaultWindow
		if cfg.Mode == Sidecar {
			cfg.Window = DefaultSidecarWindow
		}
	}
	if cfg.Grace <= 0 {
		cfg.Grace = DefaultGrace
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Open == nil {
		cfg.Open = func(path string) (*sstable.Reader, error) { return sstable.Open(path, sstable.Options{}) }
	}
	if cfg.OpenFS == nil {
		cfg.OpenFS = func(path string, fsys sstable.FS) (*sstable.Reader, error) {
			return sstable.Open(path, sstable.Options{FS: fsys})
		}
	}
	m := &Manager{
		cfg:         cfg,
		incarnation: strconv.FormatInt(cfg.Now().UnixNano(), 36),
		tables:      map[string]*tableState{},
		epochs:      map[string]*Epoch{},
		readers:     map[fileID]*sharedReader{},
		stop:        make(chan struct{}),
		done:        make(chan struct{}),
		sleep:       time.Sleep,
	}
	switch cfg.Mode {
	case Hardlink:
		if m.cfg.Dir == "" {
			m.cfg.Dir = DefaultDir(cfg.DataDir)
		}
		r, err := openRoot(m.cfg.Dir, cfg.DataDir)
		if err != nil {
			return nil, err
		}
		m.root = r
	case Live:
	case Sidecar:
		if cfg.Sidecar == nil {
			return nil, errors.New("start snapshot manager: sidecar mode needs a Sidecar client")
		}
		if m.cfg.Dir == "" {
			m.cfg.Dir = filepath.Join(os.TempDir(), "sstable-flight-sidecar")
		}
		// The directory only keeps the journal of our Cassandra snapshots.
		r, err := openRoot(m.cfg.Dir, "")
		if err != nil {
			return nil, err
		}
		m.root = r
		m.journal = openJournal(r.path)
		if err := m.clearLeftovers(); err != nil {
			r.close()
			return nil, err
		}
	default:
		return nil, fmt.Errorf("start snapshot manager: mode %q (want %s, %s or %s)", cfg.Mode, Hardlink, Live, Sidecar)
	}
	go m.janitor()
	return m, nil
}

// DefaultDir is Hardlink mode's default snapshot directory for dataDir.
func DefaultDir(dataDir string) string {
	abs, err := filepath.Abs(dataDir)
	if err != nil {
		abs = dataDir
	}
	return filepath.Join(filepath.Dir(abs), "sstable-flight-snapshots")
}

// Mode is the manager's mode.
func (m *Manager) Mode() Mode { return m.cfg.Mode }

// Dir is the snapshot directory (Hardlink mode).
func (m *Manager) Dir() string { return m.cfg.Dir }

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

// Close retires every epoch and, in Hardlink mode, empties and releases
// the snapshot directory. Call it after the last stream ended.
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
