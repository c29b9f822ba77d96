package commitlog

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/sstable-flight/sstable-flight/sstable/compress"
)

// DefaultMaxSectionBytes bounds a sync section's uncompressed length when
// Options.MaxSectionBytes is 0: Cassandra's default commitlog_segment_size
// (32 MiB), which no section of a segment can exceed. A cluster with
// larger segments needs its own bound.
const DefaultMaxSectionBytes = 32 << 20

// Options configure a Reader.
type Options struct {
	// Live says the segment may still be written: one of the two newest
	// of its directory on a running node (ListDir), or the newest of a
	// node that died. At its end, a torn tail — a header or marker not
	// written yet, a section cut short, an entry failing its CRC in the
	// last section — ends the reading for now (TornTail) instead of
	// failing it. In a segment that is not live the same bytes are
	// corruption.
	Live bool
	// MaxSectionBytes bounds a section's uncompressed length, and so
	// the reader's memory (about twice it for a compressed segment); 0
	// means DefaultMaxSectionBytes. A longer section is an error.
	MaxSectionBytes int
	// From resumes a reading where an earlier one stopped (its
	// Checkpoint); the zero value reads from the first section.
	From Checkpoint
}

// Position is a CommitLogPosition: the segment id and the position of the
// end of an entry in the segment's logical space — the file offset in an
// uncompressed segment, the offset in the uncompressed image in a
// compressed one (CommitLogSegmentReader's CompressedSegmenter). It is
// what Cassandra's replay compares with an SSTable's commitLogIntervals.
type Position struct {
	SegmentID int64
	Offset    int64
}

// Compare orders positions as Cassandra's CommitLogPosition.compareTo.
func (p Position) Compare(q Position) int {
	if p.SegmentID != q.SegmentID {
		return cmp.Compare(p.SegmentID, q.SegmentID)
	}
	return cmp.Compare(p.Offset, q.Offset)
}

// Checkpoint is where a reading of a segment stopped, to resume once the
// segment has grown (Options.From). Reading resumes at a sync marker —
// the one that ended the chain, or the one of the section that was being
// read — and hands out no entry that ends at or before After, so an entry
// is handed out once whatever section it was read in.
type Checkpoint struct {
	Marker  int64 // file offset of the sync marker to read first; 0 means the first
	Logical int64 // that marker's position in the logical space
	After   int64 // logical end of the last entry handed out
}

// Entry is one mutation of the log.
type Entry struct {
	// Mutation is the serialized Mutation (at the segment's messaging
	// version), CRC-checked. NB: it aliases the Reader's buffer and is
	// valid only until the next call to Next: copy what you keep.
	Mutation []byte
	// Position is the entry's CommitLogPosition (its end).
	Position Position
	// Start is the logical position of the entry's first byte.
	Start int64
}

// Reader iterates the entries of one segment, in order:
//
//	r, err := commitlog.Open(path, commitlog.Options{Live: newest})
//	for r.Next() { use(r.Entry()) }
//	err = r.Err(); cp := r.Checkpoint(); r.Close()
//
// It reads a whole section at a time through the io.ReaderAt, never more
// than MaxSectionBytes of it. Not safe for concurrent use.
type Reader struct {
	ra   io.ReaderAt
	size int64
	file string
	opt  Options
	hdr  Header
	dec  *compress.Decoder

	marker, logical int64 // the current section's marker: file offset, logical position
	next, nextLog   int64 // the following marker's
	inSection       bool
	sec             []byte // the current section's entries, uncompressed
	pos             int    // next entry in sec
	raw             []byte // a compressed section as read
	markerBuf       [compressedMarkerSize]byte
	partial         bool // the section runs past the end of the file (live only)

	after  int64
	entry  Entry
	done   bool
	err    error
	torn   *CorruptionError
	closer io.Closer
}

// Open opens a segment file and reads its header. Close closes the file.
func Open(path string, opt Options) (*Reader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open commit log segment: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("stat commit log segment: %w", err)
	}
	r, err := NewReader(f, st.Size(), path, opt)
	if err != nil {
		f.Close()
		return nil, err
	}
	r.closer = f
	return r, nil
}

// NewReader reads the header of the segment of size bytes in ra; file
// names it in errors and, when it is a segment file name, its id must be
// the header's. A live segment whose header is not whole yet gives a
// Reader with no entries and a TornTail. An encrypted segment is refused
// (ErrEncrypted), as are versions other than 6, 7 and 8.
func NewReader(ra io.ReaderAt, size int64, file string, opt Options) (*Reader, error) {
	if opt.MaxSectionBytes <= 0 {
		opt.MaxSectionBytes = DefaultMaxSectionBytes
	}
	r := &Reader{ra: ra, size: size, file: file, opt: opt, after: opt.From.After}
	h, err := r.readHeader()
	if err != nil {
		var ce *CorruptionError
		if opt.Live && errors.As(err, &ce) && ce.tail && !r.headerWasWhole() {
			r.torn, r.done = ce, true
			r.marker, r.logical = opt.From.Marker, opt.From.Logical
			return r, nil
		}
		return nil, err
	}
	if d, err := ParseFileName(file); err == nil && d.ID != h.ID {
		return nil, corruptf(file, compHeader, 4, "segment id %d, the file name says %d", h.ID, d.ID)
	}
	r.hdr = h
	if h.Compressed() {
		r.dec, _ = newDecompressor(h.Compression, opt.MaxSectionBytes)
	}
	r.marker, r.logical = h.Size, h.Size
	if f := opt.From; f.Marker != 0 {
		if f.Marker < h.Size || f.Logical < h.Size || (!h.Compressed() && f.Logical != f.Marker) || f.After < 0 {
			return nil, fmt.Errorf("resume %s at %+v: not a checkpoint of this segment (its header ends at %d)", file, f, h.Size)
		}
		r.marker, r.logical = f.Marker, f.Logical
	}
	return r, nil
}

// headerWasWhole reports whether a header that fails to parse was
// written whole all the same: the first sync marker after it carries a
// valid CRC for the id of the file's name, so the writer was past the
// header long ago and its bytes are damaged, not torn.
func (r *Reader) headerWasWhole() bool {
	d, err := ParseFileName(r.file)
	var b [headerFixed]byte
	if err != nil || r.readAt(b[:], 0) != nil {
		return false
	}
	off := int64(headerFixed + int(binary.BigEndian.Uint16(b[12:])) + 4)
	m := r.markerBuf[:markerSize]
	if off > r.size-markerSize || r.readAt(m, off) != nil {
		return false
	}
	return decodeMarker(m, d.ID, off).valid()
}

// readHeader reads the header: a first read takes an unparameterized one,
// a second the parameters beyond it.
func (r *Reader) readHeader() (Header, error) {
	b := make([]byte, min(max(r.size, 0), 256))
	if err := r.readAt(b, 0); err != nil {
		return Header{}, err
	}
	if len(b) >= headerFixed {
		if need := int64(headerFixed + int(binary.BigEndian.Uint16(b[12:])) + 4); need > int64(len(b)) && need <= r.size {
			b = make([]byte, need)
			if err := r.readAt(b, 0); err != nil {
				return Header{}, err
			}
		}
	}
	return parseHeader(b, r.file)
}

// Header is the segment's descriptor header (zero if a live segment's
// header was not whole).
func (r *Reader) Header() Header { return r.hdr }

// MessagingVersion is the version the entries' mutations are serialized
// with (Header.MessagingVersion).
func (r *Reader) MessagingVersion() int { return r.hdr.MessagingVersion() }

// Entry is the entry Next moved to.
func (r *Reader) Entry() Entry { return r.entry }

// Err is the error that ended the reading, nil at a clean end or a torn
// tail. Corruption matches ErrCorruption and is a *CorruptionError.
func (r *Reader) Err() error { return r.err }

// TornTail says what ended the reading of a live segment before its
// chain of sections did — a header, marker, section or entry not (yet)
// whole — or nil. It is not an error: the writer may finish it. If the
// segment stops being the newest and still shows it, reading it again
// without Live reports it as corruption.
func (r *Reader) TornTail() *CorruptionError { return r.torn }

// Checkpoint is where to resume once the segment has grown: valid after
// any call to Next, and the point to read again from after a torn tail.
func (r *Reader) Checkpoint() Checkpoint {
	return Checkpoint{Marker: r.marker, Logical: r.logical, After: r.after}
}

// Close releases the decompressor and closes the file Open opened.
func (r *Reader) Close() error {
	if r.dec != nil {
		r.dec.Close()
	}
	r.done = true
	if r.closer != nil {
		c := r.closer
		r.closer = nil
		return c.Close()
	}
	return nil
}

// Next moves to the next entry; false at the end, at a torn tail or on an
// error (Err).
func (r *Reader) Next() bool {
	for !r.done {
		if !r.inSection {
			r.loadSection()
			continue
		}
		if r.nextEntry() {
			return true
		}
	}
	return false
}

// nextEntry decodes the entry at r.pos of the current section; false at
// the section's end (moving to the next marker) or when reading ends.
func (r *Reader) nextEntry() bool {
	for r.pos < len(r.sec) {
		start := r.sec[r.pos:]
		startLog := r.secStart() + int64(r.pos)
		mutation, n, fault, size := decodeEntry(start)
		switch fault {
		case entryOK:
			r.pos += n
			end := startLog + int64(n)
			if end <= r.after {
				continue // handed out before this resumption
			}
			r.after = end
			r.entry = Entry{Mutation: mutation, Position: Position{SegmentID: r.hdr.ID, Offset: end}, Start: startLog}
			return true
		case entryEnd:
			// Cassandra stops the segment at a zero size. A section has
			// no padding, so that is the zeroed space after the last
			// section; before another valid marker it is corruption.
			if r.lastSection() {
				r.done = true
				return false
			}
			r.fail(r.entryErr(compEntrySize, startLog, false, "size 0 (the end of the data) before the section's end at %d, and more sections follow", r.nextLog))
		case entryShort:
			r.fail(r.entryErr(compEntrySize, startLog, true, "%d bytes left in the section, too few for an entry", len(start)))
		case entrySizeCRC:
			r.fail(r.entryErr(compEntrySize, startLog, true, "size %d fails its CRC", size))
		case entrySizeBad:
			r.fail(r.entryErr(compEntrySize, startLog, true, "size %d: no mutation is shorter than %d bytes", size, minEntrySize))
		case entryPastEnd:
			r.fail(r.entryErr(compEntrySize, startLog, true, "an entry of %d bytes runs past the section's end at %d", size+entryOverhead, r.nextLog))
		case entryDataCRC:
			r.fail(r.entryErr(compEntryData, startLog, true, "the %d-byte mutation fails its CRC", size))
		}
		return false
	}
	if r.partial {
		r.fail(tornf(r.file, compMarker, r.marker, "the section ends at %d, past the end of the file at %d", r.next, r.size))
		return false
	}
	r.inSection = false
	r.marker, r.logical = r.next, r.nextLog
	return false
}

// secStart is the logical position of the current section's first entry.
func (r *Reader) secStart() int64 { return r.logical + markerSize }

// entryErr builds the error of an entry at logical position pos.
func (r *Reader) entryErr(component string, pos int64, tail bool, format string, args ...any) *CorruptionError {
	e := corruptf(r.file, component, pos, format, args...)
	if r.hdr.Compressed() {
		e.Err = fmt.Errorf("%w (an uncompressed position: the section's marker is at file offset %d)", e.Err, r.marker)
	}
	e.tail = tail
	return e
}

// fail ends the reading with e: a torn tail if e may be one, the segment
// is live and e is at its end; corruption otherwise. A failure inside a
// section is at the end only when no valid marker follows the section
// (lastSection): a later sync proves the section was whole.
func (r *Reader) fail(e *CorruptionError) {
	r.done = true
	if e.tail && r.opt.Live && (!r.inSection || r.lastSection()) {
		r.torn = e
		return
	}
	r.err = e
}

// lastSection reports whether no CRC-valid sync marker follows the
// current section.
func (r *Reader) lastSection() bool {
	if r.next > r.size-markerSize {
		return true
	}
	b := r.markerBuf[:markerSize]
	if err := r.readAt(b, r.next); err != nil {
		return true
	}
	return !decodeMarker(b, r.hdr.ID, r.next).valid()
}

// loadSection reads the marker at r.marker and its section.
func (r *Reader) loadSection() {
	off := r.marker
	if off > r.size-markerSize {
		r.done = true // no room for another marker: the end
		return
	}
	mlen := int64(markerSize)
	if r.hdr.Compressed() {
		mlen = min(compressedMarkerSize, r.size-off)
	}
	b := r.markerBuf[:mlen]
	if err := r.readAt(b, off); err != nil {
		r.done, r.err = true, err
		return
	}
	m := decodeMarker(b, r.hdr.ID, off)
	switch {
	case m.zero():
		r.done = true // the zeroed slot after the newest section
		return
	case !m.valid() && m.crc == 0:
		// The writer stores next, then the CRC: caught between.
		r.fail(tornf(r.file, compMarker, off, "next %d written, its CRC not yet", m.next))
		return
	case !m.valid():
		// Cassandra never tolerates a marker with a wrong non-zero CRC.
		r.fail(corruptf(r.file, compMarker, off, "CRC %#08x, computed %#08x (next %d)", m.crc, m.want, m.next))
		return
	case m.next < off+markerSize || (r.hdr.Compressed() && m.next < off+compressedMarkerSize):
		r.fail(tornf(r.file, compMarker, off, "points to %d, before the end of its own marker", m.next))
		return
	case m.next > r.size && (r.hdr.Compressed() || !r.opt.Live):
		r.fail(tornf(r.file, compMarker, off, "points to %d, past the end of the file at %d", m.next, r.size))
		return
	}
	max := int64(r.opt.MaxSectionBytes)
	if !r.hdr.Compressed() {
		// NB: a live uncompressed section whose end is past the end of
		// the file (a direct-I/O segment caught growing, a file copied
		// or cut while written) is read as far as the file goes: its
		// whole entries carry their CRCs, and the first one cut short
		// is the torn tail.
		end := m.next
		r.partial = end > r.size
		if r.partial {
			end = r.size
		}
		n := end - off - markerSize
		if n > max {
			r.fail(corruptf(r.file, compMarker, off, "a section of %d bytes, more than the limit of %d (Options.MaxSectionBytes)", n, max))
			return
		}
		r.sec = grow(r.sec, int(n))
		if err := r.readAt(r.sec, off+markerSize); err != nil {
			r.done, r.err = true, err
			return
		}
		r.enter(m.next, m.next)
		return
	}
	if m.ulen < 0 || m.ulen > max {
		r.fail(corruptf(r.file, compSection, off+markerSize, "an uncompressed length of %d bytes, outside 0..%d (Options.MaxSectionBytes)", m.ulen, max))
		return
	}
	clen := m.next - off - compressedMarkerSize
	if clen > 2*max+1024 {
		r.fail(corruptf(r.file, compSection, off, "%d compressed bytes, more than the limit allows", clen))
		return
	}
	r.raw = grow(r.raw, int(clen))
	if err := r.readAt(r.raw, off+compressedMarkerSize); err != nil {
		r.done, r.err = true, err
		return
	}
	r.sec = grow(r.sec, int(m.ulen))
	r.enter(m.next, r.logical+markerSize+m.ulen)
	if err := r.dec.Decode(r.sec, r.raw); err != nil {
		r.fail(tornf(r.file, compSection, off, "%d bytes declared %d uncompressed with %s: %v", clen, m.ulen, r.hdr.Compression, err))
	}
}

// enter makes the section just read current.
func (r *Reader) enter(next, nextLog int64) {
	r.next, r.nextLog = next, nextLog
	r.inSection, r.pos = true, 0
}

func (r *Reader) readAt(b []byte, off int64) error {
	// io.ReaderAt may return io.EOF with every byte read.
	if n, err := r.ra.ReadAt(b, off); err != nil && !(n == len(b) && err == io.EOF) {
		return fmt.Errorf("read commit log segment %s at %d: %w", r.file, off, err)
	}
	return nil
}

// grow returns b resized to n, reallocating only to grow.
func grow(b []byte, n int) []byte {
	if cap(b) < n {
		return make([]byte, n)
	}
	return b[:n]
}
