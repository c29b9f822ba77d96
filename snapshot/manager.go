package snapshot

import (
	"errors"
	"fmt"
	"io/fs"
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

// Acquire leases the table directory's current epoch: the one cut within
// the window, else, after listing the live SSTables again, the same epoch
// if they did not change or a new one. Release the epoch when done.
func (m *Manager) Acquire(td TableDir) (*Epoch, error) {
	m.mu.Lock()
	st := m.tables[td.Path]
	if st == nil {
		st = &tableState{}
		m.tables[td.Path] = st
	}
	for {
		if m.closed {
			m.mu.Unlock()
			return nil, ErrClosed
		}
		if e := st.cur; e != nil && m.cfg.Now().Sub(st.checked) < m.cfg.Window {
			e.refs++
			m.stats.Hits++
			m.mu.Unlock()
			return e, nil
		}
		if st.cutting == nil {
			break
		}
		// One listing per table at a time: the others wait for it and
		// share its epoch.
		ch := st.cutting
		m.mu.Unlock()
		<-ch
		m.mu.Lock()
	}
	ch := make(chan struct{})
	st.cutting = ch
	cur := st.cur
	m.mu.Unlock()

	listedAt := m.cfg.Now()
	e, err := m.refresh(td, cur)

	m.mu.Lock()
	defer m.mu.Unlock()
	st.cutting = nil
	close(ch)
	if err != nil {
		return nil, err
	}
	st.checked = listedAt
	if e != cur {
		if m.closed {
			m.mu.Unlock()
			e.cleanup()
			m.mu.Lock()
			return nil, ErrClosed
		}
		e.state = st
		m.epochs[e.ID] = e
		m.stats.EpochsCut++
		st.cur = e
		if cur != nil {
			cur.superseded = true
			cur.touch(listedAt)
		}
	} else {
		m.stats.Hits++
	}
	e.refs++
	return e, nil
}

// Lookup leases the epoch a ticket names, which must be of this table.
func (m *Manager) Lookup(keyspace, table, id string) (*Epoch, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e := m.epochs[id]
	if e == nil || e.Table.Keyspace != keyspace || e.Table.Table != table {
		return nil, fmt.Errorf("find snapshot epoch %q of %s.%s: %w", id, keyspace, table, ErrEpochGone)
	}
	e.refs++
	return e, nil
}

// maxAttempts bounds how often a listing or a cut restarts because a
// flush or compaction changed the directory under it.
const maxAttempts = 10

// refresh lists the live SSTables and returns cur when they are cur's,
// else a new epoch holding them.
func (m *Manager) refresh(td TableDir, cur *Epoch) (*Epoch, error) {
	if m.cfg.Mode == Sidecar {
		return m.cutSidecar(td, cur)
	}
	var err error
	for attempt := 0; attempt < maxAttempts; attempt++ {
		if attempt > 0 {
			time.Sleep(time.Duration(attempt) * 10 * time.Millisecond)
		}
		var live []SSTable
		if live, err = listSSTables(td.Path); err != nil {
			if retryable(err) {
				continue
			}
			return nil, err
		}
		live = withData(live)
		if cur != nil && sameSSTables(cur.Table.SSTables, live) {
			return cur, nil
		}
		var e *Epoch
		if e, err = m.cut(td, live); err == nil {
			return e, nil
		}
		if !retryable(err) {
			return nil, err
		}
	}
	return nil, fmt.Errorf("snapshot %s: the directory kept changing (%d attempts): %w", td.Path, maxAttempts, err)
}

// cut makes a new epoch of the listed SSTables: links them (Hardlink)
// and opens their readers, reusing readers of files already open.
func (m *Manager) cut(td TableDir, live []SSTable) (*Epoch, error) {
	id := m.nextID()
	e := &Epoch{ID: id, Dir: td.Path, Cut: m.cfg.Now(), m: m}
	e.Table = td
	e.Table.SSTables = live
	if m.cfg.Mode == Hardlink {
		e.Dir = filepath.Join(m.root.path, td.Keyspace, filepath.Base(td.Path), id)
		e.linked = true
		if err := os.MkdirAll(e.Dir, 0o755); err != nil {
			return nil, fmt.Errorf("make snapshot dir: %w", err)
		}
		if err := linkSSTables(td.Path, e.Dir, live); err != nil {
			os.RemoveAll(e.Dir)
			return nil, err
		}
	}
	rs, err := m.openReaders(e.Dir, live)
	if err != nil {
		if e.linked {
			os.RemoveAll(e.Dir)
		}
		return nil, err
	}
	e.shared = rs
	e.Readers = make([]*sstable.Reader, len(rs))
	for i, sr := range rs {
		e.Readers[i] = sr.r
	}
	return e, nil
}

// retryable errors come from racing Cassandra: a file listed a moment
// ago is gone (a compaction finished), or a transaction is finishing.
// nextID names a new epoch: unique in this process, and across restarts
// by the incarnation.
func (m *Manager) nextID() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.seq++
	return m.incarnation + "-" + strconv.FormatUint(m.seq, 10)
}

func retryable(err error) bool {
	return errors.Is(err, errVanished) || errors.Is(err, ErrTxnInProgress) || errors.Is(err, fs.ErrNotExist)
}

// withData drops SSTables without a Data.db (stray components).
func withData(ssts []SSTable) []SSTable {
	out := ssts[:0:0]
	for _, st := range ssts {
		if _, ok := st.Components["Data.db"]; ok {
			out = append(out, st)
		}
	}
	return out
}

// sameSSTables compares two listings by SSTable and component sizes:
// Cassandra never rewrites an SSTable's data in place, it writes a new
// generation.
func sameSSTables(a, b []SSTable) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Prefix != b[i].Prefix || len(a[i].Components) != len(b[i].Components) {
			return false
		}
		for c, n := range a[i].Components {
			if m, ok := b[i].Components[c]; !ok || m != n {
				return false
			}
		}
	}
	return true
}

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
