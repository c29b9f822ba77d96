package reconcile

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/sstable-flight/sstable-flight/internal/invariants"
	"github.com/sstable-flight/sstable-flight/sstable"
	"github.com/sstable-flight/sstable-flight/sstable/marshal"
	"github.com/sstable-flight/sstable-flight/token"
)

// Options configure a Merger.
type Options struct {
	// Now is the read time in seconds since the epoch: cells and rows
	// whose TTL expires at or before it are dead. The package never reads
	// the clock.
	Now int64
	// Columns, when not nil, has one entry per Table.Columns: the values
	// of columns it leaves false are not built (null in every row), but
	// their cells still decide whether a row exists, as in CQL, where
	// SELECT a FROM t returns a row that only other columns keep alive.
	Columns []bool
	// Context, when set, is the context of the request the merge
	// serves: every read of the SSTables' files it makes, when they are
	// guarded (sstable.Options.IOGuard), stops waiting once it ends and
	// fails the merge with its error (sstable.Reader.GetContext). The
	// merge never looks at its deadline: it is no clock.
	Context context.Context
}

// ctx is the merge's context, Background when Options has none.
func (o *Options) ctx() context.Context {
	if o.Context == nil {
		return context.Background()
	}
	return o.Context
}

// source is one SSTable's scanner and its place in the merge.
type source struct {
	r    *sstable.Reader
	s    *sstable.Scanner
	cols [2][]int // header column index → table column index (0 regular, 1 static)
	// show is cols[0] with -1 for the columns Options.Columns leaves out:
	// the fast path sets the values of the others.
	show []int
	// plain: every regular column of this SSTable's header maps to a
	// plain table column, so its rows never need the per-cell check.
	plain bool

	has      bool // positioned on a partition
	key      []byte
	token    token.Token
	tokenSet bool // token computed (only needed to order several sources)

	consumed bool // u was used by the row returned last: advance before the next
	done     bool // its partition is finished: move to the next one lazily

	in   bool                // this source takes part in the current partition
	u    *sstable.Unfiltered // current unfiltered of the partition, or nil when done
	open sstable.DeletionTime
}

// Merger reconciles the partitions of several SSTables of one table into
// the live rows CQL returns, partition by partition in token order and
// row by row in clustering order. It applies every deletion and TTL rule
// even when one SSTable holds the whole partition.
type Merger struct {
	t    *Table
	opts Options
	srcs []*source
	err  error
	// single is the one source of a merge over one SSTable (Next's fast
	// path), else nil.
	single *source

	// Current partition.
	inPartition bool
	partDel     sstable.DeletionTime
	cover       sstable.DeletionTime // one source: partDel or the open range tombstone's, whichever supersedes
	// hot: Next evaluates simple rows itself: one source whose cells are
	// plain, at most 64 columns, no deletion covering the rows, and the
	// regular values hold just the columns in setBits (fastValid).
	hot           bool
	plainSrc      bool // one source, its cells plain, at most 64 columns
	clustered     bool // the table has clustering columns
	emitted       bool // a live row of this partition was returned
	staticVals    []Value
	staticArena   []byte
	hasStatic     bool // some static column is live
	hiddenLive    bool // resolve met a live cell of a column Options.Columns leaves out
	hasStaticCols bool // the table has static columns
	noStaticOnly  bool // never return a static-only row (a clustering slice)

	row          Row
	arena        []byte
	noClustering [0][]byte
	// setBits has a bit per table column (64 per word, at least one
	// word): the regular columns the last fast row set. While fastValid,
	// m.row.Values' other regular entries are null.
	setBits   []uint64
	nextBits  []uint64 // scratch for the next setBits
	fastValid bool

	// Scratch reused per row.
	rowState
	at      []*source
	part    []*source       // several sources: those holding the current partition
	hashed  *source         // several sources: the one whose key setToken hashed last
	dropped []int64         // per table column: drop time, or NoTimestamp
	plain   []bool          // per table column: simple, not a counter, never dropped
	statics []int           // indexes of the static table columns
	simple  []*sstable.Cell // winning cell per table column
	complex [][]cellRef     // cells per multi-cell table column
	cdel    []sstable.DeletionTime
	parts   [][]byte
	shards  []shard
	ctxs    [][]byte
}

type cellRef struct {
	c *sstable.Cell
}

// New starts a merge over the readers' whole ring.
func New(t *Table, readers []*sstable.Reader, opts Options) (*Merger, error) {
	return NewRange(t, readers, opts, 0, 0)
}

// NewRange merges the partitions whose tokens are in (start, end], with
// Cassandra's wrap-around and (T, T] = full ring.
func NewRange(t *Table, readers []*sstable.Reader, opts Options, start, end int64) (*Merger, error) {
	ctx := opts.ctx()
	return newMerger(t, readers, opts, func(r *sstable.Reader) (*sstable.Scanner, error) {
		return r.ScanRangeContext(ctx, start, end)
	})
}

// NewKey merges the one partition with this serialized key: each SSTable
// finds it through its bloom filter and index, and every rule of a full
// merge applies.
func NewKey(t *Table, readers []*sstable.Reader, opts Options, key []byte) (*Merger, error) {
	ctx := opts.ctx()
	return newMerger(t, readers, opts, func(r *sstable.Reader) (*sstable.Scanner, error) {
		return r.GetContext(ctx, key)
	})
}

// NewSlice merges the rows of one partition within a clustering slice,
// each SSTable starting at the row-index block that holds the slice
// start. As in CQL with a clustering restriction, a partition with static
// data but no live row in the slice returns no row.
func NewSlice(t *Table, readers []*sstable.Reader, opts Options, key []byte, sl sstable.Slice) (*Merger, error) {
	ctx := opts.ctx()
	m, err := newMerger(t, readers, opts, func(r *sstable.Reader) (*sstable.Scanner, error) {
		return r.GetSliceContext(ctx, key, sl)
	})
	if m != nil {
		m.noStaticOnly = true
	}
	return m, err
}

func newMerger(t *Table, readers []*sstable.Reader, opts Options, open func(*sstable.Reader) (*sstable.Scanner, error)) (*Merger, error) {
	n := len(t.Columns)
	if opts.Columns != nil && len(opts.Columns) != n {
		return nil, fmt.Errorf("start merge: %d column flags for %d columns", len(opts.Columns), n)
	}
	d := t.derive() // shared, read only
	m, _ := d.mergers.Get().(*Merger)
	if m == nil {
		m = &Merger{}
		m.simple = make([]*sstable.Cell, n)
		m.complex = make([][]cellRef, n)
		m.cdel = make([]sstable.DeletionTime, n)
		m.staticVals = make([]Value, n)
		m.row.Values = make([]Value, n)
		m.setBits = make([]uint64, n/64+1)
		m.nextBits = make([]uint64, n/64+1)
	}
	m.reset(t, opts)
	m.dropped, m.plain, m.statics = d.dropped, d.plain, d.statics
	m.hasStaticCols = len(d.statics) > 0
	for _, r := range readers {
		cols, err := t.columnMap(r)
		if err != nil {
			return nil, err
		}
		s, err := open(r)
		if err != nil {
			return nil, err
		}
		src := &source{r: r, s: s, cols: cols, plain: true}
		src.show = cols[0]
		for _, col := range cols[0] {
			src.plain = src.plain && col >= 0 && m.plain[col]
		}
		if opts.Columns != nil {
			src.show = make([]int, len(cols[0]))
			for i, col := range cols[0] {
				if col >= 0 && !opts.Columns[col] {
					col = -1
				}
				src.show[i] = col
			}
		}
		m.srcs = append(m.srcs, src)
		m.advancePartition(src)
	}
	orderSources(m.srcs)
	m.clustered = len(t.Clustering) > 0
	m.row.Clustering = m.noClustering[:]
	if len(m.srcs) == 1 {
		m.single = m.srcs[0]
		m.single.in = true // the one source takes part in every partition
		m.plainSrc = m.single.plain && len(m.setBits) == 1
	}
	return m, m.err
}

// orderSources puts the sources in the order Cassandra's point lookup of
// a clustering reads SSTables: by maximum write time, latest first, and on
// a tie in the callers' order (oldest first, as Cassandra's live set
// lists them). A merged row takes its clustering from the first of the
// sources at its position, so where values the comparator calls equal
// differ in bytes (NaNs with different payloads, decimals with different
// scales), the row carries those of the SSTable with the latest writes.
//
// NB: this is the rule of SELECT ... WHERE p = ? AND c = ?, which reads
// the SSTables newest first and keeps the first one's clustering. Other
// CQL reads of the same data differ: a partition or slice read keeps the
// clustering of the last input its merge heap reduces, which depends on
// the rows before it and the SSTables' clustering lower bounds, and a
// range scan merges in its SSTable set's order. Only the point lookup's
// choice follows from the data, so every read here follows it.
func orderSources(srcs []*source) {
	slices.SortStableFunc(srcs, func(a, b *source) int {
		return cmp.Compare(b.r.Stats.Stats.MaxTimestamp, a.r.Stats.Stats.MaxTimestamp)
	})
}

// reset makes a new or released merger a fresh one for t: per-column
// scratch is kept (cleared), everything else starts over.
func (m *Merger) reset(t *Table, opts Options) {
	*m = Merger{
		t: t, opts: opts,
		simple: m.simple, complex: m.complex, cdel: m.cdel, staticVals: m.staticVals,
		row:  Row{Values: m.row.Values},
		srcs: m.srcs[:0], at: m.at[:0], part: m.part[:0],
		setBits: m.setBits, nextBits: m.nextBits,
		arena: m.arena[:0], staticArena: m.staticArena[:0],
		parts: m.parts[:0], shards: m.shards[:0], ctxs: m.ctxs[:0],
		rowState: rowState{touched: m.touched[:0]},
	}
	clear(m.simple)
	for i := range m.complex {
		clear(m.complex[i])
		m.complex[i] = m.complex[i][:0]
	}
	for i := range m.cdel {
		m.cdel[i] = sstable.LiveDeletion
	}
	clear(m.staticVals)
	clear(m.row.Values)
	clear(m.setBits)
}

// Release gives the merger's scanners back for reuse by later point reads
// (sstable.Scanner.Release), and the merger to its table for the next
// merge. The merger and every row it returned are dead after it. Release
// it once: a second Release of a merger a later merge took would hand
// that merge's scanners back while it reads. Invariants builds panic on
// a second Release (release.go).
func (m *Merger) Release() {
	t := m.t
	if t == nil {
		if invariants.Enabled {
			panic("reconcile: Merger released twice")
		}
		return // released already
	}
	for i, src := range m.srcs {
		src.s.Release()
		src.s = nil
		m.srcs[i] = nil
	}
	clear(m.at)
	clear(m.part)
	// NB: the options go too: a pooled merger must not keep a finished
	// request's context (or its column flags) alive.
	m.t, m.single, m.hashed, m.opts = nil, nil, nil, Options{}
	if invariants.Enabled {
		m = m.retire()
	}
	t.derive().mergers.Put(m)
}

// Err is the first error met.
func (m *Merger) Err() error { return m.err }

// Row is the current row.
func (m *Merger) Row() *Row { return &m.row }

func (m *Merger) advancePartition(src *source) {
	src.has = src.s.NextPartition()
	if !src.has {
		if err := src.s.Err(); err != nil && m.err == nil {
			m.err = err
		}
		return
	}
	// The scanner keeps the key intact until its next partition.
	src.key = src.s.Partition().Key
	src.tokenSet = false
}

// setToken gives the source's key its token. Overlapping SSTables mostly
// hold the same next key, so the source that hashed last is asked first:
// one comparison of keys instead of a hash (or of one per source).
func (m *Merger) setToken(src *source) {
	if o := m.hashed; o != nil && o != src && o.has && o.tokenSet && bytes.Equal(o.key, src.key) {
		src.token, src.tokenSet = o.token, true
		return
	}
	src.token, src.tokenSet = token.Of(src.key), true
	m.hashed = src
}

func (m *Merger) advanceUnfiltered(src *source) {
	if src.s.NextUnfiltered() {
		src.u = src.s.Unfiltered()
		return
	}
	src.u = nil
	if err := src.s.Err(); err != nil && m.err == nil {
		m.err = err
	}
}

// nextMerged is Next for a merge over several SSTables.
func (m *Merger) nextMerged() bool {
	for m.err == nil {
		if m.inPartition {
			if m.nextRow() {
				return true
			}
			m.inPartition = false
			if m.finishPartition() {
				return true
			}
			continue
		}
		if !m.startPartition() {
			return false
		}
	}
	return false
}

// startPartition gathers the sources holding the next partition key.
func (m *Merger) startPartition() bool {
	// Sources leave their finished partition only now: the last row
	// returned (a static-only row included) aliases their keys until then.
	for _, src := range m.srcs {
		if src.done {
			src.done = false
			m.advancePartition(src)
		}
	}
	if m.err != nil {
		return false
	}
	var first *source
	n := 0
	for _, src := range m.srcs {
		src.in = false
		if src.has {
			n++
		}
	}
	for _, src := range m.srcs {
		if !src.has {
			continue
		}
		if n > 1 && !src.tokenSet {
			// NB: tokens order partitions across sources; one source's
			// order is already right, so a lone source computes none. A
			// key another source already hashed shares its token.
			m.setToken(src)
		}
		if first == nil || (n > 1 && token.CompareDecorated(src.token, src.key, first.token, first.key) < 0) {
			first = src
		}
	}
	if first == nil {
		return false
	}
	// The key is stable until the sources leave this partition.
	m.row.Key, m.row.token, m.row.tokenSet = first.key, first.token, first.tokenSet
	m.partDel = sstable.LiveDeletion
	m.emitted = false
	m.part = m.part[:0]
	for _, src := range m.srcs {
		if src.has && (src == first || n > 1 && src.token == first.token && bytes.Equal(src.key, first.key)) {
			m.part = append(m.part, src)
			src.in = true
			src.open = sstable.LiveDeletion
			m.partDel = maxDeletion(m.partDel, src.s.Partition().Deletion)
			m.advanceUnfiltered(src)
		}
	}
	m.mergeStatic()
	m.beginRows()
	m.inPartition = true
	return m.err == nil
}

// mergeStatic merges the sources' static rows (always first when present)
// into the partition's static values.
func (m *Merger) mergeStatic() {
	if !m.hasStaticCols {
		return // no SSTable has static columns, so none has a static row
	}
	m.resetRow()
	any := false
	for _, src := range m.srcs {
		if src.in && src.u != nil && src.u.Static {
			m.collect(src, src.u)
			any = true
		}
	}
	m.staticArena = m.staticArena[:0]
	m.hasStatic = false
	for i := range m.staticVals {
		m.staticVals[i] = Value{Timestamp: NoTimestamp}
	}
	if any {
		// Static rows take no range deletion; the partition deletion and
		// their own row deletion apply.
		del := maxDeletion(m.partDel, m.rowDel)
		m.staticArena = m.resolve(m.staticArena, m.staticVals, del, true)
		m.hasStatic = m.hiddenLive
		for i, c := range m.t.Columns {
			if c.Static && m.staticVals[i].Bytes != nil {
				m.hasStatic = true
			}
		}
		for _, src := range m.srcs {
			if src.in && src.u != nil && src.u.Static {
				m.advanceUnfiltered(src)
			}
		}
	}
}

// finishPartition moves the sources past the partition and, when no row
// was live but static columns are, returns the static-only row CQL shows.
func (m *Merger) finishPartition() bool {
	m.advanceConsumed()
	for _, src := range m.part {
		src.done = true
		src.in = false
	}
	if m.emitted || !m.hasStatic || m.noStaticOnly || m.err != nil {
		return false
	}
	m.fillStaticOnly()
	return true
}

// nextRow merges the sources' unfiltereds up to the next live row.
func (m *Merger) nextRow() bool {
	m.advanceConsumed()
	for m.err == nil {
		// The smallest position among the partition's sources (the first
		// of equals), and every source at it: one comparison per source.
		var min *source
		at := m.at[:0]
		for _, src := range m.part {
			if src.u == nil {
				continue
			}
			if min != nil {
				c := m.compareUnfiltered(src.u, min.u)
				if c > 0 {
					continue
				}
				if c == 0 {
					at = append(at, src)
					continue
				}
				at = at[:0]
			}
			min = src
			at = append(at, src)
		}
		m.at = at
		if min == nil {
			return false
		}
		if min.u.Marker {
			// Markers apply one at a time (another source's marker at the
			// same bound is the next turn's).
			m.applyMarker(min, min.u)
			m.advanceUnfiltered(min)
			continue
		}
		rtDel := sstable.LiveDeletion
		for _, src := range m.part {
			rtDel = maxDeletion(rtDel, src.open)
		}
		// NB: a row never compares equal to a marker (a bound sorts
		// before or after the rows it prefixes), so every source in at has
		// a row at this clustering.
		pos := min.u
		var live, ok bool
		if len(at) == 1 {
			live, ok = m.fastRow(min, pos, maxDeletion(m.partDel, rtDel))
		} else {
			live, ok = m.fastMerge(at, rtDel)
		}
		if ok {
			if live {
				return m.emit(at)
			}
			for _, src := range at {
				m.advanceUnfiltered(src)
			}
			continue
		}
		m.fastValid = false
		m.resetRow()
		for _, src := range at {
			m.collect(src, src.u)
		}
		del := maxDeletion(maxDeletion(m.partDel, rtDel), m.rowDel)
		if m.evaluate(del, pos.Clustering) {
			return m.emit(at)
		}
		for _, src := range at {
			m.advanceUnfiltered(src)
		}
	}
	return false
}

// emit returns the row merged from the sources at its clustering. Its
// values alias their buffers, so they advance only when the caller asks
// for the next row.
func (m *Merger) emit(at []*source) bool {
	for _, src := range at {
		src.consumed = true
	}
	m.emitted = true
	return true
}

func (m *Merger) advanceConsumed() {
	for _, src := range m.part {
		if src.consumed {
			src.consumed = false
			m.advanceUnfiltered(src)
		}
	}
}

// applyMarker records the range deletion a source has open after it.
func (m *Merger) applyMarker(src *source, u *sstable.Unfiltered) {
	if u.Kind.IsStart() || u.Kind.IsBoundary() {
		src.open = u.MarkerDel
	} else {
		src.open = sstable.LiveDeletion
	}
}

// compareUnfiltered orders rows and range tombstone bounds as Cassandra's
// ClusteringComparator does: by values, then a bound's side.
func (m *Merger) compareUnfiltered(a, b *sstable.Unfiltered) int {
	types := m.t.Clustering
	n := min(len(a.Clustering), len(b.Clustering))
	for i := 0; i < n; i++ {
		if c := marshal.Compare(types[i], a.Clustering[i], b.Clustering[i]); c != 0 {
			return c
		}
	}
	wa, wb := boundWeight(a), boundWeight(b)
	switch {
	case len(a.Clustering) == len(b.Clustering):
		return wa - wb
	case len(a.Clustering) < len(b.Clustering):
		return wa
	default:
		return -wb
	}
}

// boundWeight is ClusteringPrefix.Kind.comparedToClustering: where a
// bound sorts against the rows its values prefix.
func boundWeight(u *sstable.Unfiltered) int {
	if !u.Marker {
		return 0
	}
	switch u.Kind {
	case sstable.InclStartBound, sstable.ExclEndBound, sstable.ExclEndInclStartBoundary:
		return -1
	}
	return 1
}
