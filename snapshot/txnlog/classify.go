package txnlog

// Which files the txn logs of a directory hide (LogAwareFileLister).

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/sstable-flight/sstable-flight/sstable/metadata"
)

// TemporaryFiles lists the txn logs of dir and returns which of files
// they make temporary, as LogAwareFileLister.classifyFiles. files must name
// dir's entries other than txn logs (and directories, but for those named
// as SSTable components), and must be listed before calling: Cassandra
// deletes a log after the files it obsoletes, so listing files first and
// logs second never misses a log whose files were listed.
func TemporaryFiles(dir string, files []string) (map[string]bool, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("list txn logs: %w", err)
	}
	temp := map[string]bool{}
	for _, e := range entries {
		if e.IsDir() || !IsName(e.Name()) {
			continue
		}
		if err := classifyTxnLog(dir, e.Name(), files, temp); err != nil {
			return nil, err
		}
	}
	return temp, nil
}

// recordFiles pairs a valid ADD or REMOVE record with its listed files.
type recordFiles struct {
	rec   Record
	names []string
}

func (l *Log) filesOf(t RecordType, files []string) []recordFiles {
	var out []recordFiles
	for _, r := range l.Records {
		if r.Type != t || !r.Valid() || !l.inOwnDir(r) {
			continue
		}
		rf := recordFiles{rec: r}
		prefix := r.filePrefix()
		for _, f := range files {
			if strings.HasPrefix(f, prefix) {
				rf.names = append(rf.names, f)
			}
		}
		out = append(out, rf)
	}
	return out
}

func classifyTxnLog(dir, name string, files []string, temp map[string]bool) error {
	path := filepath.Join(dir, name)
	l, err := Read(path)
	if err != nil {
		return fmt.Errorf("list table dir %s: %w", dir, err)
	}
	old, added := l.filesOf(Remove, files), l.filesOf(Add, files)
	// A completed log applies whatever is on disk. An unfinished one whose
	// old files are all there is in progress and reads as aborted.
	if l.Completed() || allPresent(old) {
		markTemporary(l.Committed(), old, added, temp)
		return nil
	}
	// Some old files are gone, so Cassandra has completed the transaction
	// since our listing: the log is gone too, or reads completed now.
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil
	} else if err != nil {
		return fmt.Errorf("list table dir %s: stat txn log %s: %w", dir, name, err)
	}
	again, err := Read(path)
	if err != nil {
		return fmt.Errorf("list table dir %s: %w", dir, err)
	}
	if again.Completed() {
		markTemporary(again.Committed(), old, added, temp)
		return nil
	}
	err = fmt.Errorf("list table dir %s: txn log %s is not completed but SSTables it removes have files missing: %w", dir, name, ErrInProgress)
	if again.Corrupt != nil {
		err = fmt.Errorf("%w (log corrupt: %v)", err, again.Corrupt)
	}
	return err
}

// allPresent reports whether every REMOVE record still has all its files.
func allPresent(old []recordFiles) bool {
	for _, rf := range old {
		if rf.rec.NumFiles > len(rf.names) {
			return false
		}
	}
	return true
}

// markTemporary marks the losing side: old files once committed, new ones
// otherwise (aborted or in progress).
func markTemporary(committed bool, old, added []recordFiles, temp map[string]bool) {
	losing := added
	if committed {
		losing = old
	}
	for _, rf := range losing {
		for _, f := range rf.names {
			temp[f] = true
		}
	}
}

// LiveEntries lists dir as LogAwareFileLister does, files first and txn
// logs second, and returns its entries other than txn logs, the files the
// logs make temporary, and directories not named as SSTable components
// (secondary indexes, snapshots/, backups/). A directory named as a
// component stays, to be reported: it stands where a file should be.
func LiveEntries(dir string) ([]fs.DirEntry, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("list table dir: %w", err)
	}
	var files []fs.DirEntry
	var names []string
	for _, e := range entries {
		if IsName(e.Name()) || e.IsDir() && !isComponentName(e.Name()) {
			continue
		}
		files = append(files, e)
		names = append(names, e.Name())
	}
	temp, err := TemporaryFiles(dir, names)
	if err != nil {
		return nil, err
	}
	live := files[:0]
	for _, e := range files {
		if !temp[e.Name()] {
			live = append(live, e)
		}
	}
	return live, nil
}

func isComponentName(name string) bool {
	_, err := metadata.ParseDescriptor(name)
	return err == nil
}
