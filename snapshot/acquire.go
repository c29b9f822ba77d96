package snapshot

// Leasing epochs: the window, the listing, and cutting a new epoch.

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/sstable-flight/sstable-flight/snapshot/txnlog"
	"github.com/sstable-flight/sstable-flight/sstable"
)

// Acquire leases the table directory's current epoch. While the table's
// last listing is younger than the window (the window runs from the
// listing, not the cut: a listing that finds the same SSTables starts it
// again), that epoch is leased as it is. Otherwise refresh lists the live
// SSTables again (in Sidecar mode, takes a snapshot): the same epoch if
// they did not change, else a new one that supersedes it. Concurrent
// calls for one table wait for one listing and share its epoch. Release
// the epoch when done.
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

// AcquireCurrent is Acquire when it would lease the current epoch as it
// is: the table's last listing is younger than the window. Otherwise it
// leases nothing and returns false, and Acquire lists the table. It
// touches no storage, so a caller that must not wait for storage unbounded
// (a request) may call it where it runs, and save the guard of a
// listing for the call once a window that lists.
func (m *Manager) AcquireCurrent(td TableDir) (*Epoch, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	st := m.tables[td.Path]
	if m.closed || st == nil {
		return nil, false
	}
	e := st.cur
	if e == nil || m.cfg.Now().Sub(st.checked) >= m.cfg.Window {
		return nil, false
	}
	e.refs++
	m.stats.Hits++
	return e, true
}

// Lookup leases the epoch a ticket names, which must be one of
// keyspace.table: ErrEpochGone when it was retired, cut by an earlier run
// or is another table's. Release it when done.
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

// maxAttempts bounds how often refresh lists and cuts because a flush or
// compaction changed the directory under it.
const maxAttempts = 10

// stableAttempts is how many listings in a row must fail alike, over the
// first attempts' 100 ms of pauses, before the failure is the directory's
// state rather than a race with Cassandra: an SSTable listed whole once
// Cassandra finished deleting it, a TOC.txt it is appending to, a
// Summary.db it is rewriting (see complete.go).
const stableAttempts = 5

// refresh gets the table's current SSTables for Acquire: cur when they are
// still cur's, else a new epoch. In Sidecar mode that is one snapshot
// (cutSidecar), which never changes under it. Otherwise listAndCut does
// the listing, and refresh tries it again, with growing pauses, while it
// fails in a way racing Cassandra explains (retryable): a failure that
// repeats unchanged stableAttempts times is reported as it is, one that
// keeps changing for maxAttempts as "the directory kept changing".
func (m *Manager) refresh(td TableDir, cur *Epoch) (*Epoch, error) {
	if m.cfg.Mode == Sidecar {
		return m.cutSidecar(td, cur)
	}
	var err error
	same := 0 // attempts in a row that failed with err's message
	for attempt := 0; attempt < maxAttempts; attempt++ {
		if attempt > 0 {
			m.sleep(time.Duration(attempt) * 10 * time.Millisecond)
		}
		prev := err
		var e *Epoch
		if e, err = m.listAndCut(td, cur); err == nil {
			return e, nil
		}
		if !retryable(err) {
			return nil, err
		}
		if prev != nil && prev.Error() == err.Error() {
			same++
		} else {
			same = 1
		}
		if same >= stableAttempts {
			return nil, err
		}
	}
	return nil, fmt.Errorf("snapshot %s: the directory kept changing (%d attempts): %w", td.Path, maxAttempts, err)
}

// listAndCut lists the live SSTables once and returns cur if they did
// not change, else checks them and cuts a new epoch.
func (m *Manager) listAndCut(td TableDir, cur *Epoch) (*Epoch, error) {
	live, err := listSSTables(td.Path)
	if err != nil {
		return nil, err
	}
	if cur != nil && sameSSTables(cur.Table.SSTables, live) && !m.unflushedChanged(td, cur) {
		return cur, nil
	}
	comps, err := checkSSTables(td, live)
	if err != nil {
		return nil, unsettled{err}
	}
	return m.cut(td, live, comps)
}

// unsettled marks a listed SSTable found incomplete: the listing may have
// raced with Cassandra deleting it, so list again before believing it.
type unsettled struct{ err error }

func (u unsettled) Error() string { return u.err.Error() }
func (u unsettled) Unwrap() error { return u.err }

// cut makes a new epoch of the listed and checked SSTables (comps are
// their components): links them (Hardlink) and opens their readers,
// reusing readers of files already open.
func (m *Manager) cut(td TableDir, live []SSTable, comps [][]string) (*Epoch, error) {
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
		if err := linkSSTables(td.Path, e.Dir, live, comps); err != nil {
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
	m.addRuns(e)
	return e, nil
}

// unflushedChanged says whether the table's unflushed writes changed
// since cur was cut.
func (m *Manager) unflushedChanged(td TableDir, cur *Epoch) bool {
	return m.cfg.Unflushed != nil && m.cfg.Unflushed.Generation(td) != cur.gen
}

// addRuns adds the table's unflushed writes not in e's SSTables to e's
// readers. The generation is read first: writes that come while the runs
// are sealed change it again, and the next listing cuts again.
func (m *Manager) addRuns(e *Epoch) {
	u := m.cfg.Unflushed
	if u == nil {
		e.Fresh = Freshness{FlushedOnly: "no commit log"}
		return
	}
	e.gen = u.Generation(e.Table)
	e.runs, e.Fresh = u.Runs(e.Table, e.Readers)
	e.Readers = append(e.Readers, e.runs...)
}

// nextID names a new epoch: unique in this process, and across restarts
// by the incarnation.
func (m *Manager) nextID() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.seq++
	return m.incarnation + "-" + strconv.FormatUint(m.seq, 10)
}

// retryable errors may come from racing Cassandra: a file listed a
// moment ago is gone (a compaction finished), a transaction is finishing,
// or a listed SSTable looked incomplete.
func retryable(err error) bool {
	var u unsettled
	return errors.As(err, &u) || errors.Is(err, errVanished) || errors.Is(err, txnlog.ErrInProgress) || errors.Is(err, fs.ErrNotExist)
}

// sameSSTables compares two listings by SSTable, component sizes and the
// components that are not regular files: Cassandra never rewrites an
// SSTable's data in place, it writes a new generation.
func sameSSTables(a, b []SSTable) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Prefix != b[i].Prefix || len(a[i].Components) != len(b[i].Components) || !slices.Equal(a[i].irregular, b[i].irregular) {
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
