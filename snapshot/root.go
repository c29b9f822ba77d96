package snapshot

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// rootMarker names the file that marks a directory as ours: start-up
// deletes what such a directory holds (a crashed run's epochs), and
// refuses a non-empty directory without it, so a mistyped --snapshot-dir
// never empties someone else's directory.
const rootMarker = ".sstable-flight-snapshots"

// root is the snapshot directory of one server process: locked, so two
// servers never delete each other's epochs.
type root struct {
	path string
	lock *os.File
}

// openRoot prepares dir for hardlink snapshots of dataDir's tables: it
// must be on dataDir's filesystem (hard links cannot cross one), outside
// Cassandra's data directory (where its own snapshots live), and ours.
// What a previous run left there (it was killed before it cleaned up) is
// removed.
func openRoot(dir, dataDir string) (*root, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("open snapshot dir %s: %w", dir, err)
	}
	if dataDir != "" { // hard links: the data directory's filesystem, outside it
		data, err := filepath.Abs(dataDir)
		if err != nil {
			return nil, fmt.Errorf("open snapshot dir: data dir %s: %w", dataDir, err)
		}
		if within(abs, data) || within(data, abs) {
			return nil, fmt.Errorf("open snapshot dir %s: it must not be inside Cassandra's data directory %s or contain it", abs, data)
		}
		if err := os.MkdirAll(abs, 0o755); err != nil {
			return nil, fmt.Errorf("open snapshot dir: %w", err)
		}
		if err := sameDevice(abs, data); err != nil {
			return nil, err
		}
	} else if err := os.MkdirAll(abs, 0o755); err != nil {
		return nil, fmt.Errorf("open snapshot dir: %w", err)
	}
	entries, err := os.ReadDir(abs)
	if err != nil {
		return nil, fmt.Errorf("open snapshot dir: %w", err)
	}
	marked := false
	for _, e := range entries {
		marked = marked || e.Name() == rootMarker
	}
	if !marked && len(entries) > 0 {
		return nil, fmt.Errorf("open snapshot dir %s: not empty and not made by sstable-flight (no %s file); choose an empty directory", abs, rootMarker)
	}
	// Lock first: a server refused here writes nothing.
	lock, err := os.OpenFile(filepath.Join(abs, rootMarker), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open snapshot dir: %w", err)
	}
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		lock.Close()
		return nil, fmt.Errorf("open snapshot dir %s: another sstable-flight process uses it: %w", abs, err)
	}
	if _, err := lock.WriteAt([]byte("sstable-flight snapshot epochs; removed at start-up and shutdown\n"), 0); err != nil {
		lock.Close()
		return nil, fmt.Errorf("open snapshot dir: %w", err)
	}
	r := &root{path: abs, lock: lock}
	if err := r.clear(); err != nil {
		r.close()
		return nil, err
	}
	return r, nil
}

// clear removes every epoch under the root (all entries but the marker).
func (r *root) clear() error {
	entries, err := os.ReadDir(r.path)
	if err != nil {
		return fmt.Errorf("clear snapshot dir: %w", err)
	}
	var errs []error
	for _, e := range entries {
		if e.Name() == rootMarker || e.Name() == journalFile {
			continue // the journal outlives a run: its snapshots are Cassandra's
		}
		if err := os.RemoveAll(filepath.Join(r.path, e.Name())); err != nil {
			errs = append(errs, fmt.Errorf("clear snapshot dir: %w", err))
		}
	}
	return errors.Join(errs...)
}

func (r *root) close() {
	if r.lock != nil {
		r.lock.Close() // releases the flock
		r.lock = nil
	}
}

// within reports whether path is dir or below it.
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

func sameDevice(a, b string) error {
	var sa, sb syscall.Stat_t
	if err := syscall.Stat(a, &sa); err != nil {
		return fmt.Errorf("stat snapshot dir %s: %w", a, err)
	}
	if err := syscall.Stat(b, &sb); err != nil {
		return fmt.Errorf("stat data dir %s: %w", b, err)
	}
	if sa.Dev != sb.Dev {
		return fmt.Errorf("open snapshot dir %s: not on the filesystem of data dir %s (hard links cannot cross filesystems)", a, b)
	}
	return nil
}
