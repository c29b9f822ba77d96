package bti

import (
	"context"
	"math"

	"github.com/sstable-flight/sstable-flight/sstable/internal/base"
)

// RowIndex is an opened Rows.db. Like PartitionIndex it is safe for
// concurrent use.
type RowIndex struct {
	g *region
}

// OpenRowIndex prepares to read Rows.db; it reads nothing yet.
func OpenRowIndex(r base.Readable) *RowIndex {
	return &RowIndex{g: newRegion(r, rowsComponent, r.Size())}
}

// DeletionTime is a partition or range deletion as the "da" format
// stores it: a lone 0x80 byte when live, else a big-endian i64
// markedForDeleteAt (µs) and u32 localDeletionTime (s since the epoch).
type DeletionTime struct {
	Live              bool
	MarkedForDeleteAt int64
	LocalDeletionTime uint32
}

// RowIndexEntry is a partition's entry in Rows.db.
type RowIndexEntry struct {
	Pos        int64  // where the entry starts (the partition index's payload)
	Key        []byte // the serialized partition key
	DataPos    int64  // partition start in the uncompressed Data.db
	Root       int64  // the row trie's root node in Rows.db
	BlockCount int    // index blocks the trie maps
	Deletion   DeletionTime

	ri *RowIndex
}

// IndexBlock is one block of rows in Data.db as the row trie lists it.
type IndexBlock struct {
	// Separator is the raw byte-comparable clustering prefix the trie maps
	// to this block: above the previous block's last clustering and at or
	// below this block's first. The first block's is usually empty.
	Separator []byte
	// Offset is the block's start relative to the partition start.
	Offset int64
	// OpenDeletion is the range deletion open at the block's start, if any.
	OpenDeletion *DeletionTime
}

// Entry reads the entry at pos (a partition index payload with InRows),
// waiting for the file no longer than ctx.
func (ri *RowIndex) Entry(ctx context.Context, pos int64) (*RowIndexEntry, error) {
	g := ri.g
	if pos < 0 || pos >= g.limit {
		return nil, g.corrupt(pos, "read row index entry: position %d outside the %d-byte file", pos, g.limit)
	}
	// An entry is at most a 2+64 KiB key, three vints and a deletion time.
	b, err := g.read(ctx, pos, int(min(g.limit-pos, 2+math.MaxUint16+3*9+12)), "row index entry")
	if err != nil {
		return nil, err
	}
	e := &RowIndexEntry{Pos: pos, ri: ri}
	d := base.NewDecbuf(b, g.r.Name(), rowsComponent, pos)
	e.Key = d.Bytes(int(d.U16()))
	basePos := d.Pos()
	dataPos := d.UVint()
	if d.Err() == nil && dataPos > math.MaxInt64 {
		d.Fail("read row index entry: partition position %d out of range", dataPos)
	}
	e.DataPos = int64(dataPos)
	at := d.Pos()
	rel := d.Vint()
	// The row trie is written just before the entry: its root lies
	// between the file start and the key.
	if d.Err() == nil && (rel >= 0 || rel < -basePos) {
		return nil, g.corrupt(at, "read row index entry: root %+d from %d is not before the entry at %d", rel, basePos, pos)
	}
	e.Root = basePos + rel
	at = d.Pos()
	e.BlockCount = d.UVint32()
	if d.Err() == nil && (e.BlockCount == 0 || int64(e.BlockCount) > pos) {
		// Each block needs at least one payload byte in the trie.
		return nil, g.corrupt(at, "read row index entry: %d blocks for a %d-byte trie", e.BlockCount, pos)
	}
	e.Deletion = readDeletion(&d)
	if err := d.Err(); err != nil {
		return nil, err
	}
	return e, nil
}

// readDeletion decodes a "da" DeletionTime.
func readDeletion(d *base.Decbuf) DeletionTime {
	if d.Len() > 0 && d.B[len(d.B)-d.Len()]&0x80 != 0 {
		if f := d.Byte(); f != 0x80 {
			d.Fail("read deletion time: flags %#x, want 0x80 for live", f)
		}
		return DeletionTime{Live: true}
	}
	return DeletionTime{MarkedForDeleteAt: d.I64(), LocalDeletionTime: d.U32()}
}

// Blocks lists the partition's index blocks in clustering order, and end,
// the offset (from the partition start) just past the last block, where
// the end-of-partition marker sits. The writer stores end as one more trie
// entry after the last block's (RowIndexWriter.complete), so that keys above
// the last row are rejected at once; it is checked, not listed. Blocks
// checks there are exactly BlockCount blocks, at increasing offsets. Its
// reads wait no longer than ctx.
func (e *RowIndexEntry) Blocks(ctx context.Context) (blocks []IndexBlock, end int64, err error) {
	// The trie lies wholly before the entry; reading it through a region
	// that ends there keeps a damaged pointer from reaching the entry.
	g := newRegion(e.ri.g.r, rowsComponent, e.Pos)
	w := newWalk(ctx, g, e.Root)
	var out []IndexBlock
	for w.next() {
		if len(out) > e.BlockCount {
			return nil, 0, g.corrupt(w.cur.pos, "list row index blocks: more than the entry's %d and the end marker", e.BlockCount)
		}
		blk, err := readBlock(ctx, g, &w.cur)
		if err != nil {
			return nil, 0, err
		}
		if len(out) > 0 && blk.Offset <= out[len(out)-1].Offset {
			return nil, 0, g.corrupt(w.cur.pos, "list row index blocks: block %d offset %d not after %d", len(out), blk.Offset, out[len(out)-1].Offset)
		}
		blk.Separator = append([]byte(nil), w.curPath...)
		out = append(out, blk)
	}
	if w.err != nil {
		return nil, 0, w.err
	}
	if len(out) != e.BlockCount+1 {
		return nil, 0, g.corrupt(e.Root, "list row index blocks: %d trie entries, want the entry's %d blocks and an end marker", len(out), e.BlockCount)
	}
	last := out[len(out)-1]
	if last.OpenDeletion != nil {
		return nil, 0, g.corrupt(e.Root, "list row index blocks: end marker carries a deletion")
	}
	return out[:e.BlockCount:e.BlockCount], last.Offset, nil
}

// readBlock decodes a row trie payload (RowIndexReader.readPayload).
func readBlock(ctx context.Context, g *region, nd *node) (IndexBlock, error) {
	var blk IndexBlock
	n := nd.flags &^ 8
	if n == 0 {
		return blk, g.corrupt(nd.pos, "read row index payload: no offset bytes (flags %#x)", nd.flags)
	}
	size := n
	if nd.flags&8 != 0 {
		size += 12 // at most; a live marker is shorter but never written
	}
	b, err := g.read(ctx, nd.ppos, int(min(int64(size), g.limit-nd.ppos)), "row index payload")
	if err != nil {
		return blk, err
	}
	if len(b) < n {
		return blk, g.corrupt(nd.ppos, "read row index payload: %d offset bytes run past the trie", n)
	}
	blk.Offset = beInt(b, n)
	if blk.Offset < 0 {
		return blk, g.corrupt(nd.ppos, "read row index payload: negative block offset %d", blk.Offset)
	}
	if nd.flags&8 != 0 {
		d := base.NewDecbuf(b[n:], g.r.Name(), rowsComponent, nd.ppos+int64(n))
		dt := readDeletion(&d)
		if err := d.Err(); err != nil {
			return blk, err
		}
		blk.OpenDeletion = &dt
	}
	return blk, nil
}
