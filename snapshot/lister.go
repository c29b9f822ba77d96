package snapshot

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// Lister finds a table's directories and SSTables (findTable), but
// reads a directory again only when its modification time changed: every
// flush and compaction creates or removes files, which updates the
// directory's mtime. Listing a table directory costs a readdir and a stat
// per file, a third of a warm point read's time before this cache.
type Lister struct {
	dataDir string
	now     func() time.Time
	skipped func(SkippedLink) // told once per link path

	mu     sync.Mutex
	tables map[string]listed // keyspace/table → its directories
	links  map[string]bool   // link paths told of
}

type listed struct {
	ksMtime time.Time
	dirs    []TableDir
	mtimes  []time.Time // per dir
}

// racyWindow: a directory changed within this long of its listing may
// change again within the same mtime tick, so such a listing is not
// trusted (the "racy git" rule).
const racyWindow = 2 * time.Second

// NewLister lists tables under dataDir, which must be resolved
// (filepath.EvalSymlinks, as Manager.DataDir is). skipped, when set, is
// told once of each keyspace or table directory skipped as a symbolic
// link (skipLink), so the caller can log it once.
//
// NB: its clock is the real one (time.Now), never an injected Now: the
// racy rule compares it with directory mtimes, which the kernel stamps
// from the real clock. An injected clock behind the real one would only
// list every time; one ahead of it would trust a listing that a change
// within the same mtime tick left stale.
func NewLister(dataDir string, skipped func(SkippedLink)) *Lister {
	return &Lister{dataDir: dataDir, now: time.Now, skipped: skipped, tables: map[string]listed{}, links: map[string]bool{}}
}

// Layout lists every table of the lister's data directory (layout; it
// caches nothing).
func (l *Lister) Layout() ([]TableDir, error) { return layout(l.dataDir, l.skip) }

// skip tells l.skipped of a link the first time it is skipped.
func (l *Lister) skip(link SkippedLink) {
	if l.skipped == nil {
		return
	}
	l.mu.Lock()
	first := !l.links[link.Path]
	l.links[link.Path] = true
	l.mu.Unlock()
	if first {
		l.skipped(link)
	}
}

// Find returns the directories of keyspace.table (validated names) with
// their SSTables.
func (l *Lister) Find(keyspace, table string) ([]TableDir, error) {
	key := keyspace + "/" + table
	// NB: Lstat: a keyspace directory that is a link is not followed
	// (findTable skips it), so its own time is the one to watch.
	ksStat, err := os.Lstat(filepath.Join(l.dataDir, keyspace))
	if err != nil {
		if os.IsNotExist(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("stat keyspace dir: %w", err)
	}
	l.mu.Lock()
	c, ok := l.tables[key]
	l.mu.Unlock()
	if ok && l.fresh(c.ksMtime, ksStat.ModTime()) {
		if dirs, ok := l.reuse(c); ok {
			return dirs, nil
		}
	}
	dirs, err := findTable(l.dataDir, keyspace, table, l.skip)
	if err != nil {
		return nil, err
	}
	c = listed{ksMtime: ksStat.ModTime(), dirs: dirs, mtimes: make([]time.Time, len(dirs))}
	for i, d := range dirs {
		// Stat after listing: a change in between leaves a newer mtime,
		// which only makes the next call list again.
		if st, err := os.Stat(d.Path); err == nil {
			c.mtimes[i] = st.ModTime()
		}
	}
	l.mu.Lock()
	l.tables[key] = c
	l.mu.Unlock()
	return dirs, nil
}

// reuse returns the cached directories if none changed since listed.
func (l *Lister) reuse(c listed) ([]TableDir, bool) {
	for i, d := range c.dirs {
		st, err := os.Stat(d.Path)
		if err != nil || !l.fresh(c.mtimes[i], st.ModTime()) {
			return nil, false
		}
	}
	return c.dirs, true
}

func (l *Lister) fresh(cached, current time.Time) bool {
	return !cached.IsZero() && cached.Equal(current) && l.now().Sub(current) > racyWindow
}
