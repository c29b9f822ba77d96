package flightserver

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/sstable-flight/sstable-flight/snapshot"
	"github.com/sstable-flight/sstable-flight/sstable"
)

// readerSet is one consistent set of open SSTable readers of a table. A
// stream or plan holds a reference; the set closes its readers when it
// has been replaced and the last reference is gone, so a flush or a
// compaction never closes a reader under a running scan.
type readerSet struct {
	prefixes []string
	readers  []*sstable.Reader
	refs     atomic.Int64 // holders, plus one while it is the table's current set
	onClose  func(n int)
}

func (rs *readerSet) release() {
	if rs.refs.Add(-1) == 0 {
		for _, r := range rs.readers {
			r.Close()
		}
		if rs.onClose != nil {
			rs.onClose(len(rs.readers))
		}
	}
}

// readerCache keeps the current reader set of each table directory and
// reopens only when its SSTables changed. It reads the live directory;
// snapshots (issue #6) will give it stable directories instead.
type readerCache struct {
	mu     sync.Mutex
	sets   map[string]*readerSet // table directory → current set
	opened func(n int)           // metrics: readers opened (+n) or closed (-n)
	hits   func(hit bool)
}

func newReaderCache(opened func(int), hits func(bool)) *readerCache {
	return &readerCache{sets: map[string]*readerSet{}, opened: opened, hits: hits}
}

// acquire returns the table directory's current readers, opening them
// when the set of SSTables changed; release the set when done.
func (c *readerCache) acquire(td snapshot.TableDir) (*readerSet, error) {
	// A compaction may delete SSTables between listing and opening:
	// list again and retry a few times before giving up.
	var err error
	for attempt := 0; attempt < 5; attempt++ {
		if attempt > 0 {
			if td, err = snapshot.Rescan(td); err != nil {
				return nil, err
			}
		}
		var rs *readerSet
		if rs, err = c.acquireListed(td); err == nil {
			return rs, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
	}
	return nil, err
}

func (c *readerCache) acquireListed(td snapshot.TableDir) (*readerSet, error) {
	prefixes := make([]string, 0, len(td.SSTables))
	for _, st := range td.SSTables {
		if _, ok := st.Components["Data.db"]; ok {
			prefixes = append(prefixes, st.Prefix)
		}
	}
	c.mu.Lock()
	cur := c.sets[td.Path]
	if cur != nil && slices.Equal(cur.prefixes, prefixes) {
		cur.refs.Add(1)
		c.mu.Unlock()
		c.hits(true)
		return cur, nil
	}
	c.mu.Unlock()
	c.hits(false)

	rs := &readerSet{prefixes: prefixes, onClose: func(n int) { c.opened(-n) }}
	for _, p := range prefixes {
		r, err := sstable.Open(filepath.Join(td.Path, p+"-Data.db"), sstable.Options{})
		if err != nil {
			for _, o := range rs.readers {
				o.Close()
			}
			c.opened(0)
			return nil, fmt.Errorf("open SSTable %s of %s: %w", p, td.Path, err)
		}
		rs.readers = append(rs.readers, r)
	}
	c.opened(len(rs.readers))
	rs.refs.Store(2) // the cache's reference and the caller's

	c.mu.Lock()
	old := c.sets[td.Path]
	c.sets[td.Path] = rs
	c.mu.Unlock()
	if old != nil {
		old.release()
	}
	return rs, nil
}

// close drops the cache's references: sets close as their last stream
// ends.
func (c *readerCache) close() {
	c.mu.Lock()
	sets := c.sets
	c.sets = map[string]*readerSet{}
	c.mu.Unlock()
	for _, rs := range sets {
		rs.release()
	}
}
