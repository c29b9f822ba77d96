package snapshot

import (
	"errors"
	"fmt"
	"io/fs"
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
// removed. dataDir is resolved (Config.resolve); dir is resolved here,
// before it is checked, so no link takes it into the data directory.
func openRoot(dir, dataDir string) (*root, error) {
	abs, err := resolvePartial(dir)
	if err != nil {
		return nil, fmt.Errorf("open snapshot dir %s: %w", dir, err)
	}
	if dataDir != "" { // hard links: the data directory's filesystem, outside it
		if err := outsideDataDir(dir, abs, dataDir); err != nil {
			return nil, err
		}
		if err := os.MkdirAll(abs, 0o755); err != nil {
			return nil, fmt.Errorf("open snapshot dir: %w", err)
		}
		// Resolved again, now that it exists: a link in the part that
		// did not (or one swapped in meanwhile) is followed now.
		if abs, err = filepath.EvalSymlinks(abs); err != nil {
			return nil, fmt.Errorf("open snapshot dir: %w", err)
		}
		if err := outsideDataDir(dir, abs, dataDir); err != nil {
			return nil, err
		}
		if err := sameDevice(abs, dataDir); err != nil {
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

// outsideDataDir refuses a snapshot directory (given as dir, resolved to
// abs) inside the resolved data directory, or containing it.
func outsideDataDir(dir, abs, dataDir string) error {
	if !within(abs, dataDir) && !within(dataDir, abs) {
		return nil
	}
	name := dir
	if abs != dir {
		name = fmt.Sprintf("%s (%s)", dir, abs)
	}
	return fmt.Errorf("open snapshot dir %s: it must not be inside Cassandra's data directory %s or contain it", name, dataDir)
}

// resolvePath is p made absolute, every symbolic link in it followed.
func resolvePath(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(abs)
}

// resolvePartial is resolvePath for a path that need not exist yet: its
// longest existing prefix resolved, the rest appended (filepath.Abs has
// cleaned it, so it holds no "..").
func resolvePartial(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	var rest []string
	for cur := abs; ; {
		r, err := filepath.EvalSymlinks(cur)
		if err == nil {
			return filepath.Join(append([]string{r}, rest...)...), nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return abs, nil
		}
		rest = append([]string{filepath.Base(cur)}, rest...)
		cur = parent
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
