package big

import (
	"math"

	"github.com/sstable-flight/sstable-flight/sstable/internal/base"
	"github.com/sstable-flight/sstable-flight/sstable/marshal"
)

// DeletionTime is a tombstone's write time and the second it was written.
// Its fields match package sstable's DeletionTime, so one converts to the
// other.
type DeletionTime struct {
	MarkedForDeleteAt int64 // µs, as USING TIMESTAMP
	LocalDeletionTime int64 // seconds since the epoch
}

// LiveDeletion is "no deletion" (DeletionTime.LIVE).
var LiveDeletion = DeletionTime{MarkedForDeleteAt: math.MinInt64, LocalDeletionTime: math.MaxInt32}

// Live reports whether d deletes nothing.
func (d DeletionTime) Live() bool { return d.MarkedForDeleteAt == math.MinInt64 }

// readDeletionTime reads a DeletionTime in the version's serialization:
// 12 fixed bytes before oa; from oa a lone 0x80 for live, else 12 bytes
// whose first bit is clear (it is the flag bit).
func readDeletionTime(d *base.Decbuf, uintDeletionTime bool) DeletionTime {
	if !uintDeletionTime {
		ldt := int64(d.I32())
		mfda := d.I64()
		if mfda == LiveDeletion.MarkedForDeleteAt && ldt == LiveDeletion.LocalDeletionTime {
			return LiveDeletion
		}
		return DeletionTime{MarkedForDeleteAt: mfda, LocalDeletionTime: ldt}
	}
	if d.Err() != nil || d.Len() == 0 {
		d.Skip(1) // records the truncation
		return LiveDeletion
	}
	if flags := d.B[len(d.B)-d.Len()]; flags&0x80 != 0 {
		if flags != 0x80 {
			d.Fail("read deletion time: flag byte %#x, want 0x80 for live or a clear top bit", flags)
		}
		d.Skip(1)
		return LiveDeletion
	}
	mfda := d.I64()
	return DeletionTime{MarkedForDeleteAt: mfda, LocalDeletionTime: int64(d.U32())}
}

// Kinds of clustering prefix (ClusteringPrefix.Kind ordinals). Only
// KindClustering carries a value for every clustering column; the bounds
// and boundaries (0-2, 5-7) are range-tombstone markers with a prefix.
const (
	KindExclEndBound             = 0
	KindInclStartBound           = 1
	KindExclEndInclStartBoundary = 2
	KindStatic                   = 3 // never serialized in an index
	KindClustering               = 4
	KindInclEndExclStartBoundary = 5
	KindInclEndBound             = 6
	KindExclStartBound           = 7
)

// ClusteringPrefix is a serialized clustering or bound. Values[j] is the
// raw value of clustering column j: nil when null, empty (not nil) when
// empty. Values alias the Index.db bytes.
type ClusteringPrefix struct {
	Kind   uint8
	Values [][]byte
}

// IndexInfo is one block of a partition's promoted index: the clustering
// range a run of rows covers and where that run lies in Data.db.
type IndexInfo struct {
	First, Last ClusteringPrefix
	Offset      int64 // from the start of the partition in Data.db
	Width       int64 // bytes of Data.db the block covers
	// OpenMarker is the deletion of a range tombstone still open at the
	// block's end, when HasOpenMarker.
	HasOpenMarker bool
	OpenMarker    DeletionTime

	at int64 // offset of the serialized IndexInfo from the first one
}

// widthBase is IndexInfo.Serializer.WIDTH_BASE: widths are written as a
// signed difference from it, since most blocks are near the default
// 64 KiB column_index_size.
const widthBase = 64 * 1024

// readPrefix reads a ClusteringPrefix, appending its values to the pool
// values (one allocation shared by a whole entry) and returning the pool.
func readPrefix(d *base.Decbuf, types []*marshal.Type, values [][]byte) (ClusteringPrefix, [][]byte) {
	kind := d.Byte()
	if d.Err() != nil {
		return ClusteringPrefix{}, values
	}
	n := len(types)
	switch {
	case kind == KindClustering:
	case kind > KindExclStartBound || kind == KindStatic:
		d.Fail("read clustering prefix: kind %d", kind)
		return ClusteringPrefix{}, values
	default:
		n = int(d.U16())
		if n > len(types) {
			d.Fail("read clustering bound: %d values for %d clustering columns", n, len(types))
			return ClusteringPrefix{}, values
		}
	}
	start := len(values)
	var header uint64
	for j := 0; j < n && d.Err() == nil; j++ {
		if j%32 == 0 {
			header = d.UVint()
		}
		// Java shifts by (2j) mod 64, which is the bit pair of j mod 32.
		shift := uint(2*j) & 63
		switch {
		case header&(2<<shift) != 0:
			values = append(values, nil)
		case header&(1<<shift) != 0:
			values = append(values, []byte{})
		default:
			values = append(values, readValue(d, types[j]))
		}
	}
	if d.Err() != nil {
		return ClusteringPrefix{}, values[:start]
	}
	return ClusteringPrefix{Kind: kind, Values: values[start:len(values):len(values)]}, values
}

// readValue reads one clustering value: raw when the type has a fixed
// width, else with an unsigned vint length.
func readValue(d *base.Decbuf, t *marshal.Type) []byte {
	if t == nil {
		d.Fail("read clustering value: no type given for it")
		return nil
	}
	n := t.FixedLength()
	if n < 0 {
		n = d.UVint32()
	}
	if b := d.Bytes(n); b != nil {
		return b
	}
	return []byte{}
}

// readIndexInfo reads one IndexInfo. values is a pool the prefixes'
// values are appended to (and slice), returned grown.
func readIndexInfo(d *base.Decbuf, types []*marshal.Type, uintDeletionTime bool, values [][]byte, at int64) (IndexInfo, [][]byte) {
	ii := IndexInfo{at: at}
	ii.First, values = readPrefix(d, types, values)
	ii.Last, values = readPrefix(d, types, values)
	off := d.UVint()
	width := d.Vint()
	if off > math.MaxInt64/2 {
		d.Fail("read index block: offset %d", off)
	}
	ii.Offset = int64(off)
	if width <= -widthBase || width > math.MaxInt64/2 {
		d.Fail("read index block: width %d", int64(widthBase)+width)
	}
	ii.Width = widthBase + width
	ii.HasOpenMarker = d.Bool()
	if ii.HasOpenMarker {
		ii.OpenMarker = readDeletionTime(d, uintDeletionTime)
	}
	return ii, values
}
