package sstable

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/sstable-flight/sstable-flight/internal/invariants"
	"github.com/sstable-flight/sstable-flight/sstable/internal/base"
)

// dataSource is the uncompressed Data.db: a compressed reader, a
// CRC-checked plain reader, or the bare file.
type dataSource interface {
	io.ReaderAt
	// ReadAtContext is ReadAt for a caller that waits no longer than ctx.
	ReadAtContext(ctx context.Context, p []byte, off int64) (int, error)
	DataLength() int64
}

// stream reads Data.db forward through a buffer. Each structure (a
// partition header, a row) is decoded from a contiguous slice; when the
// buffer holds too little the decode fails short, the buffer is refilled
// (and grown if one structure is larger than it) and the decode retried.
// Refills are rare, so decoding stays a plain walk over a byte slice.
type stream struct {
	// ctx is the context of the read the stream serves (its scanner's):
	// every refill waits for Data.db no longer than it.
	ctx  context.Context
	src  dataSource
	file string
	buf  []byte
	off  int64 // Data.db offset of buf[0]
	r, w int   // buf[r:w] is unread
	eof  bool
	d    base.Decbuf

	// hold is &buf[0] of the buffer the current partition's key was
	// decoded from. The key must outlive refills until the next partition
	// (callers keep it without copying), so a refill that would overwrite
	// that buffer fills spare instead and the two swap. (Invariants
	// builds refill into a new buffer instead whenever a refill would
	// overwrite, to poison the old one: refillPoisoned.)
	hold *byte
	// guard is what invariants builds keep to poison refills
	// (poison.go); empty in others.
	guard invariants.Kept[streamGuard]
	spare []byte

	// cached: a point read's stream, whose chunks go through the data
	// source's chunk cache (ReadAtCached) when it has one.
	cached bool
}

// cachedSource is a data source with a chunk cache for point reads.
type cachedSource interface {
	ReadAtCached(ctx context.Context, p []byte, off int64) (int, error)
}

const streamChunk = 64 << 10

func (s *stream) reset(src dataSource, file string, at int64) {
	s.resetSized(src, file, at, streamChunk)
	s.cached = false
}

// resetPoint is resetSized for a point read's stream, which reads
// through the chunk cache.
func (s *stream) resetPoint(src dataSource, file string, at int64, size int) {
	s.resetSized(src, file, at, size)
	s.cached = true
}

// resetSized starts reading at a Data.db offset with a first buffer of
// the given size: a point read wants a few KiB, not a scan's 64 KiB (each
// buffered byte may cost decompressing another chunk).
func (s *stream) resetSized(src dataSource, file string, at int64, size int) {
	s.src, s.file = src, file
	if len(s.buf) < size {
		s.buf = make([]byte, size)
	} else if cap(s.buf) > size {
		s.buf = s.buf[:size]
	}
	s.off, s.r, s.w, s.eof = at, 0, 0, false
	s.d = base.NewDecbuf(nil, file, "Data.db", at)
	s.d.Streaming = true
}

// pos is the Data.db offset of the next unread byte.
func (s *stream) pos() int64 { return s.off + int64(s.r) }

// atEnd reports whether every byte of Data.db has been consumed.
func (s *stream) atEnd() bool { return s.pos() >= s.src.DataLength() }

func (s *stream) fill() error {
	if s.eof {
		return nil
	}
	switch {
	case invariants.Enabled && (s.r > 0 || s.w == 0):
		s.refillPoisoned()
	case s.hold == &s.buf[0] && (s.r > 0 || s.w == 0):
		// Moving the unread bytes to the front, or reading after a seek,
		// would overwrite the partition key.
		if cap(s.spare) < len(s.buf) {
			s.spare = make([]byte, len(s.buf))
		}
		next := s.spare[:len(s.buf)]
		n := copy(next, s.buf[s.r:s.w])
		s.buf, s.spare = next, s.buf
		s.off += int64(s.r)
		s.r, s.w = 0, n
	case s.r > 0:
		n := copy(s.buf, s.buf[s.r:s.w])
		s.off += int64(s.r)
		s.r, s.w = 0, n
	}
	if s.w == len(s.buf) {
		s.buf = append(s.buf, make([]byte, len(s.buf))...)
	}
	want := int64(len(s.buf) - s.w)
	if left := s.src.DataLength() - (s.off + int64(s.w)); left < want {
		want = left
	}
	if want <= 0 {
		s.eof = true
		return nil
	}
	var (
		n   int
		err error
		p   = s.buf[s.w : s.w+int(want)]
	)
	if c, ok := s.src.(cachedSource); ok && s.cached {
		n, err = c.ReadAtCached(s.ctx, p, s.off+int64(s.w))
	} else {
		n, err = s.src.ReadAtContext(s.ctx, p, s.off+int64(s.w))
	}
	s.w += n
	if err != nil && !(errors.Is(err, io.EOF) && int64(n) == want) {
		return fmt.Errorf("read Data.db at %d: %w", s.off+int64(s.w), err)
	}
	if s.off+int64(s.w) >= s.src.DataLength() {
		s.eof = true
	}
	return nil
}

// window returns a decoder over the buffered bytes. After decoding one
// structure from it, call finish: the stream then either marks the bytes
// read, or refills (the decode ran short) and asks for a retry. The
// decoder lives in the stream, so a decode allocates nothing.
func (s *stream) window() *base.Decbuf {
	s.d.Reset(s.buf[s.r:s.w], s.pos())
	return &s.d
}

// errRetry asks the caller to decode the same structure again.
var errRetry = errors.New("retry decode after refill")

func (s *stream) finish(d *base.Decbuf) error {
	err := d.Err()
	if err == nil {
		s.r += int(d.Pos() - d.Base)
		return nil
	}
	if err != base.ErrShort {
		return err
	}
	if s.eof {
		return base.Corruptf(s.file, "Data.db", s.pos(), "%w: truncated structure at the end of the data (%d bytes left)", base.ErrShort, s.w-s.r)
	}
	if ferr := s.fill(); ferr != nil {
		return ferr
	}
	return errRetry
}
