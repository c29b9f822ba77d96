package sstable

import (
	"cmp"
	"context"
	"fmt"
	"sync/atomic"

	"github.com/sstable-flight/sstable-flight/sstable/big"
	"github.com/sstable-flight/sstable-flight/sstable/bti"
	"github.com/sstable-flight/sstable-flight/sstable/internal/base"
	"github.com/sstable-flight/sstable-flight/sstable/marshal"
	"github.com/sstable-flight/sstable-flight/token"
)

// Bound is one end of a clustering slice: a prefix of clustering values
// (none: unbounded) and whether rows equal to it on that prefix are in.
type Bound struct {
	Values    [][]byte
	Inclusive bool
}

// Slice selects the rows of a partition between two clustering bounds.
type Slice struct {
	Start, End Bound
}

// sliceState filters a partition's unfiltereds to a slice. Range
// tombstones open across the slice's start are reported as a start bound
// at the slice start, and ones still open at its end are closed by an end
// bound there, as Cassandra's slice reads do, so every row returned keeps
// exactly the range deletion that covers it.
type sliceState struct {
	sl      Slice
	types   []*marshal.Type
	open    DeletionTime // range deletion open at the current position
	started bool
	ended   bool
	// empty: the start is at or after the end, so no row can be in the
	// slice (Cassandra's Slice.isEmpty); only the static row is read.
	empty   bool
	pending bool // held is an element to return after a synthesized start
	held    Unfiltered
	// jumped: the stream was moved to the slice's first block;
	// staticDone: the static row was returned.
	jumped, staticDone bool
}

// GetSlice reads one partition's static row and the rows (and range
// tombstone markers) of a clustering slice. The row index (Index.db's
// IndexInfo blocks, Rows.db's trie) lets it start at the block that holds
// the slice start instead of the partition's first row.
func (r *Reader) GetSlice(key []byte, sl Slice) (*Scanner, error) {
	return r.GetSliceContext(context.Background(), key, sl)
}

// GetSliceContext is GetSlice for a caller that waits for storage no
// longer than ctx, as ScanRangeContext.
func (r *Reader) GetSliceContext(ctx context.Context, key []byte, sl Slice) (*Scanner, error) {
	s, err := r.GetContext(ctx, key)
	if err != nil || s.done {
		return s, err
	}
	st := &sliceState{sl: sl, types: r.Schema.Clustering, open: LiveDeletion}
	if len(sl.Start.Values) > 0 && len(sl.End.Values) > 0 {
		start := Unfiltered{Marker: true, Kind: sl.Start.startKind(), Clustering: sl.Start.Values}
		st.empty = compareBound(st.types, &start, sl.End.Values, sl.End.endKind()) >= 0
	}
	s.slice = st
	return s, nil
}

// blockRef is one row-index block: its offset from the partition start
// and the range deletion open where it begins.
type blockRef struct {
	offset int64
	open   DeletionTime
}

// rowIndexBlocks lists the row-index blocks of the partition at dataPos
// with this key; nil when the partition has no row index (one block).
func (r *Reader) rowIndexBlocks(ctx context.Context, key []byte, dataPos int64) ([]blockRef, error) {
	switch {
	case r.idx.parts != nil:
		pl, found, err := r.idx.parts.Lookup(ctx, bti.DecoratedKey(nil, token.Of(key), key))
		if err != nil || !found || !pl.InRows() {
			return nil, err
		}
		e, err := r.idx.rows.Entry(ctx, pl.RowsPos())
		if err != nil {
			return nil, err
		}
		blocks, _, err := e.Blocks(ctx)
		if err != nil {
			return nil, err
		}
		out := make([]blockRef, len(blocks))
		for i, b := range blocks {
			out[i] = blockRef{offset: b.Offset, open: LiveDeletion}
			if b.OpenDeletion != nil && !b.OpenDeletion.Live {
				out[i].open = DeletionTime{MarkedForDeleteAt: b.OpenDeletion.MarkedForDeleteAt, LocalDeletionTime: int64(b.OpenDeletion.LocalDeletionTime)}
			}
		}
		return out, nil
	case r.idx.summary != nil:
		// Find the partition's entry skipping the others' row indexes,
		// then read its own in full: parsing every row index of the
		// summary interval was 27% of the server's CPU under slice reads.
		at, err := r.indexEntryAt(ctx, key, dataPos)
		if err != nil || at < 0 {
			return nil, err
		}
		it := big.NewIndexReader(ctx, r.idx.index, at, big.IndexOptions{
			UIntDeletionTime: r.Version.UIntDeletionTime, Promoted: big.PromotedFull,
			ClusteringTypes: r.Schema.Clustering, ReadSize: 4 << 10})
		for it.Next() {
			e := it.Entry()
			if e.DataPosition != dataPos {
				return nil, base.Corruptf(r.path("Index.db"), "Index.db", at, "entry points to Data.db offset %d, a scan of the same entry to %d", e.DataPosition, dataPos)
			}
			out := make([]blockRef, len(e.Blocks))
			open := LiveDeletion
			for i, b := range e.Blocks {
				// IndexInfo records the deletion open at a block's end,
				// which is the one open where the next block begins.
				out[i] = blockRef{offset: b.Offset, open: open}
				open = LiveDeletion
				if b.HasOpenMarker {
					open = DeletionTime{MarkedForDeleteAt: b.OpenMarker.MarkedForDeleteAt, LocalDeletionTime: b.OpenMarker.LocalDeletionTime}
				}
			}
			return out, nil
		}
		return nil, it.Err()
	}
	return nil, nil
}

// indexEntryAt is the Index.db offset of the entry of the partition at
// dataPos with this key, scanning its summary interval without parsing
// row indexes; -1 when the interval has no such entry.
func (r *Reader) indexEntryAt(ctx context.Context, key []byte, dataPos int64) (int64, error) {
	it, err := r.indexFrom(ctx, r.idx.summary.Floor(key))
	if err != nil {
		return -1, err
	}
	defer it.release()
	for it.Next() {
		if it.Entry().DataPosition == dataPos {
			return it.Pos(), nil
		}
	}
	return -1, it.Err()
}

// comparePrefix compares clustering values a with bound values b over
// the shorter of the two, by the column types.
func comparePrefix(types []*marshal.Type, a, b [][]byte) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		// NB: clustering values of CQL rows are never null, so nil and
		// empty compare alike (as empty, per the type's order).
		if c := marshal.Compare(types[i], a[i], b[i]); c != 0 {
			return c
		}
	}
	return 0
}

// compareBound is Cassandra's ClusteringComparator.compare of an
// unfiltered (a row, or a marker over a possibly shorter prefix) with a
// slice bound of kind bk over vals: values first, over the shorter
// prefix; then, at equal length, the kinds' ranks; else the shorter
// prefix's kind places it before or after the longer.
func compareBound(types []*marshal.Type, u *Unfiltered, vals [][]byte, bk BoundKind) int {
	if c := comparePrefix(types, u.Clustering, vals); c != 0 {
		return c
	}
	uk := ClusteringKind
	if u.Marker {
		uk = u.Kind
	}
	switch n, m := len(u.Clustering), len(vals); {
	case n == m:
		return cmp.Compare(uk.Order(), bk.Order())
	case n < m:
		return uk.ComparedToClustering()
	default:
		return -bk.ComparedToClustering()
	}
}

// startKind and endKind are the slice's bounds as ClusteringBound kinds.
func (b Bound) startKind() BoundKind {
	if b.Inclusive {
		return InclStartBound
	}
	return ExclStartBound
}

func (b Bound) endKind() BoundKind {
	if b.Inclusive {
		return InclEndBound
	}
	return ExclEndBound
}

// beforeStart reports whether an unfiltered is skipped before the slice
// start. As in Cassandra's SSTableIterator.handlePreSliceData the test is
// not strict: a marker equal to the start (an inclusive start marker at
// an inclusive slice start) is taken into the open deletion and reported
// by the bound synthesized at the start, so the stream never opens the
// same range twice.
func (st *sliceState) beforeStart(u *Unfiltered) bool {
	b := st.sl.Start
	return len(b.Values) > 0 && compareBound(st.types, u, b.Values, b.startKind()) <= 0
}

// afterEnd reports whether an unfiltered ends the slice: at or after the
// slice end, as in SSTableIterator's computeNext. A marker equal to the
// end is not returned; the bound synthesized at the end closes the
// deletion open there instead.
func (st *sliceState) afterEnd(u *Unfiltered) bool {
	b := st.sl.End
	return len(b.Values) > 0 && compareBound(st.types, u, b.Values, b.endKind()) >= 0
}

// track follows which range deletion is open after a marker.
func (st *sliceState) track(u *Unfiltered) {
	if !u.Marker {
		return
	}
	switch {
	case u.Kind.IsBoundary(), u.Kind.IsStart():
		st.open = u.MarkerDel
	default:
		st.open = LiveDeletion
	}
}

// synth fills u with a bound marker at the slice's start or end.
func (st *sliceState) synth(u *Unfiltered, start bool) {
	u.Marker, u.Static = true, false
	u.Cells, u.Complex = u.Cells[:0], u.Complex[:0]
	b := st.sl.End
	kind := InclEndBound
	if !b.Inclusive {
		kind = ExclEndBound
	}
	if start {
		b = st.sl.Start
		kind = InclStartBound
		if !b.Inclusive {
			kind = ExclStartBound
		}
	}
	u.Kind = kind
	u.Clustering = append(u.Clustering[:0], b.Values...)
	u.MarkerDel = st.open
}

// nextSliced is NextUnfiltered for a slice read: the static row first,
// then a jump to the row-index block holding the slice start, then the
// unfiltereds inside the slice, with range deletions open across its
// bounds reported as bound markers at the bounds.
func (s *Scanner) nextSliced() bool {
	st := s.slice
	if st.ended || s.err != nil {
		return false
	}
	if !st.jumped {
		if len(s.r.Schema.Static) > 0 && !st.staticDone {
			// The static row always comes first when the header has
			// static columns; return it before jumping.
			st.staticDone = true
			if !s.nextRaw() {
				return false
			}
			if s.u.Static {
				return true
			}
			st.jumped = true // no static row after all: stay on this row
			return s.sliceStep(true)
		}
		st.jumped = true
		if err := s.jump(); err != nil {
			s.err = err
			return false
		}
	}
	if st.pending {
		st.pending = false
		s.u, st.held = st.held, s.u
		return s.sliceStep(true)
	}
	return s.sliceStep(false)
}

// sliceStep filters the next unfiltered (have: s.u already holds one).
func (s *Scanner) sliceStep(have bool) bool {
	st := s.slice
	if st.empty {
		st.ended, s.inPartition = true, false
		return false
	}
	for {
		if !have && !s.nextRaw() {
			st.ended = true
			return false
		}
		have = false
		u := &s.u
		if !st.started {
			if st.beforeStart(u) {
				st.track(u)
				continue
			}
			st.started = true
			if !st.open.Live() {
				s.u, st.held = st.held, s.u
				st.synth(&s.u, true)
				st.pending = true
				return true
			}
		}
		if st.afterEnd(u) {
			st.ended = true
			s.inPartition = false
			if !st.open.Live() {
				st.synth(u, false)
				return true
			}
			return false
		}
		st.track(u)
		return true
	}
}

// jump moves the stream to the row-index block that holds the slice start
// (the last block whose first unfiltered is before it) and records the
// range deletion open there. Without a row index it stays put.
func (s *Scanner) jump() error {
	st := s.slice
	if len(st.sl.Start.Values) == 0 {
		return nil
	}
	blocks, err := s.r.rowIndexBlocks(s.st.ctx, s.ph.Key, s.ph.Position)
	if err != nil || len(blocks) < 2 {
		return err
	}
	var probe Scanner
	probe.r, probe.dc = s.r, decoder{schema: s.r.Schema, header: &s.r.Stats.Header, version: s.r.Version}
	probe.st.ctx = s.st.ctx
	first := func(i int) ([][]byte, error) {
		probe.st.resetPoint(s.r.data, s.r.dataPath, s.ph.Position+blocks[i].offset, pointReadChunk)
		probe.inPartition, probe.err = true, nil
		if !probe.nextRaw() {
			if probe.err == nil {
				probe.err = fmt.Errorf("read row index block %d of the partition at %d: no unfiltered at offset %d", i, s.ph.Position, blocks[i].offset)
			}
			return nil, probe.err
		}
		return probe.u.Clustering, nil
	}
	// Binary search for the last block i >= 1 whose first clustering is
	// strictly before the start (equal prefixes may straddle blocks).
	lo, hi := 0, len(blocks)-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		c, err := first(mid)
		if err != nil {
			return err
		}
		if comparePrefix(st.types, c, st.sl.Start.Values) < 0 {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	if lo == 0 {
		return nil
	}
	s.st.resetPoint(s.r.data, s.r.dataPath, s.ph.Position+blocks[lo].offset, streamChunk)
	st.open = blocks[lo].open
	sliceJumps.Add(1)
	if !st.open.Live() {
		sliceJumpsIntoDeletion.Add(1)
	}
	return nil
}

// Counters of slice reads that used the row index, for tests and metrics:
// jumps past the first block, and jumps into an open range deletion.
var sliceJumps, sliceJumpsIntoDeletion atomic.Int64
