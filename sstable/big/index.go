package big

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/sstable-flight/sstable-flight/sstable/internal/base"
	"github.com/sstable-flight/sstable-flight/sstable/marshal"
)

const indexComponent = "Index.db"

// PromotedMode says how much of a promoted index to decode.
type PromotedMode uint8

const (
	// PromotedFull decodes the header and every IndexInfo block; it needs
	// IndexOptions.ClusteringTypes.
	PromotedFull PromotedMode = iota
	// PromotedHeader decodes the header length, the partition deletion
	// and the block count, and skips the blocks: no types needed.
	PromotedHeader
	// PromotedSkip skips the promoted index unread, for scans that only
	// need keys and Data.db positions.
	PromotedSkip
)

// IndexOptions are what decoding Index.db depends on beyond its bytes.
type IndexOptions struct {
	// UIntDeletionTime: DeletionTime is the oa+ serialization (a 0x80
	// byte for live, else int64 + uint32) rather than int32 + int64.
	UIntDeletionTime bool
	// ClusteringTypes are the table's clustering column types, in order
	// (from the Statistics.db serialization header); PromotedFull needs
	// them to find where each value ends.
	ClusteringTypes []*marshal.Type
	Promoted        PromotedMode
	// ReadSize is the first read's size (0: 64 KiB). Point lookups scan at
	// most one summary interval of entries and want a small first read.
	ReadSize int
	// Buf, when not nil, is read into while its capacity suffices (a
	// caller's pooled buffer; Buffer returns what the reader used).
	Buf []byte
}

// IndexEntry is one Index.db entry. Key and the clustering values alias
// the reader's buffer: they are valid until the next read into the same
// IndexEntry or IndexReader.
type IndexEntry struct {
	Key          []byte
	DataPosition int64 // Data.db offset of the partition
	PromotedSize int   // bytes of promoted index; 0 for none

	// Filled unless the promoted index is absent or skipped.
	HeaderLength      int64 // partition header bytes in Data.db
	PartitionDeletion DeletionTime
	BlockCount        int
	// Blocks are the IndexInfos, filled in PromotedFull mode only.
	Blocks []IndexInfo

	values [][]byte // pool the blocks' prefixes slice
}

// HasPromoted reports whether the entry has a promoted index.
func (e *IndexEntry) HasPromoted() bool { return e.PromotedSize > 0 }

// ReadIndexEntry reads the entry at d's position into e and returns d's
// error, if any. On error e is partly filled and must not be used.
func ReadIndexEntry(d *base.Decbuf, opts *IndexOptions, e *IndexEntry) error {
	e.Key = d.Bytes(int(d.U16()))
	pos := d.UVint()
	if pos > math.MaxInt64 {
		d.Fail("read index entry: data position %d", pos)
	}
	e.DataPosition = int64(pos)
	e.PromotedSize = d.UVint32()
	e.HeaderLength, e.PartitionDeletion, e.BlockCount = 0, LiveDeletion, 0
	e.Blocks, e.values = e.Blocks[:0], e.values[:0]
	if d.Err() != nil || e.PromotedSize == 0 {
		return d.Err()
	}
	at := d.Pos()
	b := d.Bytes(e.PromotedSize) // a short file fails here, as ErrShort
	if d.Err() != nil || opts.Promoted == PromotedSkip {
		return d.Err()
	}
	p := base.NewDecbuf(b, d.File, d.Component, at)
	readPromoted(&p, opts, e)
	if err := p.Err(); err != nil {
		// Re-raised without ErrShort in the chain: the promoted index was
		// all there, so running short inside it is damage, not a reason
		// for a streaming reader to read more.
		var ce *base.CorruptionError
		if errors.As(err, &ce) {
			err = &base.CorruptionError{File: ce.File, Component: ce.Component, Offset: ce.Offset,
				Err: fmt.Errorf("read promoted index of %d bytes at %d: %v", e.PromotedSize, at, ce.Err)}
		}
		d.SetErr(err)
	}
	return d.Err()
}

// readPromoted decodes a promoted index that is exactly p's bytes.
func readPromoted(p *base.Decbuf, opts *IndexOptions, e *IndexEntry) {
	hl := p.UVint()
	if hl > math.MaxInt64/2 {
		p.Fail("read promoted index: header length %d", hl)
	}
	e.HeaderLength = int64(hl)
	e.PartitionDeletion = readDeletionTime(p, opts.UIntDeletionTime)
	e.BlockCount = p.UVint32()
	if p.Err() != nil {
		return
	}
	// An IndexInfo takes at least 5 bytes (two kind bytes, offset, width,
	// flag); a larger count is damage and must not size an allocation.
	if e.BlockCount > p.Len()/5 {
		p.Fail("read promoted index: %d blocks in %d bytes", e.BlockCount, p.Len())
		return
	}
	if opts.Promoted != PromotedFull {
		return
	}
	if cap(e.Blocks) < e.BlockCount {
		e.Blocks = make([]IndexInfo, 0, e.BlockCount)
	}
	blocksAt := p.Pos()
	var prevEnd int64
	for i := 0; i < e.BlockCount && p.Err() == nil; i++ {
		var ii IndexInfo
		ii, e.values = readIndexInfo(p, opts.ClusteringTypes, opts.UIntDeletionTime, e.values, p.Pos()-blocksAt)
		if p.Err() == nil && i > 0 && ii.Offset < prevEnd {
			p.Fail("read index block %d: offset %d overlaps the previous block, which ends at %d", i, ii.Offset, prevEnd)
		}
		prevEnd = ii.Offset + ii.Width
		e.Blocks = append(e.Blocks, ii)
	}
	if p.Err() != nil {
		return
	}
	// Since 3.6 an int32 offset per block follows (each IndexInfo's start
	// relative to the first, for binary search on disk); 3.0.x wrote none.
	// The promoted size tells which.
	switch p.Len() {
	case 0:
		return
	case 4 * e.BlockCount:
	default:
		p.Fail("read promoted index: %d bytes after %d blocks, want %d block offsets or none", p.Len(), e.BlockCount, 4*e.BlockCount)
		return
	}
	// The offsets repeat what the blocks' sizes say; checking them
	// catches a flipped byte in either.
	for i := range e.Blocks {
		if got := p.I32(); int64(got) != e.Blocks[i].at && p.Err() == nil {
			p.Fail("read promoted index: block %d offset %d, but the block is at %d", i, got, e.Blocks[i].at)
		}
	}
}

// IndexReader reads Index.db entries in order from a position, through a
// buffer, so that a large Index.db is never read whole.
type IndexReader struct {
	// ctx bounds the waits of the reads: an IndexReader lives for one
	// lookup or scan of one caller.
	ctx  context.Context
	r    base.Readable
	opts IndexOptions
	size int64

	buf   []byte
	bufAt int64 // file offset of buf[0]
	off   int   // next unread byte in buf
	pos   int64 // file offset of the current entry
	entry IndexEntry
	prev  int64 // previous entry's data position; -1 before the first
	err   error
}

// indexBufSize is the first read's size; a variable so tests can shrink it
// to make entries straddle refills.
var indexBufSize = 64 << 10

// NewIndexReader reads r (an Index.db) from offset start, which must be
// the start of an entry: 0, or a Summary's IndexPosition. Its reads wait
// no longer than ctx (base.ReadAt).
func NewIndexReader(ctx context.Context, r base.Readable, start int64, opts IndexOptions) *IndexReader {
	it := &IndexReader{ctx: ctx, r: r, opts: opts, size: r.Size(), bufAt: start, pos: start, prev: -1, buf: opts.Buf[:0]}
	if start < 0 || start > it.size {
		it.err = base.Corruptf(r.Name(), indexComponent, start, "start index scan: position %d outside the %d-byte file", start, it.size)
	}
	return it
}

// Next reads the next entry. It returns false at the end of the file or
// on error; Err tells which.
func (it *IndexReader) Next() bool {
	if it.err != nil {
		return false
	}
	for {
		next := it.bufAt + int64(it.off)
		if next >= it.size {
			return false
		}
		if it.off == len(it.buf) {
			// Nothing buffered (the first call): read before decoding,
			// rather than fail a decode, whose error costs a formatted
			// message (6.5% of the server's CPU under point reads).
			if it.err = it.fill(); it.err != nil {
				return false
			}
			continue
		}
		d := base.NewDecbuf(it.buf[it.off:], it.r.Name(), indexComponent, next)
		err := ReadIndexEntry(&d, &it.opts, &it.entry)
		if err == nil {
			if it.entry.DataPosition <= it.prev {
				it.err = base.Corruptf(it.r.Name(), indexComponent, next, "read index entry: data position %d not after the previous entry's %d",
					it.entry.DataPosition, it.prev)
				return false
			}
			it.prev = it.entry.DataPosition
			it.pos = next
			it.off += int(d.Pos() - next)
			return true
		}
		if !errors.Is(err, base.ErrShort) || it.bufAt+int64(len(it.buf)) >= it.size {
			it.err = err
			return false
		}
		if it.err = it.fill(); it.err != nil {
			return false
		}
	}
}

// fill drops the consumed bytes and reads more, at least doubling what is
// buffered, so an entry of any size is read in O(log size) refills.
func (it *IndexReader) fill() error {
	kept := len(it.buf) - it.off
	first := indexBufSize
	if it.opts.ReadSize > 0 && it.opts.ReadSize < first {
		first = it.opts.ReadSize
	}
	want := max(first, 2*kept)
	left := it.size - (it.bufAt + int64(it.off))
	if int64(want) > left {
		want = int(left)
	}
	nb := it.buf
	if cap(nb) < want {
		nb = make([]byte, want)
	}
	nb = nb[:want]
	copy(nb, it.buf[it.off:])
	it.bufAt += int64(it.off)
	it.off = 0
	n, err := base.ReadAt(it.ctx, it.r, nb[kept:], it.bufAt+int64(kept))
	it.buf = nb[:kept+n]
	if err != nil && !(err == io.EOF && kept+n == want) {
		if err == io.EOF {
			return base.Corruptf(it.r.Name(), indexComponent, it.bufAt+int64(kept+n), "read index: file ends before its size %d", it.size)
		}
		return fmt.Errorf("read %s at %d: %w", it.r.Name(), it.bufAt+int64(kept), err)
	}
	return nil
}

// Buffer is the buffer the reader read into, for the caller to reuse once
// it is done with the reader and its entries.
func (it *IndexReader) Buffer() []byte { return it.buf[:0] }

// Entry is the entry Next read; it is overwritten by the next call.
func (it *IndexReader) Entry() *IndexEntry { return &it.entry }

// Pos is the Index.db offset of the entry Next read.
func (it *IndexReader) Pos() int64 { return it.pos }

// Err is the error that stopped Next, or nil at the end of the file.
func (it *IndexReader) Err() error { return it.err }
