package txnlog

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/sstable-flight/sstable-flight/internal/safefile"
	"github.com/sstable-flight/sstable-flight/internal/snippet"
	"github.com/sstable-flight/sstable-flight/sstable/metadata"
)

// ErrInProgress means a txn log is not completed although some of the
// files it obsoletes are gone: the listing raced with Cassandra finishing
// the transaction (or the directory is damaged). Listing again resolves a
// race.
var ErrInProgress = errors.New("sstable lifecycle transaction in progress")

// txnLogNameRE is LogFile.FILE_REGEX: <version>_txn_<operation>_<id>.log.
var txnLogNameRE = regexp.MustCompile(`^(.{2})_txn_(.*)_(.*)\.log$`)

// txnRecordRE is LogRecord.REGEX: TYPE:[path,updateTime,numFiles][checksum],
// case-insensitive.
var txnRecordRE = regexp.MustCompile(`(?i)^(add|remove|commit|abort):\[([^,]*),?([^,]*),?([^,]*)\]\[(\d*)\]$`)

// IsName reports whether a file name is a txn log's.
func IsName(name string) bool { return txnLogNameRE.MatchString(name) }

// Log is a parsed and verified txn log.
type Log struct {
	Path      string
	Version   string // the sstable version that named the log, e.g. nb
	Operation string // e.g. compaction, flush
	ID        string
	Records   []Record
	// Corrupt says why Cassandra's LogFile.verify would reject the log; nil
	// when it accepts it, which includes a torn last line. Its valid records
	// apply even so, as when Cassandra loads SSTables (OnTxnErr.IGNORE).
	Corrupt error
	own     string // the directory the log names for its own; "" if unknown
}

func (l *Log) lastIs(t RecordType) bool {
	n := len(l.Records)
	return n > 0 && l.Records[n-1].Type == t && l.Records[n-1].Valid()
}

// Committed reports whether the last record is a valid COMMIT.
func (l *Log) Committed() bool { return l.lastIs(Commit) }

// Aborted reports whether the last record is a valid ABORT.
func (l *Log) Aborted() bool { return l.lastIs(Abort) }

// Completed reports whether the transaction committed or aborted.
func (l *Log) Completed() bool { return l.Committed() || l.Aborted() }

// Read reads a txn log and verifies it against the files of its
// directory. A log deleted meanwhile reads as empty, as in Cassandra
// (FileUtils.readLines): its transaction is over.
func Read(path string) (*Log, error) {
	m := txnLogNameRE.FindStringSubmatch(filepath.Base(path))
	if m == nil {
		return nil, fmt.Errorf("read txn log %s: not named <version>_txn_<operation>_<id>.log", path)
	}
	data, err := readTxnLogFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("read txn log %s: %w", path, err)
	}
	l := &Log{Path: path, Version: m[1], Operation: m[2], ID: m[3]}
	structural := l.readRecords(splitLines(data))
	dir := filepath.Dir(path)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("read txn log %s: list its dir: %w", path, err)
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, e.Name())
	}
	l.own = l.ownDir(dir, names)
	l.Corrupt = errors.Join(structural, l.verify(dir, names, structural == nil))
	return l, nil
}

// readRecords is LogReplicaSet.readRecords for a single replica: it stops at
// a duplicate record (left out) or at a COMMIT or ABORT that is not the last
// line (kept, invalid).
func (l *Log) readRecords(lines []string) error {
	for i, line := range lines {
		r := ParseRecord(line)
		for _, o := range l.Records {
			if r.sameAs(o) {
				return fmt.Errorf("line %d duplicates an earlier record", i+1)
			}
		}
		if r.Type.final() && i != len(lines)-1 {
			// Cassandra keeps the record but marks it invalid: the
			// transaction is not completed.
			r.Err = fmt.Errorf("line %d: %s is not the last line", i+1, r.Type)
			l.Records = append(l.Records, r)
			return r.Err
		}
		l.Records = append(l.Records, r)
	}
	return nil
}

// verify is LogFile.verify: checksums (checked by ParseRecord), then a
// REMOVE record must still describe its files, lest a log left behind
// obsolete SSTables restored from a backup. Only the last record may be
// invalid (a torn write), and then only if every REMOVE record still has
// all its files; the log is then accepted but not completed. Unlike
// Cassandra, a log that failed readRecords is verified too, so a record
// with a bad checksum is never trusted.
func (l *Log) verify(dir string, names []string, tornLastCheck bool) error {
	disk := map[int]diskFiles{}
	for i := range l.Records {
		r := &l.Records[i]
		// Another directory's files are out of sight: Cassandra checks
		// them there.
		if r.Type != Remove || !r.Valid() || !l.inOwnDir(*r) {
			continue
		}
		d := onDisk(dir, names, r.filePrefix())
		disk[i] = d
		if d.newest > 0 && !sameSecond(d.newest, r.UpdateTime) && !sameSecond(d.newestAll, r.UpdateTime) {
			r.Err = fmt.Errorf("txn record %q: newest file mtime %d, want %d: files changed since logged", r.Raw, d.newest, r.UpdateTime)
		}
	}
	first := -1
	for i, r := range l.Records {
		if !r.Valid() {
			first = i
			break
		}
	}
	if first < 0 {
		return nil
	}
	if first != len(l.Records)-1 || !tornLastCheck {
		return fmt.Errorf("line %d invalid: %w", first+1, l.Records[first].Err)
	}
	var bad error
	for i := range l.Records[:first] {
		r := &l.Records[i]
		if d, ok := disk[i]; ok && r.Err == nil && d.files < r.NumFiles {
			r.Err = fmt.Errorf("txn record %s: %d files on disk, want %d", snippet.QuoteN(r.Raw, 64), d.files, r.NumFiles)
			bad = errors.Join(bad, fmt.Errorf("line %d invalid: %w", i+1, r.Err))
		}
	}
	if bad != nil {
		return errors.Join(bad, fmt.Errorf("line %d invalid: %w", first+1, l.Records[first].Err))
	}
	return nil
}

// ownDir tells which directory named in the log is the log's own. A
// transaction spanning data directories (JBOD) writes the same log into
// each, and Cassandra applies in each only the records of SSTables there
// (LogRecord.isInFolder). This server may see the directory at another
// path than Cassandra did, so failing an exact match it is the only
// directory named, or the only one whose SSTables have files here. ""
// means it cannot tell, and then every record applies.
func (l *Log) ownDir(dir string, names []string) string {
	dirs := map[string]bool{}
	for _, r := range l.Records {
		if r.Type.hasFile() && r.Valid() {
			dirs[r.dir()] = true
		}
	}
	if abs, err := filepath.Abs(dir); err == nil && dirs[abs] {
		return abs
	}
	if len(dirs) < 2 {
		return ""
	}
	own := ""
	for _, r := range l.Records {
		if !r.Type.hasFile() || !r.Valid() || r.dir() == own || !anyHasPrefix(names, r.filePrefix()) {
			continue
		}
		if own != "" {
			return "" // files of two directories' SSTables: cannot tell
		}
		own = r.dir()
	}
	return own
}

func (l *Log) inOwnDir(r Record) bool { return l.own == "" || r.dir() == l.own }

func anyHasPrefix(names []string, prefix string) bool {
	for _, n := range names {
		if strings.HasPrefix(n, prefix) {
			return true
		}
	}
	return false
}

// diskFiles is what LogRecord.withExistingFiles sees of a record's files.
type diskFiles struct {
	newest    int64 // newest mtime (ms), Statistics.db and *.tmp left out
	newestAll int64 // newest mtime (ms) of all of them
	files     int   // count, Statistics.db in, *.tmp out
}

// onDisk follows Cassandra 5.0, which leaves Statistics.db out of the update
// time (repair rewrites it) but still accepts a time that counts it (logs of
// older versions).
func onDisk(dir string, names []string, prefix string) diskFiles {
	var d diskFiles
	for _, name := range names {
		if !strings.HasPrefix(name, prefix) {
			continue
		}
		mt := mtimeMillis(filepath.Join(dir, name))
		if mt <= 0 {
			continue // gone since listed, as Java's File.lastModified() == 0
		}
		d.newestAll = max(d.newestAll, mt)
		if strings.HasSuffix(name, ".tmp") {
			continue
		}
		d.files++
		if desc, err := metadata.ParseDescriptor(name); err == nil && desc.Component == "Statistics.db" {
			continue
		}
		d.newest = max(d.newest, mt)
	}
	return d
}

func mtimeMillis(path string) int64 {
	info, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return info.ModTime().UnixMilli()
}

// sameSecond compares update times to the second, as Cassandra 5.0 does:
// Java 8 reported whole-second mtimes, so older logs hold those.
func sameSecond(a, b int64) bool { return a-a%1000 == b-b%1000 }

// splitLines splits as Java's BufferedReader.readLine: at \n, \r or \r\n.
func splitLines(b []byte) []string {
	var out []string
	for len(b) > 0 {
		i := bytes.IndexAny(b, "\r\n")
		if i < 0 {
			out = append(out, string(b))
			break
		}
		out = append(out, string(b[:i]))
		if b[i] == '\r' && i+1 < len(b) && b[i+1] == '\n' {
			i++
		}
		b = b[i+1:]
	}
	return out
}

// maxTxnLogSize bounds what is read of a txn log. A log holds a line of
// about 150 bytes per SSTable its transaction adds or removes: a
// compaction of ten thousand SSTables writes under 2 MB.
const maxTxnLogSize = 16 << 20

// readTxnLogFile reads a txn log, if it is a regular file (a FIFO named
// as a log would otherwise block the listing in open(2) for ever, and a
// link could lead out of the data directory: safefile.Open) of at most
// maxTxnLogSize bytes.
func readTxnLogFile(path string) ([]byte, error) {
	return safefile.ReadFile(path, maxTxnLogSize)
}
