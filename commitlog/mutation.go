package commitlog

import (
	"errors"
	"fmt"
	"math"

	"github.com/sstable-flight/sstable-flight/internal/snippet"
	"github.com/sstable-flight/sstable-flight/sstable"
	"github.com/sstable-flight/sstable-flight/sstable/marshal"
	"github.com/sstable-flight/sstable-flight/sstable/metadata"
)

// A Mutation (Mutation.MutationSerializer) at messaging versions 10 to
// 13 (commit log versions 6 to 8; the layout is the same):
//
//	vint n             PartitionUpdates, one per table, n > 0
//	n × PartitionUpdate  (partitionupdate.go), back to back, with no
//	                   length of their own
//
// Every update of a mutation has the same keyspace and partition key.
// The mutation's length is the entry's: nothing follows the last update.

// Decoder decodes mutations into PartitionUpdates and their rows, the
// same sstable.Unfiltered values a Data.db scan yields:
//
//	dec := commitlog.NewDecoder(schemas)
//	dec.Reset(entry.Mutation, r.MessagingVersion())
//	for dec.NextUpdate() {
//		u := dec.Update()
//		for dec.NextUnfiltered() { use(u, dec.Unfiltered()) }
//	}
//	err := dec.Err() // errors.Is(err, ErrUnknownTable): skip the entry
//
// What it returns aliases the mutation's bytes and its own scratch: the
// update until the next NextUpdate, the unfiltered until the next
// NextUnfiltered. Not safe for concurrent use.
type Decoder struct {
	schemas Schemas
	tables  map[TableID]*parsedTable

	b      []byte
	pos    int
	left   int // updates still to read
	index  int // the current update's index
	err    error
	inRows bool // the current update's rows are being read
	upd    PartitionUpdate
	cols   sstable.Schema
	ud     sstable.UpdateDecoder
	// staticPending: the update's static row is decoded (with its
	// header) and not handed out yet.
	staticPending bool
}

// NewDecoder decodes mutations with the tables' schemas.
func NewDecoder(schemas Schemas) *Decoder {
	return &Decoder{schemas: schemas, tables: make(map[TableID]*parsedTable)}
}

// Reset starts decoding a mutation serialized at a messaging version
// (Reader.MessagingVersion: 10 or 11 for commit log version 6, 12 for 7,
// 13 for 8).
func (d *Decoder) Reset(mutation []byte, messagingVersion int) {
	d.b, d.pos, d.err, d.inRows, d.staticPending, d.index = mutation, 0, nil, false, false, -1
	d.upd = PartitionUpdate{}
	if messagingVersion < 10 || messagingVersion > 13 {
		d.err = fmt.Errorf("decode mutation: unsupported messaging version %d", messagingVersion)
		return
	}
	n := d.uvint("update count")
	if d.err == nil && (n == 0 || n > uint64(len(d.b)) || n > maxUpdatesPerEntry) {
		d.fail("update count", 0, "%d updates in a mutation of %d bytes", n, len(d.b))
	}
	d.left = int(n)
}

// Err is the first error met: a *MutationError, or the refusal of an
// unsupported messaging version.
func (d *Decoder) Err() error { return d.err }

// Update is the current update's header.
func (d *Decoder) Update() *PartitionUpdate { return &d.upd }

// Unfiltered is the current row or marker.
func (d *Decoder) Unfiltered() *sstable.Unfiltered { return d.ud.Unfiltered() }

// NextUpdate moves to the next update, skipping the rest of the current
// one's rows; false after the last or on an error.
func (d *Decoder) NextUpdate() bool {
	for d.inRows && d.NextUnfiltered() {
	}
	if d.err != nil {
		return false
	}
	if d.left == 0 {
		if d.pos != len(d.b) {
			d.fail("mutation end", int64(d.pos), "%d bytes after the last update", len(d.b)-d.pos)
		}
		return false
	}
	d.left--
	d.index++
	d.update()
	return d.err == nil
}

// NextUnfiltered moves to the next row or marker of the current update,
// its static row first; false at its end or on an error.
func (d *Decoder) NextUnfiltered() bool {
	if d.staticPending {
		d.staticPending = false
		return true
	}
	if !d.inRows || d.err != nil {
		return false
	}
	if !d.ud.Next() {
		d.inRows = false
		if err := d.ud.Err(); err != nil {
			d.rowErr("row or marker", err)
			return false
		}
		d.pos = int(d.ud.Pos())
		return false
	}
	if u := d.ud.Unfiltered(); u.Static {
		d.fail("row or marker", u.Position, "a static row after the first unfiltered")
		return false
	}
	return true
}

// update reads an update's header, up to its first unfiltered.
func (d *Decoder) update() {
	u := &d.upd
	*u = PartitionUpdate{Position: int64(d.pos)}
	d.staticPending = false
	id := d.bytes("table id", tableIDSize)
	if d.err != nil {
		return
	}
	copy(u.Table[:], id)
	ts, ok := d.schemas.Table(u.Table)
	if !ok || ts == nil {
		d.fail("table id", u.Position, "%w", ErrUnknownTable)
		return
	}
	pt := d.tables[u.Table]
	if pt == nil || pt.from != ts {
		var err error
		if pt, err = parseTable(ts); err != nil {
			d.fail("table schema", u.Position, "table %s: %w", ts.Name, err)
			return
		}
		d.tables[u.Table] = pt
	}
	u.Schema = ts
	u.Key = d.bytes("partition key", d.length("partition key length"))
	flagsAt := d.pos
	flags := d.byte("flags")
	if d.err != nil {
		return
	}
	if flags&^updKnownFlags != 0 || flags&updIsReversed != 0 {
		d.fail("flags", int64(flagsAt), "update flags %#x", flags)
		return
	}
	if flags&updIsEmpty != 0 {
		return
	}
	// The stats' deltas are unsigned vints of signed values: adding them
	// wraps to the value (as metadata's Statistics.db header).
	u.Stats.MinTimestamp = int64(d.uvint("stats") + metadata.TimestampEpochMicros)
	u.Stats.MinLocalDeletionTime = int64(d.uvint("stats") + metadata.DeletionTimeEpoch)
	u.Stats.MinTTL = int64(d.uvint("stats"))
	d.cols.Key, d.cols.Clustering = pt.schema.Key, pt.schema.Clustering
	d.cols.Static = d.cols.Static[:0]
	if flags&updHasStaticRow != 0 {
		d.cols.Static = d.columns(pt, "static columns", d.cols.Static)
	}
	d.cols.Regular = d.columns(pt, "regular columns", d.cols.Regular[:0])
	if d.err != nil {
		return
	}
	u.Columns = &d.cols
	u.HasStatic = flags&updHasStaticRow != 0
	d.ud.Reset(&d.cols, u.Stats, d.b[d.pos:], int64(d.pos), componentMutation)
	if flags&updHasDeletion != 0 {
		if u.Deletion = d.ud.Deletion(); d.ud.Err() != nil {
			d.rowErr("partition deletion", d.ud.Err())
			return
		}
	} else {
		u.Deletion = sstable.LiveDeletion
	}
	// NB: the static row comes before the row estimate (read here, so
	// the update's header is whole); NextUnfiltered hands it out first.
	if u.HasStatic {
		if !d.ud.Next() {
			if err := d.ud.Err(); err != nil {
				d.rowErr("static row", err)
			} else {
				d.fail("static row", d.ud.Pos()-1, "the update's flags promise a static row, found its end")
			}
			return
		}
		if st := d.ud.Unfiltered(); !st.Static {
			d.fail("static row", st.Position, "the update's flags promise a static row, found a row or marker")
			return
		}
		d.staticPending = true
	}
	if flags&updHasRowEstimate != 0 {
		if u.RowEstimate = d.ud.RowEstimate(); d.ud.Err() != nil {
			d.rowErr("row estimate", d.ud.Err())
			return
		}
	}
	d.inRows = true
}

// columns reads a Columns list (names) and resolves it against the table.
func (d *Decoder) columns(pt *parsedTable, what string, out []sstable.Column) []sstable.Column {
	n := d.length(what)
	for i := 0; i < n && d.err == nil; i++ {
		at := d.pos
		name := d.bytes(what, d.length(what))
		if d.err != nil {
			break
		}
		c, ok, err := pt.column(name)
		switch {
		case err != nil:
			d.fail(what, int64(at), "table %s: %w", pt.from.Name, err)
		case !ok:
			d.fail(what, int64(at), "%w: table %s has no column %s", ErrUnknownColumn, pt.from.Name, snippet.Quote(name))
		default:
			out = append(out, c)
		}
	}
	return out
}

// rowErr turns the UpdateDecoder's error (an sstable CorruptionError at
// an offset within the mutation) into a MutationError.
func (d *Decoder) rowErr(what string, err error) {
	me := &MutationError{Table: d.upd.Table, Update: d.index, What: what, Offset: int64(d.pos), Err: err}
	var ce *sstable.CorruptionError
	if errors.As(err, &ce) {
		me.Offset, me.Err = ce.Offset, ce.Err
	}
	if d.err == nil {
		d.err = me
	}
}

func (d *Decoder) fail(what string, at int64, format string, args ...any) {
	if d.err == nil {
		d.err = &MutationError{Table: d.upd.Table, Update: d.index, What: what, Offset: at, Err: fmt.Errorf(format, args...)}
	}
}

// The header's reads: a sticky error, every length bounded by the bytes
// left.

func (d *Decoder) uvint(what string) uint64 {
	if d.err != nil {
		return 0
	}
	v, n, err := marshal.ReadUvint(d.b[d.pos:])
	if err != nil {
		d.fail(what, int64(d.pos), "vint: %w", err)
		return 0
	}
	d.pos += n
	return v
}

// length reads a vint length or count, which can be no more than the
// bytes left (each counted item takes one at least).
func (d *Decoder) length(what string) int {
	at := d.pos
	v := d.uvint(what)
	if d.err == nil && (v > math.MaxInt32 || v > uint64(len(d.b)-d.pos)) {
		d.fail(what, int64(at), "length %d with %d bytes left", v, len(d.b)-d.pos)
		return 0
	}
	return int(v)
}

func (d *Decoder) bytes(what string, n int) []byte {
	if d.err != nil {
		return nil
	}
	if n < 0 || n > len(d.b)-d.pos {
		d.fail(what, int64(d.pos), "need %d bytes, have %d", n, len(d.b)-d.pos)
		return nil
	}
	b := d.b[d.pos : d.pos+n]
	d.pos += n
	return b
}

func (d *Decoder) byte(what string) byte {
	if b := d.bytes(what, 1); b != nil {
		return b[0]
	}
	return 0
}
