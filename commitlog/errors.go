package commitlog

import (
	"errors"
	"fmt"

	"github.com/sstable-flight/sstable-flight/internal/snippet"
)

// ErrCorruption is the kind of every error caused by segment bytes that do
// not decode or whose CRC does not match: test with
// errors.Is(err, commitlog.ErrCorruption). A torn tail of a live segment
// is not one (Reader.TornTail).
var ErrCorruption = errors.New("commit log corruption")

// ErrEncrypted refuses a segment written with transparent data
// encryption: its keys are in Cassandra's keystore, out of our reach.
var ErrEncrypted = errors.New("commit log segment is encrypted")

// ErrUnsupportedVersion refuses a segment whose descriptor version is not
// 6, 7 or 8 (Cassandra 3.0 to 5.0).
var ErrUnsupportedVersion = errors.New("unsupported commit log version")

// ErrUnknownCompressor refuses a segment whose header names a compressor
// other than LZ4, Snappy, Deflate and Zstd.
var ErrUnknownCompressor = errors.New("unknown commit log compressor")

// CorruptionError names where bad bytes were found: the segment file, the
// component (header, sync marker, compressed section, entry size, entry
// data, ...) and the byte offset in the file. In a compressed segment an
// entry has no file offset of its own: its Offset is the entry's position
// in the uncompressed space (the space of CommitLogPositions), and the
// message says so and names the section's file offset.
type CorruptionError struct {
	File      string // the segment's path as given to NewReader
	Component string
	Offset    int64
	Err       error // what was wrong
	// tail is set on what a torn tail looks like (a header not written
	// yet, a marker half written or pointing past the end, an entry cut
	// short or failing its CRC): the reader tolerates it at the end of a
	// live segment, and reports it as corruption anywhere else.
	tail bool
}

func (e *CorruptionError) Error() string {
	return fmt.Sprintf("commit log corruption in %s (%s) at offset %d: %v", e.File, e.Component, e.Offset, e.Err)
}

// Is makes errors.Is(err, ErrCorruption) true for every CorruptionError.
func (e *CorruptionError) Is(target error) bool { return target == ErrCorruption }

func (e *CorruptionError) Unwrap() error { return e.Err }

// corruptf builds a CorruptionError. NB: segment bytes in a message (a
// []byte argument) show as a short hex snippet: they may be anything.
func corruptf(file, component string, offset int64, format string, args ...any) *CorruptionError {
	for i, a := range args {
		if b, ok := a.([]byte); ok {
			args[i] = snippet.Hex(b)
		}
	}
	return &CorruptionError{File: file, Component: component, Offset: offset, Err: fmt.Errorf(format, args...)}
}

// tornf is corruptf for what a live segment's torn tail may show.
func tornf(file, component string, offset int64, format string, args ...any) *CorruptionError {
	e := corruptf(file, component, offset, format, args...)
	e.tail = true
	return e
}

// Components named by CorruptionError.
const (
	compHeader     = "header"
	compMarker     = "sync marker"
	compSection    = "compressed section"
	compEntrySize  = "entry size"
	compEntryData  = "entry data"
	compSectionEnd = "section end"
)
