package writer

import (
	"encoding/binary"

	"github.com/sstable-flight/sstable-flight/sstable"
	"github.com/sstable-flight/sstable-flight/sstable/marshal"
)

// columnIndexSize is Cassandra 5.0's default column_index_size: a
// partition's unfiltereds are indexed in blocks of at least this many
// bytes, and a partition of more than one block gets a promoted index
// in Index.db (package big draws the layout), which slice reads use to
// start at the block that holds the slice's start.
const columnIndexSize = 4 << 10

// indexInfoWidthBase is IndexInfo's WIDTH_BASE: widths are written as a
// signed vint of their difference from it.
const indexInfoWidthBase = 64 << 10

// rowIndex builds one partition's promoted index as
// SortedTablePartitionWriter does: a block starts at an unfiltered and
// ends after the first unfiltered that takes it to columnIndexSize bytes,
// or at the end of the partition (its end byte included).
type rowIndex struct {
	blocks     []byte   // IndexInfos
	offsets    []uint32 // of each IndexInfo in blocks
	first      []byte   // the open block's first clustering, serialized
	blockStart int64    // the open block's offset from the partition start
	inBlock    bool
	headerLen  int64 // bytes of the partition header, static row included
	openDel    sstable.DeletionTime
}

func (ri *rowIndex) reset() {
	ri.blocks, ri.offsets, ri.inBlock, ri.headerLen = ri.blocks[:0], ri.offsets[:0], false, -1
	ri.openDel = sstable.LiveDeletion
}

// prefix appends a clustering prefix as ClusteringPrefix.Serializer
// does: the kind, the value count for a bound, the values.
func (e *encoder) prefix(dst []byte, u *sstable.Unfiltered) []byte {
	if !u.Marker {
		dst = append(dst, byte(sstable.ClusteringKind))
	} else {
		dst = append(dst, byte(u.Kind))
		dst = binary.BigEndian.AppendUint16(dst, uint16(len(u.Clustering)))
	}
	// NB: the values were encoded once already (Data.db), so cannot fail.
	dst, _ = e.clusteringValues(dst, u.Clustering)
	return dst
}

// start notes an unfiltered about to be written at offset at (from the
// partition start).
func (ri *rowIndex) start(e *encoder, u *sstable.Unfiltered, at int64) {
	if ri.headerLen < 0 {
		ri.headerLen = at
	}
	if !ri.inBlock {
		ri.inBlock, ri.blockStart = true, at
		ri.first = e.prefix(ri.first[:0], u)
	}
	if u.Marker {
		ri.openDel = sstable.LiveDeletion
		if u.Kind.IsStart() || u.Kind.IsBoundary() {
			ri.openDel = u.MarkerDel
		}
	}
}

// end closes the open block if it reached columnIndexSize (or force), with
// last, the block's last unfiltered, ending at offset at.
func (ri *rowIndex) end(e *encoder, last *sstable.Unfiltered, at int64, force bool) {
	if !ri.inBlock || (!force && at-ri.blockStart < columnIndexSize) {
		return
	}
	ri.offsets = append(ri.offsets, uint32(len(ri.blocks)))
	b := append(ri.blocks, ri.first...)
	b = e.prefix(b, last)
	b = marshal.AppendUvint(b, uint64(ri.blockStart))
	b = marshal.AppendVint(b, at-ri.blockStart-indexInfoWidthBase)
	if ri.openDel.Live() {
		b = append(b, 0)
	} else {
		b = append(b, 1)
		b, _ = appendAbsoluteDeletion(b, ri.openDel)
	}
	ri.blocks = b
	ri.inBlock = false
}

// appendEntry appends the partition's Index.db entry: with a promoted
// index when it has more than one block (RowIndexEntry.create).
func (ri *rowIndex) appendEntry(dst, key []byte, dataPos int64, del sstable.DeletionTime, scratch []byte) ([]byte, []byte) {
	dst = binary.BigEndian.AppendUint16(dst, uint16(len(key)))
	dst = append(dst, key...)
	dst = marshal.AppendUvint(dst, uint64(dataPos))
	if len(ri.offsets) <= 1 {
		return marshal.AppendUvint(dst, 0), scratch
	}
	p := marshal.AppendUvint(scratch[:0], uint64(ri.headerLen))
	p, _ = appendAbsoluteDeletion(p, del)
	p = marshal.AppendUvint(p, uint64(len(ri.offsets)))
	p = append(p, ri.blocks...)
	for _, o := range ri.offsets {
		p = binary.BigEndian.AppendUint32(p, o)
	}
	dst = marshal.AppendUvint(dst, uint64(len(p)))
	return append(dst, p...), p
}
