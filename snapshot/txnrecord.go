package snapshot

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

// TxnRecordType is the kind of a txn log line.
type TxnRecordType uint8

const (
	TxnUnknown TxnRecordType = iota // a line that does not parse
	TxnAdd                          // a new SSTable, kept on commit
	TxnRemove                       // an old SSTable, kept on abort
	TxnCommit
	TxnAbort
)

var txnTypeNames = [...]string{"UNKNOWN", "ADD", "REMOVE", "COMMIT", "ABORT"}

// String is the name Cassandra writes and checksums.
func (t TxnRecordType) String() string {
	if int(t) < len(txnTypeNames) {
		return txnTypeNames[t]
	}
	return fmt.Sprintf("TxnRecordType(%d)", t)
}

func (t TxnRecordType) hasFile() bool { return t == TxnAdd || t == TxnRemove }
func (t TxnRecordType) final() bool   { return t == TxnCommit || t == TxnAbort }

// TxnRecord is one line of a txn log.
type TxnRecord struct {
	Type TxnRecordType
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
func (r TxnRecord) Valid() bool { return r.Err == nil && r.Type != TxnUnknown }

// filePrefix starts the names of the record's files: the path's base name
// ending in '-', as Cassandra matches it since CASSANDRA-13294, so that a
// generation never claims the files of a longer one (nb-1-big, nb-11-big).
// Matching ignores the directory: this server may see the volume at
// another mount point than Cassandra's.
func (r TxnRecord) filePrefix() string {
	base := r.Path[strings.LastIndexByte(r.Path, '/')+1:]
	if !strings.HasSuffix(base, "-") {
		base += "-"
	}
	return base
}

// dir is the directory part of the record's path.
func (r TxnRecord) dir() string {
	i := strings.LastIndexByte(r.Path, '/')
	if i < 0 {
		return ""
	}
	return filepath.Clean(r.Path[:i])
}

// sameAs is LogRecord.equals, which Cassandra uses to reject duplicates.
func (r TxnRecord) sameAs(o TxnRecord) bool {
	return r.Type == o.Type && r.Path == o.Path && r.NumFiles == o.NumFiles && r.UpdateTime == o.UpdateTime
}

// TxnRecordChecksum is LogRecord.computeChecksum: CRC32 of the path as
// written, the type name, then the low and high halves of updateTime and
// numFiles as big-endian int32s (FBUtilities.updateChecksumInt). Cassandra
// masks the result with Long.MAX_VALUE, a no-op on a 32-bit CRC.
func TxnRecordChecksum(t TxnRecordType, path string, updateTime int64, numFiles int) uint32 {
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

// ParseTxnRecord parses one line and checks its checksum. Like Cassandra it
// keeps a path only for ADD and REMOVE, an update time only for REMOVE and a
// file count only for ADD and REMOVE, and checksums what it kept.
func ParseTxnRecord(line string) TxnRecord {
	m := txnRecordRE.FindStringSubmatch(line)
	if m == nil {
		return TxnRecord{Raw: line, Err: fmt.Errorf("parse txn record %s: not TYPE:[path,time,files][checksum]", snippet.QuoteN(line, 64))}
	}
	upd, err1 := strconv.ParseInt(m[3], 10, 64)
	n, err2 := strconv.ParseInt(m[4], 10, 32)
	sum, err3 := strconv.ParseInt(m[5], 10, 64)
	if err := errors.Join(err1, err2, err3); err != nil {
		return TxnRecord{Raw: line, Err: fmt.Errorf("parse txn record %s: %w", snippet.QuoteN(line, 64), err)}
	}
	r := TxnRecord{Raw: line, Checksum: sum}
	for t := TxnAdd; t <= TxnAbort; t++ {
		if strings.EqualFold(m[1], t.String()) {
			r.Type = t
		}
	}
	if r.Type.hasFile() {
		r.Path, r.NumFiles = m[2], int(n)
	}
	if r.Type == TxnRemove {
		r.UpdateTime = upd
	}
	if want := TxnRecordChecksum(r.Type, r.Path, r.UpdateTime, r.NumFiles); int64(want) != sum {
		r.Err = fmt.Errorf("txn record %s: checksum %d, want %d", snippet.QuoteN(line, 64), sum, want)
	}
	return r
}
