package sstable

import (
	"github.com/sstable-flight/sstable-flight/sstable/internal/base"
	"github.com/sstable-flight/sstable-flight/sstable/metadata"
)

// The rows of a partition in Cassandra's messaging form, what a
// PartitionUpdate of a mutation (a commit log entry) holds after its
// key, flags and header (UnfilteredRowIteratorSerializer):
//
//	[partition deletion]   vint mfda − MinTimestamp, vint ldt − MinLocalDeletionTime
//	[static row]           a row whose extension flags say static
//	[vint row estimate]    a sizing hint
//	unfiltered*            rows and markers as in Data.db, but with no
//	                       size and previous-size vints after the clustering
//	0x01                   end of partition
//
// Which of the bracketed parts are there the update's flags say; the
// decoder reads them in this order as its caller asks. Every delta is
// from the update's own EncodingStats, and the column indexes of its rows
// (the subset bitmaps, Cell.Column) are into the update's own column
// lists, not the table's: Schema.Static and Schema.Regular are those
// lists, in the order the update names them.

// EncodingStats are the minima a partition's timestamps, local deletion
// times and TTLs are delta-encoded from (db/rows/EncodingStats), already
// moved from their 2015-09-22 epochs: µs and seconds since the Unix epoch,
// and seconds.
type EncodingStats struct {
	MinTimestamp         int64
	MinLocalDeletionTime int64
	MinTTL               int64
}

// UpdateDecoder decodes a partition in messaging form with the decoder
// that reads Data.db rows. One value is reused from update to update;
// the Unfiltered it returns is reused from row to row, its slices alias
// the decoded bytes and its scratch, valid until the next Next or Reset.
type UpdateDecoder struct {
	dc     decoder
	header metadata.SerializationHeader // only the minima are used
	d      base.Decbuf
	u      Unfiltered
}

// Reset starts decoding b, which is at offset base of what component
// names in errors (e.g. "mutation": offsets are then within it), with the
// update's schema and stats.
func (ud *UpdateDecoder) Reset(s *Schema, stats EncodingStats, b []byte, base int64, component string) {
	ud.header.MinTimestamp = stats.MinTimestamp
	ud.header.MinLocalDeletionTime = stats.MinLocalDeletionTime
	ud.header.MinTTL = stats.MinTTL
	ud.dc = decoder{schema: s, header: &ud.header, present: ud.dc.present[:0]}
	ud.d.File, ud.d.Component = "", component
	ud.d.Reset(b, base)
}

// Deletion reads a delta-encoded DeletionTime: the partition deletion.
func (ud *UpdateDecoder) Deletion() DeletionTime {
	return ud.dc.deltaDeletion(&ud.d)
}

// RowEstimate reads the row estimate.
func (ud *UpdateDecoder) RowEstimate() int { return ud.d.UVint32() }

// Next decodes the next row or marker (the static row too, when the
// flags say there is one: it is the first); false at the end of the
// partition or on an error (Err).
func (ud *UpdateDecoder) Next() bool {
	if ud.d.Err() != nil {
		return false
	}
	if !unfilteredIn[messagingForm](&ud.dc, &ud.d, &ud.u) {
		return false
	}
	if ud.u.Static && len(ud.dc.schema.Static) == 0 {
		ud.d.Fail("static row in an update with no static columns")
		return false
	}
	return true
}

// Unfiltered is the row or marker Next decoded; Position and End are
// offsets in the decoded bytes' space (base-relative).
func (ud *UpdateDecoder) Unfiltered() *Unfiltered { return &ud.u }

// Pos is the offset of the next byte to decode: after the end of the
// partition once Next has returned false with a nil Err.
func (ud *UpdateDecoder) Pos() int64 { return ud.d.Pos() }

// Err is the first error met: a CorruptionError naming the component and
// offset given to Reset.
func (ud *UpdateDecoder) Err() error { return ud.d.Err() }
