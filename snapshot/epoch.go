package snapshot

import (
	"os"
	"sort"
	"time"

	"github.com/sstable-flight/sstable-flight/sstable"
)

// Epoch is one consistent set of a table's SSTables, open and, in
// Hardlink mode, linked into a directory of ours. Every split of a query
// reads the same epoch (tickets carry its ID); it stays while leased.
type Epoch struct {
	ID    string
	Table TableDir // the live table directory and the SSTables of the epoch
	Dir   string   // where the epoch's files are (Table.Path in Live and Sidecar mode)
	Cut   time.Time
	// Readers are one per SSTable, in Table.SSTables order, then the
	// runs of the unflushed writes (Config.Unflushed), if any.
	Readers []*sstable.Reader
	// Fresh says what the epoch reflects of writes not yet flushed.
	Fresh Freshness

	m      *Manager
	state  *tableState
	shared []*sharedReader
	linked bool   // Dir is ours to delete
	gen    uint64 // Unflushed.Generation when the runs were sealed
	runs   []*sstable.Reader
	// sidecarSnap is the Cassandra snapshot of a Sidecar epoch, whose
	// readers are its own (Readers).
	sidecarSnap string

	// Guarded by m.mu.
	refs       int
	superseded bool      // a newer epoch of the table exists
	lastUsed   time.Time // last release (or supersession)
	retired    bool
}

// touch records a use at t.
func (e *Epoch) touch(t time.Time) {
	if t.After(e.lastUsed) {
		e.lastUsed = t
	}
}

// Release ends a lease.
func (e *Epoch) Release() {
	if cleanup := e.Unlease(); cleanup != nil {
		cleanup()
	}
}

// Unlease ends a lease as Release does, but leaves the part that touches
// storage to its caller: after the last lease of a retired epoch, it
// returns the epoch's cleanup (closing the readers only it holds,
// removing its links), which the caller must run, once; after any other
// lease, nil. Ending a lease is then an update in memory, which a
// request may make where it runs, guarding only the cleanup.
func (e *Epoch) Unlease() (cleanup func()) {
	m := e.m
	m.mu.Lock()
	e.refs--
	e.touch(m.cfg.Now())
	last := e.refs == 0 && e.retired
	if last {
		m.retiring--
	}
	m.mu.Unlock()
	if last {
		return e.cleanup
	}
	return nil
}

// retire makes e unleasable; it reports whether e is unused and can be
// cleaned up now (else its last Release does it). m.mu is held.
func (m *Manager) retire(e *Epoch, forced bool) bool {
	if e.retired {
		return false
	}
	e.retired = true
	delete(m.epochs, e.ID)
	if e.state != nil && e.state.cur == e {
		e.state.cur = nil
	}
	m.stats.Retired++
	if forced {
		m.stats.ForcedRetired++
	}
	if e.refs > 0 {
		m.retiring++
		return false
	}
	return true
}

// cleanup closes the epoch's readers (those no other epoch shares) and
// removes its links.
func (e *Epoch) cleanup() {
	if e.sidecarSnap != "" {
		for _, r := range e.Readers {
			r.Close()
		}
		e.m.mu.Lock()
		e.m.owned -= len(e.Readers)
		e.m.mu.Unlock()
		e.m.dropSidecarSnapshot(e.Table.Keyspace, e.Table.Table, e.sidecarSnap)
		return
	}
	e.m.dropReaders(e.shared)
	e.shared = nil
	for _, r := range e.runs {
		r.Close()
	}
	e.runs = nil
	if e.linked {
		os.RemoveAll(e.Dir)
	}
}

// janitor retires superseded epochs once unused for the grace period.
// Its ticker paces the sweeps in real time; what each sweep retires is
// decided by Config.Now.
func (m *Manager) janitor() {
	defer close(m.done)
	// NB: at least a millisecond: a grace of a nanosecond must not make
	// a zero interval, which NewTicker refuses with a panic.
	tick := time.NewTicker(max(time.Millisecond, min(time.Second, m.cfg.Grace/2)))
	defer tick.Stop()
	for {
		select {
		case <-m.stop:
			return
		case <-tick.C:
			m.Sweep()
		}
	}
}

// Sweep retires the superseded epochs unused for the grace period and,
// above PinnedCap, the superseded ones regardless of it. The janitor
// calls it every second (every half grace period when that is shorter);
// tests call it directly.
func (m *Manager) Sweep() {
	now := m.cfg.Now()
	m.mu.Lock()
	var done []*Epoch
	for _, e := range m.epochs {
		if e.superseded && e.refs == 0 && now.Sub(e.lastUsed) >= m.cfg.Grace && m.retire(e, false) {
			done = append(done, e)
		}
	}
	recount := m.cfg.Mode == Hardlink && now.Sub(m.pinnedAt) >= pinnedEvery
	m.mu.Unlock()
	for _, e := range done {
		e.cleanup()
	}
	if recount {
		m.countPinned(now)
	}
}

// countPinned stats every linked file and sums the sizes of those whose
// only names are our links: what the epochs keep on disk that Cassandra
// already deleted. Above PinnedCap it retires superseded epochs, oldest
// first, and makes the next query of each table list again.
func (m *Manager) countPinned(now time.Time) {
	m.mu.Lock()
	var epochs []*Epoch
	for _, e := range m.epochs {
		if e.linked {
			epochs = append(epochs, e)
		}
	}
	m.mu.Unlock()
	type file struct {
		nlink, ours uint64
		size        int64
	}
	files := map[fileID]*file{}
	for _, e := range epochs {
		entries, err := os.ReadDir(e.Dir)
		if err != nil {
			continue // retired meanwhile
		}
		for _, de := range entries {
			id, st, err := statID(e.Dir + "/" + de.Name())
			if err != nil {
				continue
			}
			f := files[id]
			if f == nil {
				f = &file{nlink: uint64(st.Nlink), size: st.Size}
				files[id] = f
			}
			f.ours++
		}
	}
	var pinned int64
	for _, f := range files {
		if f.nlink <= f.ours {
			pinned += f.size
		}
	}
	m.mu.Lock()
	m.stats.PinnedBytes = pinned
	m.pinnedAt = now
	var done []*Epoch
	if m.cfg.PinnedCap > 0 && pinned > m.cfg.PinnedCap {
		var old []*Epoch
		for _, e := range m.epochs {
			if e.superseded {
				old = append(old, e)
			}
		}
		sort.Slice(old, func(i, j int) bool { return old[i].Cut.Before(old[j].Cut) })
		for _, e := range old {
			if m.retire(e, true) {
				done = append(done, e)
			}
		}
		for _, st := range m.tables {
			st.checked = time.Time{} // list again: the current epoch may pin deleted files too
		}
		m.pinnedAt = time.Time{} // recount at the next sweep
	}
	m.mu.Unlock()
	for _, e := range done {
		e.cleanup()
	}
}
