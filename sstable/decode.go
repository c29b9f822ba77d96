package sstable

import (
	"unsafe"

	"github.com/sstable-flight/sstable-flight/sstable/internal/base"
	"github.com/sstable-flight/sstable-flight/sstable/internal/clustering"
	"github.com/sstable-flight/sstable-flight/sstable/metadata"
)

// decoder turns Data.db bytes into partitions and unfiltereds. It holds
// the scratch state reused from row to row, so decoding a row allocates
// nothing once the slices have grown to the widest row.
type decoder struct {
	schema  *Schema
	header  *metadata.SerializationHeader
	version metadata.Version
	present []int // column indexes of the current row
	// skip[static][i] drops column i's cells after parsing them (column
	// projection): their bytes must still be walked, but nothing is kept.
	skip [2][]bool
}

func (dc *decoder) skipped(static bool, ci int) bool {
	k := 0
	if static {
		k = 1
	}
	return dc.skip[k] != nil && dc.skip[k][ci]
}

func (dc *decoder) partitionHeader(d *base.Decbuf, ph *PartitionHeader) {
	ph.Position = d.Pos()
	n := int(d.U16())
	ph.Key = d.Bytes(n)
	ph.Deletion = dc.absoluteDeletion(d)
	ph.End = d.Pos()
}

// absoluteDeletion reads a partition-level DeletionTime.
func (dc *decoder) absoluteDeletion(d *base.Decbuf) DeletionTime {
	if !dc.version.UIntDeletionTime {
		ldt := int64(d.I32())
		mfda := d.I64()
		if mfda == LiveDeletion.MarkedForDeleteAt && ldt == LiveDeletion.LocalDeletionTime {
			return LiveDeletion
		}
		return DeletionTime{MarkedForDeleteAt: mfda, LocalDeletionTime: ldt}
	}
	if d.Len() > 0 && d.B[int(d.Pos()-d.Base)] == 0x80 {
		d.Skip(1)
		return LiveDeletion
	}
	if d.Len() > 0 && d.B[int(d.Pos()-d.Base)]&0x80 != 0 {
		d.Fail("deletion time flag byte %#x", d.B[int(d.Pos()-d.Base)])
		return LiveDeletion
	}
	mfda := d.I64()
	return DeletionTime{MarkedForDeleteAt: mfda, LocalDeletionTime: int64(d.U32())}
}

func (dc *decoder) timestamp(d *base.Decbuf) int64 {
	return int64(d.UVint() + uint64(dc.header.MinTimestamp))
}

func (dc *decoder) localDeletionTime(d *base.Decbuf) int64 {
	return int64(d.UVint() + uint64(dc.header.MinLocalDeletionTime))
}

func (dc *decoder) ttl(d *base.Decbuf) int64 {
	return int64(d.UVint() + uint64(dc.header.MinTTL))
}

func (dc *decoder) deltaDeletion(d *base.Decbuf) DeletionTime {
	mfda := dc.timestamp(d)
	return DeletionTime{MarkedForDeleteAt: mfda, LocalDeletionTime: dc.localDeletionTime(d)}
}

// unfiltered decodes the next row or marker of Data.db; it returns false
// at the end of the partition.
func (dc *decoder) unfiltered(d *base.Decbuf, u *Unfiltered) bool {
	return unfilteredIn[sstableForm](dc, d, u)
}

// The two forms of a row or marker: in Data.db (sstableForm) a vint size
// and a vint previous size follow the clustering; in the messaging form
// of a mutation or a read response (messagingForm) they do not
// (UnfilteredSerializer writes them for SSTables only). NB: the forms are
// type arguments of distinct shapes, so unfilteredIn is compiled once per
// form and its test of the form is a constant, gone from the Data.db
// instantiation. Measured with callgrind on a narrow scan, the row
// decoder's instructions are the same as before the messaging form; the
// call passing the generic dictionary costs the scanner 4 instructions a
// row (0.3% of a raw scan). A decoder field tested per row cost 6.
type (
	sstableForm   uint8
	messagingForm uint16
)

// sized reports whether form F writes the sizes: a constant per shape.
func sized[F sstableForm | messagingForm]() bool {
	var f F
	return unsafe.Sizeof(f) == unsafe.Sizeof(sstableForm(0))
}

// unfilteredIn decodes the next row or marker in form F; it returns false
// at the end of the partition.
func unfilteredIn[F sstableForm | messagingForm](dc *decoder, d *base.Decbuf, u *Unfiltered) bool {
	u.Position = d.Pos()
	flags := d.Byte()
	if d.Err() != nil || flags&FlagEndOfPartition != 0 {
		return false
	}
	u.Cells, u.Complex = u.Cells[:0], u.Complex[:0]
	u.notSimple = flags & (FlagIsMarker | FlagHasTTL | FlagHasDeletion | FlagHasComplexDeletion | FlagExtension)
	u.Marker, u.Static, u.Shadowable = false, false, false
	if flags&FlagIsMarker != 0 {
		dc.marker(d, u, sized[F]())
		return true
	}
	if flags&FlagExtension != 0 {
		ext := d.Byte()
		u.Static = ext&ExtIsStatic != 0
		u.Shadowable = ext&ExtShadowable != 0
	}
	u.Clustering = u.Clustering[:0]
	if !u.Static {
		u.Clustering = clustering.Values(d, dc.schema.Clustering, u.Clustering, len(dc.schema.Clustering))
	}
	if !sized[F]() {
		dc.rowBody(d, u, flags)
		u.End = d.Pos()
		return d.Err() == nil
	}
	size := d.UVint32()
	bodyStart := d.Pos()
	d.UVint() // previous unfiltered size: only for reverse iteration
	dc.rowBody(d, u, flags)
	if d.Err() == nil && d.Pos()-bodyStart != int64(size) {
		d.Fail("row of %d bytes, header says %d", d.Pos()-bodyStart, size)
	}
	u.End = d.Pos()
	return d.Err() == nil
}

func (dc *decoder) marker(d *base.Decbuf, u *Unfiltered, sized bool) {
	u.Marker = true
	kind := d.Byte()
	if kind > clustering.MaxKind || kind == byte(StaticClustering) || kind == byte(ClusteringKind) {
		d.Fail("range tombstone marker of kind %d", kind)
		return
	}
	u.Kind = BoundKind(kind)
	n := int(d.U16())
	if n > len(dc.schema.Clustering) {
		d.Fail("marker with %d clustering values, table has %d", n, len(dc.schema.Clustering))
		return
	}
	u.Clustering = clustering.Values(d, dc.schema.Clustering, u.Clustering[:0], n)
	var size int
	bodyStart := d.Pos()
	if sized {
		size = d.UVint32()
		bodyStart = d.Pos()
		d.UVint() // previous unfiltered size
	}
	if u.Kind.IsBoundary() {
		u.MarkerEndDel = dc.deltaDeletion(d)
	}
	u.MarkerDel = dc.deltaDeletion(d)
	if sized && d.Err() == nil && d.Pos()-bodyStart != int64(size) {
		d.Fail("marker of %d bytes, header says %d", d.Pos()-bodyStart, size)
	}
	u.End = d.Pos()
}

// noValue is an empty cell value: empty, never nil, so readers need not
// tell the two apart.
var noValue = []byte{}

func (dc *decoder) rowBody(d *base.Decbuf, u *Unfiltered, flags byte) {
	u.Liveness = LivenessInfo{Timestamp: NoTimestamp}
	if flags&FlagHasTimestamp != 0 {
		u.Liveness.Timestamp = dc.timestamp(d)
	}
	if flags&FlagHasTTL != 0 {
		u.Liveness.TTL = dc.ttl(d)
		u.Liveness.LocalExpirationTime = dc.localDeletionTime(d)
	}
	u.Deletion = LiveDeletion
	if flags&FlagHasDeletion != 0 {
		u.Deletion = dc.deltaDeletion(d)
	}
	cols := dc.schema.Columns(u.Static)
	dc.columnSubset(d, flags, len(cols))
	for _, ci := range dc.present {
		if d.Err() != nil {
			return
		}
		col := &cols[ci]
		skip := dc.skipped(u.Static, ci)
		mark := len(u.Cells)
		if !col.Complex {
			u.Cells = append(u.Cells, Cell{})
			dc.cell(d, &u.Cells[len(u.Cells)-1], ci, col, u)
		} else {
			if flags&FlagHasComplexDeletion != 0 {
				if del := dc.deltaDeletion(d); !del.Live() && !skip {
					u.Complex = append(u.Complex, ComplexDeletion{Column: ci, Deletion: del})
				}
			}
			n := d.UVint32()
			for i := 0; i < n && d.Err() == nil; i++ {
				u.Cells = append(u.Cells, Cell{})
				dc.cell(d, &u.Cells[len(u.Cells)-1], ci, col, u)
			}
		}
		if skip {
			u.Cells = u.Cells[:mark]
		}
	}
}

// columnSubset fills dc.present with the indexes of the row's columns.
// Under 64 columns a vint bitmap marks the *missing* ones; from 64 on,
// db/Columns writes the missing count, then either the present or the
// missing indexes, whichever list is shorter.
func (dc *decoder) columnSubset(d *base.Decbuf, flags byte, n int) {
	dc.present = dc.present[:0]
	if flags&FlagHasAllColumns != 0 {
		for i := range n {
			dc.present = append(dc.present, i)
		}
		return
	}
	encoded := d.UVint()
	if n < 64 {
		if n < 64 && encoded>>uint(n) != 0 {
			d.Fail("column subset bitmap %#x names columns beyond the %d in the header", encoded, n)
			return
		}
		for i := range n {
			if encoded&(1<<uint(i)) == 0 {
				dc.present = append(dc.present, i)
			}
		}
		return
	}
	missing := int(encoded)
	if missing > n {
		d.Fail("column subset misses %d of %d columns", missing, n)
		return
	}
	count := n - missing
	if count < n/2 {
		for range count {
			i := d.UVint32()
			if i >= n {
				d.Fail("column index %d of %d", i, n)
				return
			}
			dc.present = append(dc.present, i)
		}
		return
	}
	idx := 0
	for skipped := 0; d.Err() == nil; skipped++ {
		next := n
		if skipped < missing {
			next = d.UVint32()
		}
		if next > n || next < idx {
			d.Fail("missing column index %d out of order", next)
			return
		}
		for ; idx < next; idx++ {
			dc.present = append(dc.present, idx)
		}
		if idx == n {
			return
		}
		idx++
	}
}

func (dc *decoder) cell(d *base.Decbuf, c *Cell, ci int, col *Column, u *Unfiltered) {
	c.Column = ci
	c.Flags = d.Byte()
	u.notSimple |= c.Flags & (CellDeleted | CellExpiring)
	c.Path, c.TTL, c.LocalDeletionTime = nil, 0, 0
	if c.Flags&CellRowTimestamp != 0 {
		c.Timestamp = u.Liveness.Timestamp
	} else {
		c.Timestamp = dc.timestamp(d)
	}
	if c.Flags&(CellDeleted|CellExpiring) != 0 {
		if c.Flags&CellRowTTL != 0 {
			c.LocalDeletionTime, c.TTL = u.Liveness.LocalExpirationTime, u.Liveness.TTL
		} else {
			c.LocalDeletionTime = dc.localDeletionTime(d)
			if c.Flags&CellExpiring != 0 {
				c.TTL = dc.ttl(d)
			}
		}
	}
	fixed := col.Fixed
	if col.Complex {
		c.Path = d.Bytes(d.UVint32())
		// NB: a complex cell's value is written with the column's own type
		// (SerializationHeader.getType), a collection or UDT, which is
		// never fixed-width: even a list<int> element carries a length.
		fixed = -1
	}
	if c.Flags&CellEmptyValue == 0 {
		c.Value = d.Value(fixed)
	} else {
		c.Value = noValue
	}
}
