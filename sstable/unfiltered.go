package sstable

import (
	"math"

	"github.com/sstable-flight/sstable-flight/sstable/internal/clustering"
)

// Data.db, one partition (db/rows/UnfilteredSerializer, db/DeletionTime,
// db/ClusteringPrefix, db/Columns, db/rows/Cell):
//
//	u16 key length, key bytes
//	partition DeletionTime        before oa: int32 ldt, int64 mfda (12 bytes)
//	                              oa+/da: 0x80 alone = live, else int64 mfda, uint32 ldt
//	[static row]                  always present when the header has static columns
//	unfiltered*                   rows and range tombstone markers in clustering order
//	0x01                          end of partition
//
//	row:    flags [ext flags] [clustering] vint size vint prev-size
//	        [timestamp] [ttl, local expiration] [deletion] [column subset]
//	        per column: simple → cell; complex → [deletion] vint count, cells
//	marker: 0x02 kind u16 count values vint size vint prev-size
//	        deletion (bound) | end deletion, start deletion (boundary)
//	cell:   flags [timestamp] [local deletion time] [ttl] [path] [value]
//
// Every timestamp, deletion time and TTL inside rows is an unsigned vint
// delta from the header minima; "size" counts the bytes after itself.

// Unfiltered flags (package sstable/writer encodes them too).
const (
	FlagEndOfPartition     = 0x01
	FlagIsMarker           = 0x02
	FlagHasTimestamp       = 0x04
	FlagHasTTL             = 0x08
	FlagHasDeletion        = 0x10
	FlagHasAllColumns      = 0x20
	FlagHasComplexDeletion = 0x40
	FlagExtension          = 0x80

	ExtIsStatic   = 0x01
	ExtShadowable = 0x02
)

// Cell flags.
const (
	CellDeleted      = 0x01
	CellExpiring     = 0x02
	CellEmptyValue   = 0x04
	CellRowTimestamp = 0x08
	CellRowTTL       = 0x10
)

// NoTimestamp marks an absent timestamp (LivenessInfo.NO_TIMESTAMP).
const NoTimestamp = math.MinInt64

// DeletionTime is a tombstone's write time and the second it was written
// (which starts gc_grace_seconds).
type DeletionTime struct {
	MarkedForDeleteAt int64 // µs, as USING TIMESTAMP
	LocalDeletionTime int64 // seconds since the epoch
}

// LiveDeletion is "no deletion".
var LiveDeletion = DeletionTime{MarkedForDeleteAt: math.MinInt64, LocalDeletionTime: math.MaxInt32}

// Live reports whether d deletes nothing.
func (d DeletionTime) Live() bool { return d.MarkedForDeleteAt == math.MinInt64 }

// LivenessInfo is a row's primary-key liveness: what an INSERT writes.
type LivenessInfo struct {
	Timestamp           int64 // NoTimestamp when the row has none (UPDATE-only)
	TTL                 int64 // 0 when not expiring
	LocalExpirationTime int64 // seconds since the epoch, when TTL > 0
}

// BoundKind is ClusteringPrefix.Kind: which side of a range a marker is
// (sstable/internal/clustering, which Statistics.db's reader shares).
type BoundKind = clustering.Kind

const (
	ExclEndBound             = clustering.ExclEndBound
	InclStartBound           = clustering.InclStartBound
	ExclEndInclStartBoundary = clustering.ExclEndInclStartBoundary
	StaticClustering         = clustering.StaticClustering
	ClusteringKind           = clustering.ClusteringKind
	InclEndExclStartBoundary = clustering.InclEndExclStartBoundary
	InclEndBound             = clustering.InclEndBound
	ExclStartBound           = clustering.ExclStartBound
)

// Cell is one cell. Path and Value alias the reader's buffer and are valid
// until the next call on the iterator that returned them.
type Cell struct {
	Column            int // index into Schema.Columns(static)
	Flags             uint8
	Timestamp         int64
	LocalDeletionTime int64 // for tombstones and expiring cells
	TTL               int64
	Path              []byte // complex cells only
	// Value is the cell's serialized value; never nil (an empty value is
	// an empty slice), so it is never taken for a null.
	Value []byte
}

// IsTombstone reports a deleted cell.
func (c *Cell) IsTombstone() bool { return c.Flags&CellDeleted != 0 }

// IsExpiring reports a cell with a TTL.
func (c *Cell) IsExpiring() bool { return c.Flags&CellExpiring != 0 }

// Simple reports a regular row with nothing that deletes or expires: no
// deletion of its own, no complex deletion, no TTL on its liveness, and
// no cell that is a tombstone or expires. Every cell of a simple row is
// live at any time, which spares a reader the per-cell checks. (A cell a
// projection skipped counts too: Simple errs only towards checking.)
func (u *Unfiltered) Simple() bool { return u.notSimple == 0 }

// ComplexDeletion is the deletion of a whole collection or UDT column
// (DELETE col, or an overwrite, which deletes then writes).
type ComplexDeletion struct {
	Column   int
	Deletion DeletionTime
}

// Unfiltered is a row or a range tombstone marker. The reader reuses one
// value: slices alias its buffers until the next call.
type Unfiltered struct {
	Marker     bool
	Static     bool
	Clustering [][]byte // one per clustering column of a row; a marker's may be shorter; nil entry = null
	Position   int64    // offset in the uncompressed Data.db (UpdateDecoder: in its bytes' space)
	End        int64    // offset just after it

	// Rows.
	Liveness   LivenessInfo
	Deletion   DeletionTime // row deletion
	Shadowable bool
	Cells      []Cell
	Complex    []ComplexDeletion
	notSimple  uint8 // nonzero unless Simple: the flags that make a row not simple

	// Markers.
	Kind         BoundKind
	MarkerDel    DeletionTime // a bound's deletion, or a boundary's start (opening) deletion
	MarkerEndDel DeletionTime // a boundary's end (closing) deletion
}

// PartitionHeader is the start of a partition.
type PartitionHeader struct {
	// Key aliases the scanner's read buffer; the scanner leaves it intact
	// until the next NextPartition (or Release), so the partition's
	// readers keep it without a copy.
	Key      []byte
	Deletion DeletionTime
	Position int64 // offset of the partition in the uncompressed Data.db
	End      int64 // offset just after the header (key and deletion)
}
