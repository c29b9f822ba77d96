package snapshot

import (
	"fmt"
	"syscall"

	"github.com/sstable-flight/sstable-flight/sstable"
)

// fileID is a file's identity across hard links: two epochs linking the
// same Data.db see one (device, inode).
type fileID struct {
	dev, ino uint64
}

func statID(path string) (fileID, syscall.Stat_t, error) {
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		return fileID{}, st, fmt.Errorf("stat %s: %w", path, err)
	}
	return fileID{dev: uint64(st.Dev), ino: st.Ino}, st, nil
}

// sharedReader is an open SSTable reader and the epochs using it.
type sharedReader struct {
	id   fileID
	r    *sstable.Reader
	refs int // epochs holding it; guarded by Manager.mu
}

// openReaders returns a reader per SSTable of dir, reusing the open
// reader of a Data.db another epoch shares (same inode): a new epoch that
// keeps most of the last one's files reopens only what is new. Each
// returned reader holds one reference; release them with dropReaders.
func (m *Manager) openReaders(dir string, ssts []SSTable) ([]*sharedReader, error) {
	out := make([]*sharedReader, 0, len(ssts))
	fail := func(err error) ([]*sharedReader, error) {
		m.dropReaders(out)
		return nil, err
	}
	for _, st := range ssts {
		path := dir + "/" + st.Prefix + "-Data.db"
		id, _, err := statID(path)
		if err != nil {
			return fail(err)
		}
		m.mu.Lock()
		sr := m.readers[id]
		if sr != nil {
			sr.refs++
			m.stats.ReadersReused++
		}
		m.mu.Unlock()
		if sr == nil {
			r, err := m.cfg.Open(path)
			if err != nil {
				return fail(fmt.Errorf("open SSTable %s: %w", path, err))
			}
			m.mu.Lock()
			if cur := m.readers[id]; cur != nil {
				// Opened concurrently by another epoch's cut: use that one.
				cur.refs++
				sr = cur
				m.mu.Unlock()
				r.Close()
			} else {
				sr = &sharedReader{id: id, r: r, refs: 1}
				m.readers[id] = sr
				m.stats.ReadersOpened++
				m.mu.Unlock()
			}
		}
		out = append(out, sr)
	}
	return out, nil
}

// dropReaders releases one reference on each reader, closing those no
// epoch uses any more.
func (m *Manager) dropReaders(rs []*sharedReader) {
	var closing []*sstable.Reader
	m.mu.Lock()
	for _, sr := range rs {
		sr.refs--
		if sr.refs == 0 {
			delete(m.readers, sr.id)
			closing = append(closing, sr.r)
		}
	}
	m.mu.Unlock()
	for _, r := range closing {
		r.Close()
	}
}
