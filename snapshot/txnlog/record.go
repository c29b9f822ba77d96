package txnlog

// One line of a txn log: its grammar and checksum (LogRecord).

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/sstable-flight/sstable-flight/internal/snippet"
)

// RecordType is the kind of a txn log line.
type RecordType uint8

const (
	Unknown RecordType = iota // a line that does not parse
	Add                       // a new SSTable, kept on commit
	Remove                    // an old SSTable, kept on abort
	Commit
	Abort
)

var txnTypeNames = [...]string{"UNKNOWN", "ADD", "REMOVE", "COMMIT", "ABORT"}

// String is the name Cassandra writes and checksums.
func (t RecordType) String() string {
	if int(t) < len(txnTypeNames) {
		return txnTypeNames[t]
	}
	return fmt.Sprintf("RecordType(%d)", t)
}

func (t RecordType) hasFile() bool { return t == Add || t == Remove }
func (t RecordType) final() bool   { return t == Commit || t == Abort }

// Record is one line of a txn log.
type Record struct {
	Type RecordType
	// Path is the SSTable's absolute base path as written: Cassandra 3.0.8
	// to 4.x write it without the trailing '-', 5.0 with it. Empty for
	// COMMIT and ABORT.
	Path       string
	UpdateTime int64 // REMOVE only: newest mtime (ms) of its files when logged
	NumFiles   int   // ADD and REMOVE only: its number of files when logged
	Checksum   int64 // as written
	Raw        string
	Err        error // why the record is invalid; nil when it is valid
}

// Valid reports whether the record parsed and passed verification.
func (r Record) Valid() bool { return r.Err == nil && r.Type != Unknown }

// filePrefix starts the names of the record's files: the path's base name
// ending in '-', as Cassandra matches it since CASSANDRA-13294, so that a
// generation never claims the files of a longer one (nb-1-big, nb-11-big).
// Matching ignores the directory: this server may see the volume at
// another mount point than Cassandra's.
func (r Record) filePrefix() string {
	base := r.Path[strings.LastIndexByte(r.Path, '/')+1:]
	if !strings.HasSuffix(base, "-") {
		base += "-"
	}
	return base
}

// dir is the directory part of the record's path.
func (r Record) dir() string {
	i := strings.LastIndexByte(r.Path, '/')
	if i < 0 {
		return ""
	}
	return filepath.Clean(r.Path[:i])
}

// sameAs is LogRecord.equals, which Cassandra uses to reject duplicates.
func (r Record) sameAs(o Record) bool {
	return r.Type == o.Type && r.Path == o.Path && r.NumFiles == o.NumFiles && r.UpdateTime == o.UpdateTime
}

// RecordChecksum is LogRecord.computeChecksum: CRC32 of the path as
// written, the type name, then the low and high halves of updateTime and
// numFiles as big-endian int32s (FBUtilities.updateChecksumInt). Cassandra
// masks the result with Long.MAX_VALUE, a no-op on a 32-bit CRC.
func RecordChecksum(t RecordType, path string, updateTime int64, numFiles int) uint32 {
	h := crc32.NewIEEE()
	h.Write([]byte(path))
	h.Write([]byte(t.String()))
	var b [12]byte
	binary.BigEndian.PutUint32(b[0:], uint32(updateTime))
	binary.BigEndian.PutUint32(b[4:], uint32(uint64(updateTime)>>32))
	binary.BigEndian.PutUint32(b[8:], uint32(numFiles))
	h.Write(b[:])
	return h.Sum32()
}

// ParseRecord parses one line and checks its checksum. Like Cassandra it
// keeps a path only for ADD and REMOVE, an update time only for REMOVE and a
// file count only for ADD and REMOVE, and checksums what it kept.
func ParseRecord(line string) Record {
	m := txnRecordRE.FindStringSubmatch(line)
	if m == nil {
		return Record{Raw: line, Err: fmt.Errorf("parse txn record %s: not TYPE:[path,time,files][checksum]", snippet.QuoteN(line, 64))}
	}
	upd, err1 := strconv.ParseInt(m[3], 10, 64)
	n, err2 := strconv.ParseInt(m[4], 10, 32)
	sum, err3 := strconv.ParseInt(m[5], 10, 64)
	if err := errors.Join(err1, err2, err3); err != nil {
		return Record{Raw: line, Err: fmt.Errorf("parse txn record %s: %w", snippet.QuoteN(line, 64), err)}
	}
	r := Record{Raw: line, Checksum: sum}
	for t := Add; t <= Abort; t++ {
		if strings.EqualFold(m[1], t.String()) {
			r.Type = t
		}
	}
	if r.Type.hasFile() {
		r.Path, r.NumFiles = m[2], int(n)
	}
	if r.Type == Remove {
		r.UpdateTime = upd
	}
	if want := RecordChecksum(r.Type, r.Path, r.UpdateTime, r.NumFiles); int64(want) != sum {
		r.Err = fmt.Errorf("txn record %s: checksum %d, want %d", snippet.QuoteN(line, 64), sum, want)
	}
	return r
}
