package writer

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/sstable-flight/sstable-flight/sstable"
	"github.com/sstable-flight/sstable-flight/sstable/marshal"
	"github.com/sstable-flight/sstable-flight/sstable/metadata"
)

// Data.db is written as package sstable's decode.go and unfiltered.go
// read it (their comment draws the layout); what the reader does not
// check follows Cassandra's UnfilteredSerializer and Cell.Serializer:
//
//   - a row's flags: HAS_TIMESTAMP when its liveness has one, HAS_TTL when
//     that expires, HAS_DELETION, HAS_COMPLEX_DELETION when a complex
//     column of the row has a deletion, HAS_ALL_COLUMNS when every column
//     of the header is present (then no column subset is written), and
//     the extension byte for static rows and shadowable deletions;
//   - a cell's flags: USE_ROW_TIMESTAMP when its timestamp is the row's,
//     USE_ROW_TTL when it expires as the row does, EMPTY_VALUE for an
//     empty value; the fields these make redundant are left out;
//   - the size vint counts the bytes after itself, the previous-size vint
//     included; the previous size is the distance from the start of the
//     previous unfiltered (from the partition start for the first row
//     after the header, 0 for the static row).

// ErrInput is matched (errors.Is) by the errors of input a Writer
// refuses: out of order, or not encodable.
var ErrInput = errors.New("invalid input")

func inputf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInput, fmt.Sprintf(format, args...))
}

// encoder appends Data.db structures to byte slices; it holds the scratch
// reused from row to row.
type encoder struct {
	schema  *sstable.Schema
	header  *metadata.SerializationHeader
	body    []byte
	present []int
}

// appendAbsoluteDeletion appends an oa DeletionTime: 0x80 alone for live,
// else int64 markedForDeleteAt (top bit clear) and uint32 local deletion
// time, big-endian.
func appendAbsoluteDeletion(dst []byte, d sstable.DeletionTime) ([]byte, error) {
	if d.Live() {
		return append(dst, 0x80), nil
	}
	if d.MarkedForDeleteAt < 0 {
		return dst, inputf("deletion timestamp %d is negative", d.MarkedForDeleteAt)
	}
	if d.LocalDeletionTime < 0 || d.LocalDeletionTime > math.MaxUint32 {
		return dst, inputf("local deletion time %d out of range", d.LocalDeletionTime)
	}
	dst = binary.BigEndian.AppendUint64(dst, uint64(d.MarkedForDeleteAt))
	return binary.BigEndian.AppendUint32(dst, uint32(d.LocalDeletionTime)), nil
}

// Deltas from the header's minima, as unsigned vints (a negative delta
// wraps, and the reader's addition wraps it back).
func (e *encoder) timestamp(dst []byte, ts int64) []byte {
	return marshal.AppendUvint(dst, uint64(ts-e.header.MinTimestamp))
}

// localDeletionTime appends a deletion time's delta as Cassandra 5.0
// computes it: in 32-bit arithmetic on the unsigned-int form of both,
// sign-extended. For any time within 68 years of the minimum this is the
// plain delta; it matters for LIVE's NO_DELETION_TIME (0xffffffff).
func (e *encoder) localDeletionTime(dst []byte, ldt int64) []byte {
	delta := int32(uint32(ldt) - uint32(e.header.MinLocalDeletionTime))
	return marshal.AppendUvint(dst, uint64(int64(delta)))
}

func (e *encoder) ttl(dst []byte, ttl int64) []byte {
	return marshal.AppendUvint(dst, uint64(ttl-e.header.MinTTL))
}

func (e *encoder) deltaDeletion(dst []byte, d sstable.DeletionTime) []byte {
	return e.localDeletionTime(e.timestamp(dst, d.MarkedForDeleteAt), d.LocalDeletionTime)
}

// value appends a value of type t: raw when t is fixed-width, else with a
// vint length.
func value(dst []byte, fixed int, v []byte) ([]byte, error) {
	if fixed >= 0 {
		if len(v) != fixed {
			return dst, inputf("value of %d bytes for a type of fixed width %d", len(v), fixed)
		}
		return append(dst, v...), nil
	}
	dst = marshal.AppendUvint(dst, uint64(len(v)))
	return append(dst, v...), nil
}

// clusteringValues appends values as ClusteringPrefix.Serializer does
// without the size: per block of 32 a vint header, two bits per value
// (2j: empty, 2j+1: null), then the values neither empty nor null.
func (e *encoder) clusteringValues(dst []byte, vals [][]byte) ([]byte, error) {
	types := e.schema.Clustering
	if len(vals) > len(types) {
		return dst, inputf("%d clustering values, table has %d clustering columns", len(vals), len(types))
	}
	var err error
	for start := 0; start < len(vals); start += 32 {
		end := min(start+32, len(vals))
		var header uint64
		for i := start; i < end; i++ {
			j := uint(i - start)
			switch {
			case vals[i] == nil:
				header |= 1 << (2*j + 1)
			case len(vals[i]) == 0:
				header |= 1 << (2 * j)
			}
		}
		dst = marshal.AppendUvint(dst, header)
		for i := start; i < end; i++ {
			if len(vals[i]) == 0 {
				continue
			}
			if dst, err = value(dst, types[i].FixedLength(), vals[i]); err != nil {
				return dst, fmt.Errorf("clustering value %d: %w", i, err)
			}
		}
	}
	return dst, nil
}

// marker appends a range tombstone marker.
func (e *encoder) marker(dst []byte, u *sstable.Unfiltered, prevSize int64) ([]byte, error) {
	switch u.Kind {
	case sstable.StaticClustering, sstable.ClusteringKind:
		return dst, inputf("range tombstone marker of kind %d", u.Kind)
	}
	if u.Kind > sstable.ExclStartBound {
		return dst, inputf("range tombstone marker of kind %d", u.Kind)
	}
	if u.MarkerDel.Live() || (u.Kind.IsBoundary() && u.MarkerEndDel.Live()) {
		return dst, inputf("range tombstone marker with a live deletion")
	}
	dst = append(dst, sstable.FlagIsMarker, byte(u.Kind))
	dst = binary.BigEndian.AppendUint16(dst, uint16(len(u.Clustering)))
	dst, err := e.clusteringValues(dst, u.Clustering)
	if err != nil {
		return dst, err
	}
	body := marshal.AppendUvint(e.body[:0], uint64(prevSize))
	if u.Kind.IsBoundary() {
		body = e.deltaDeletion(body, u.MarkerEndDel)
	}
	body = e.deltaDeletion(body, u.MarkerDel)
	e.body = body
	dst = marshal.AppendUvint(dst, uint64(len(body)))
	return append(dst, body...), nil
}

// row appends a row (static or not).
func (e *encoder) row(dst []byte, u *sstable.Unfiltered, prevSize int64) ([]byte, error) {
	cols := e.schema.Columns(u.Static)
	if err := e.presentColumns(u, cols); err != nil {
		return dst, err
	}
	flags, ext := byte(0), byte(0)
	live := u.Liveness
	if u.Static {
		ext |= sstable.ExtIsStatic
	}
	if live.Timestamp != sstable.NoTimestamp {
		flags |= sstable.FlagHasTimestamp
		if live.TTL != 0 {
			flags |= sstable.FlagHasTTL
		}
	} else if live.TTL != 0 {
		return dst, inputf("row liveness with a TTL but no timestamp")
	}
	if !u.Deletion.Live() {
		flags |= sstable.FlagHasDeletion
		if u.Shadowable {
			ext |= sstable.ExtShadowable
		}
	}
	hasComplexDeletion := false
	for _, cd := range u.Complex {
		if !cd.Deletion.Live() {
			hasComplexDeletion = true
		}
	}
	if hasComplexDeletion {
		flags |= sstable.FlagHasComplexDeletion
	}
	if len(e.present) == len(cols) {
		flags |= sstable.FlagHasAllColumns
	}
	if ext != 0 {
		flags |= sstable.FlagExtension
	}
	dst = append(dst, flags)
	if ext != 0 {
		dst = append(dst, ext)
	}
	var err error
	if !u.Static {
		if len(u.Clustering) != len(e.schema.Clustering) {
			return dst, inputf("row with %d clustering values, table has %d clustering columns", len(u.Clustering), len(e.schema.Clustering))
		}
		if dst, err = e.clusteringValues(dst, u.Clustering); err != nil {
			return dst, err
		}
	}
	body := marshal.AppendUvint(e.body[:0], uint64(prevSize))
	if flags&sstable.FlagHasTimestamp != 0 {
		body = e.timestamp(body, live.Timestamp)
	}
	if flags&sstable.FlagHasTTL != 0 {
		body = e.ttl(body, live.TTL)
		body = e.localDeletionTime(body, live.LocalExpirationTime)
	}
	if flags&sstable.FlagHasDeletion != 0 {
		body = e.deltaDeletion(body, u.Deletion)
	}
	if flags&sstable.FlagHasAllColumns == 0 {
		body = e.columnSubset(body, len(cols))
	}
	ci, di := 0, 0
	for _, col := range e.present {
		c := &cols[col]
		if !c.Complex {
			if body, err = e.cell(body, &u.Cells[ci], c, &live); err != nil {
				return dst, fmt.Errorf("column %s: %w", c.Name, err)
			}
			ci++
			continue
		}
		if hasComplexDeletion {
			// NB: a live complex deletion is written with 5.0's LIVE local
			// deletion time, the unsigned int 0xffffffff, not LiveDeletion's.
			del := sstable.DeletionTime{MarkedForDeleteAt: math.MinInt64, LocalDeletionTime: math.MaxUint32}
			if di < len(u.Complex) && u.Complex[di].Column == col {
				del = u.Complex[di].Deletion
			}
			body = e.deltaDeletion(body, del)
		}
		if di < len(u.Complex) && u.Complex[di].Column == col {
			di++
		}
		n := ci
		for n < len(u.Cells) && u.Cells[n].Column == col {
			n++
		}
		body = marshal.AppendUvint(body, uint64(n-ci))
		for ; ci < n; ci++ {
			if body, err = e.cell(body, &u.Cells[ci], c, &live); err != nil {
				return dst, fmt.Errorf("column %s: %w", c.Name, err)
			}
		}
	}
	e.body = body
	dst = marshal.AppendUvint(dst, uint64(len(body)))
	return append(dst, body...), nil
}

// presentColumns fills e.present with the indexes of the columns the row
// has data for (cells, or a complex deletion), checking that cells and
// complex deletions come in column order, a simple column with one cell.
func (e *encoder) presentColumns(u *sstable.Unfiltered, cols []sstable.Column) error {
	e.present = e.present[:0]
	last := -1
	ci, di := 0, 0
	for ci < len(u.Cells) || di < len(u.Complex) {
		col := math.MaxInt
		if ci < len(u.Cells) {
			col = u.Cells[ci].Column
		}
		if di < len(u.Complex) && u.Complex[di].Column < col {
			col = u.Complex[di].Column
		}
		if col < 0 || col >= len(cols) {
			return inputf("cell of column %d, the header has %d", col, len(cols))
		}
		if col <= last {
			return inputf("cells of column %d out of column order", col)
		}
		last = col
		e.present = append(e.present, col)
		n := 0
		for ci < len(u.Cells) && u.Cells[ci].Column == col {
			ci, n = ci+1, n+1
		}
		if !cols[col].Complex && n > 1 {
			return inputf("%d cells for simple column %s", n, cols[col].Name)
		}
		if di < len(u.Complex) && u.Complex[di].Column == col {
			if !cols[col].Complex {
				return inputf("complex deletion of simple column %s", cols[col].Name)
			}
			di++
		}
	}
	return nil
}

// columnSubset appends db/Columns' subset encoding of e.present among n
// columns: under 64, a bitmap of the missing ones; from 64, the missing
// count then the present or the missing indexes, whichever are fewer.
func (e *encoder) columnSubset(dst []byte, n int) []byte {
	if n < 64 {
		var missing uint64 = 1<<uint(n) - 1
		for _, i := range e.present {
			missing &^= 1 << uint(i)
		}
		return marshal.AppendUvint(dst, missing)
	}
	count := len(e.present)
	dst = marshal.AppendUvint(dst, uint64(n-count))
	if count < n/2 {
		for _, i := range e.present {
			dst = marshal.AppendUvint(dst, uint64(i))
		}
		return dst
	}
	next := 0
	for _, i := range e.present {
		for ; next < i; next++ {
			dst = marshal.AppendUvint(dst, uint64(next))
		}
		next = i + 1
	}
	for ; next < n; next++ {
		dst = marshal.AppendUvint(dst, uint64(next))
	}
	return dst
}

// cell appends one cell of column c in a row of liveness live.
func (e *encoder) cell(dst []byte, cl *sstable.Cell, c *sstable.Column, live *sstable.LivenessInfo) ([]byte, error) {
	deleted, expiring := cl.IsTombstone(), !cl.IsTombstone() && cl.IsExpiring()
	if expiring && cl.TTL <= 0 {
		return dst, inputf("expiring cell with TTL %d", cl.TTL)
	}
	useRowTimestamp := live.Timestamp != sstable.NoTimestamp && cl.Timestamp == live.Timestamp
	useRowTTL := expiring && live.TTL != 0 && cl.TTL == live.TTL && cl.LocalDeletionTime == live.LocalExpirationTime
	flags := byte(0)
	if len(cl.Value) == 0 {
		flags |= sstable.CellEmptyValue
	}
	if deleted {
		flags |= sstable.CellDeleted
	} else if expiring {
		flags |= sstable.CellExpiring
	}
	if useRowTimestamp {
		flags |= sstable.CellRowTimestamp
	}
	if useRowTTL {
		flags |= sstable.CellRowTTL
	}
	dst = append(dst, flags)
	if !useRowTimestamp {
		dst = e.timestamp(dst, cl.Timestamp)
	}
	if (deleted || expiring) && !useRowTTL {
		dst = e.localDeletionTime(dst, cl.LocalDeletionTime)
		if expiring {
			dst = e.ttl(dst, cl.TTL)
		}
	}
	fixed := c.Fixed
	if c.Complex {
		if cl.Path == nil {
			return dst, inputf("cell of complex column without a path")
		}
		dst = marshal.AppendUvint(dst, uint64(len(cl.Path)))
		dst = append(dst, cl.Path...)
		fixed = -1 // a complex cell's value has the collection's type: never fixed
	} else if cl.Path != nil {
		return dst, inputf("cell of simple column with a path")
	}
	if len(cl.Value) == 0 {
		return dst, nil
	}
	return value(dst, fixed, cl.Value)
}
