package overlay

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/sstable-flight/sstable-flight/commitlog"
	"github.com/sstable-flight/sstable-flight/sstable/metadata"
	"github.com/sstable-flight/sstable-flight/token"
)

// DefaultMaxBytes bounds what an Overlay holds when
// Config.MaxBytes is 0.
const DefaultMaxBytes = 256 << 20

// Config configures an Overlay.
type Config struct {
	Dir string // the commit log directory
	// MaxBytes bounds the entries held, each its mutation's bytes and
	// entryOverhead (about the heap they take); past it updates are
	// dropped and the tables say so until the segments they were in are
	// gone (0: DefaultMaxBytes).
	MaxBytes int64
	// Tables are the tables whose updates are kept, by id, with their
	// schemas, until SetTables replaces them.
	Tables map[commitlog.TableID]Table
}

// Table is what the overlay needs of a table's schema: its serialization
// header with every column (what its runs are written under, so a
// reader maps their columns as it maps an SSTable's), and the types of
// columns dropped since, which old mutations may still write.
type Table struct {
	Name    string // keyspace.table, for messages
	Header  metadata.SerializationHeader
	Dropped map[string]string // name → marshal type
}

// Overlay keeps the updates of the configured tables that the commit log
// holds. Poll reads what the log gained (one Poll at a time: a tailing
// goroutine's); the other methods may run beside it.
//
// An entry the schemas of the moment cannot decode (a table or a column
// they do not have yet: the schema is read after the write) is kept as
// it is, pending, and decoded again after SetTables; meanwhile the
// tables it writes say so. Memory is the mutations' bytes, each entry
// counted once however many updates of it are kept.
type Overlay struct {
	cfg     Config
	tail    *commitlog.Tailer
	schemas atomic.Pointer[commitlog.SchemaMap]

	mu      sync.Mutex
	tables  map[commitlog.TableID]Table
	logs    map[commitlog.TableID]*tableLog
	pending []*pendingEntry
	retry   bool  // SetTables since pending was last tried
	bytes   int64 // the cost of the entries kept or pending
	// dropped holds the segments some entry of which was not kept for
	// every table (the bound), with why: while one is on disk, no table
	// reflects the log whole. A table's own losses are its log's.
	dropped map[int64]error
	broken  []error // the tailer's damage in segments on disk
	lostGen uint64  // changes with dropped and broken
	unknown int64   // entries skipped for a table the schemas do not have
	// skip holds the tables unknown to schemas read after their entries
	// were written: their entries are skipped without waiting.
	skip    map[commitlog.TableID]bool
	through commitlog.Position
}

// entry is one kept mutation: its bytes (copied), its messaging version
// and position, and how many kept updates share it.
type entry struct {
	mutation []byte
	mv       int
	pos      commitlog.Position
	refs     int
}

// entryOverhead is what holding an entry costs besides its mutation's
// bytes: the entry, its updates and their index, the copy's rounding.
// Measured (BenchmarkScanUnflushedTail: 6.7 bytes of heap per byte of
// 41-byte mutations held) at about 230 bytes; counted so that MaxBytes
// bounds the heap, not only the mutations.
const entryOverhead = 224

// cost is what the entry counts against MaxBytes.
func (e *entry) cost() int64 { return int64(len(e.mutation)) + entryOverhead }

// pendingEntry is an entry the schemas could not decode yet, with the
// tables its updates write as far as they were read.
type pendingEntry struct {
	*entry
	tables []commitlog.TableID
}

// update is one kept update of a table: the partition it writes.
type update struct {
	e   *entry
	tok token.Token
	key []byte // aliases e.mutation
}

type tableLog struct {
	updates []update
	gen     uint64 // changes with updates, pending and lost
	pending int    // pending entries that write the table
	// lost holds the segments an update of the table in which could not
	// be decoded, with why.
	lost map[int64]error
}

// New is an overlay of cfg.Dir, empty until the first Poll.
func New(cfg Config) *Overlay {
	if cfg.MaxBytes <= 0 {
		cfg.MaxBytes = DefaultMaxBytes
	}
	o := &Overlay{cfg: cfg, tail: commitlog.NewTailer(cfg.Dir, commitlog.Options{}),
		logs: map[commitlog.TableID]*tableLog{}, dropped: map[int64]error{}, skip: map[commitlog.TableID]bool{}}
	o.SetTables(cfg.Tables)
	return o
}

// SetTables replaces the tables whose updates are kept (the schema
// changed); the next Poll decodes the pending entries again.
func (o *Overlay) SetTables(tables map[commitlog.TableID]Table) {
	schemas := commitlog.SchemaMap{}
	for id, t := range tables {
		schemas[id] = decodingSchema(t)
	}
	o.mu.Lock()
	o.tables = tables
	o.retry = true
	o.mu.Unlock()
	o.schemas.Store(&schemas)
}

// decodingSchema is the decoder's view of a table: every column's type by
// name, dropped ones included.
func decodingSchema(t Table) *commitlog.TableSchema {
	ts := &commitlog.TableSchema{Name: t.Name, Key: t.Header.KeyType, Clustering: t.Header.ClusteringTypes, Columns: map[string]string{}}
	for name, typ := range t.Dropped {
		ts.Columns[name] = typ
	}
	for _, cols := range [][]metadata.ColumnType{t.Header.StaticColumns, t.Header.RegularColumns} {
		for _, c := range cols {
			ts.Columns[c.Name] = c.Type
		}
	}
	return ts
}

// Poll reads what the commit log gained since the last Poll and keeps the
// updates of the configured tables, after decoding again the pending
// entries if the tables changed. Segments Cassandra deleted take their
// updates with them: what they held is flushed. The error is the log's
// damage or listing failure, which the tables report until it is gone.
func (o *Overlay) Poll() error {
	dec := commitlog.NewDecoder(o.schemas.Load())
	o.mu.Lock()
	var again []*pendingEntry
	if o.retry {
		again, o.pending, o.retry = o.pending, nil, false
		for _, p := range again {
			o.unpend(p)
			o.bytes -= p.cost()
		}
	}
	o.mu.Unlock()
	for _, p := range again {
		o.keep(dec, p.mutation, p.mv, p.pos, true)
	}
	var last commitlog.Position
	polled, err := o.tail.Poll(func(e commitlog.Entry, mv int) {
		o.keep(dec, e.Mutation, mv, e.Position, false)
		last = e.Position
	})
	o.mu.Lock()
	defer o.mu.Unlock()
	if polled.Entries > 0 {
		o.through = last
	}
	if len(polled.Gone) > 0 {
		o.forget(polled.Gone)
	}
	broken := o.tail.Broken()
	if err != nil && len(broken) == 0 {
		broken = []error{err} // the listing failed: nothing is known
	}
	if len(broken) != len(o.broken) {
		o.lostGen++
	}
	o.broken = broken
	if err != nil {
		return fmt.Errorf("poll the commit log: %w", err)
	}
	return nil
}

// forget drops what deleted segments held; o.mu is held.
func (o *Overlay) forget(ids []int64) {
	gone := map[int64]bool{}
	for _, id := range ids {
		gone[id] = true
		if _, ok := o.dropped[id]; ok {
			delete(o.dropped, id)
			o.lostGen++
		}
	}
	for _, tl := range o.logs {
		for id := range tl.lost {
			if gone[id] {
				delete(tl.lost, id)
				tl.gen++
			}
		}
		n := len(tl.updates)
		tl.updates = slices.DeleteFunc(tl.updates, func(u update) bool {
			if gone[u.e.pos.SegmentID] {
				o.release(u.e)
				return true
			}
			return false
		})
		if len(tl.updates) != n {
			tl.gen++
		}
	}
	o.pending = slices.DeleteFunc(o.pending, func(p *pendingEntry) bool {
		if gone[p.pos.SegmentID] {
			o.unpend(p)
			o.bytes -= p.cost()
			return true
		}
		return false
	})
}

// release drops one kept update's hold on its entry; o.mu is held.
func (o *Overlay) release(e *entry) {
	if e.refs--; e.refs == 0 {
		o.bytes -= e.cost()
	}
}

// unpend undoes what a pending entry marks on its tables; o.mu is held.
func (o *Overlay) unpend(p *pendingEntry) {
	for _, id := range p.tables {
		if tl := o.logs[id]; tl != nil {
			tl.pending--
			tl.gen++
		}
	}
}

// keep decodes one entry and keeps its updates of configured tables,
// copying the mutation (the tailer's buffer) unless retried (a pending
// entry's own copy); an entry skipped is never copied. An entry the
// schemas cannot decode is kept pending the first time; again after SetTables (retried: the
// schemas were read after the entry was written), a table still unknown
// was dropped since, and is skipped, while a column still unknown loses
// the entry.
func (o *Overlay) keep(dec *commitlog.Decoder, mutation []byte, mv int, pos commitlog.Position, retried bool) {
	type found struct {
		id  commitlog.TableID
		key []byte
	}
	var ups []found
	dec.Reset(mutation, mv)
	for dec.NextUpdate() {
		u := dec.Update()
		ups = append(ups, found{u.Table, u.Key})
	}
	err := dec.Err()
	o.mu.Lock()
	defer o.mu.Unlock()
	var me *commitlog.MutationError
	errors.As(err, &me)
	if errors.Is(err, commitlog.ErrUnknownTable) && len(ups) == 0 && me != nil && (retried || o.skip[me.Table]) {
		// Not a table of the schemas read after it was written: a system
		// table, or one dropped since. Its next entries are skipped at
		// once.
		o.skip[me.Table] = true
		o.unknown++
		return
	}
	size := int64(len(mutation)) + entryOverhead
	if o.bytes+size > o.cfg.MaxBytes {
		o.drop(pos, fmt.Errorf("keep the commit log's updates: over the %d bytes the overlay may hold (--commitlog-overlay-max-bytes)", o.cfg.MaxBytes), nil)
		return
	}
	kept := &entry{mutation: mutation, mv: mv, pos: pos}
	if !retried {
		// The tailer lends the bytes: copy what is kept, its keys with it.
		kept.mutation = bytes.Clone(mutation)
		for i := range ups {
			// The decoder slices keys out of the mutation: the same bytes
			// of the copy (a key it did not slice so is copied alone).
			k := ups[i].key
			if off := cap(mutation) - cap(k); len(k) > 0 && off >= 0 && off+len(k) <= len(mutation) && &mutation[off] == &k[0] {
				ups[i].key = kept.mutation[off : off+len(k)]
			} else {
				ups[i].key = bytes.Clone(k)
			}
		}
	}
	if !retried && (errors.Is(err, commitlog.ErrUnknownTable) || errors.Is(err, commitlog.ErrUnknownColumn)) {
		// The schema may not be read yet: decode it again when it changes.
		p := &pendingEntry{entry: kept}
		for _, u := range ups {
			p.tables = append(p.tables, u.id)
		}
		if me != nil && me.Table != (commitlog.TableID{}) {
			p.tables = append(p.tables, me.Table)
		}
		for _, id := range p.tables {
			o.log(id).pending++
			o.log(id).gen++
		}
		o.pending = append(o.pending, p)
		o.bytes += size
		return
	}
	if err != nil {
		// The tables written before the failure and the one that failed
		// lose the entry; with no table id read, every table does.
		var tables []commitlog.TableID
		for _, u := range ups {
			tables = append(tables, u.id)
		}
		if me != nil && me.Table != (commitlog.TableID{}) {
			tables = append(tables, me.Table)
		}
		o.drop(pos, fmt.Errorf("decode the commit log entry ending at segment %d offset %d: %w", pos.SegmentID, pos.Offset, err), tables)
		return
	}
	for _, u := range ups {
		tl := o.log(u.id)
		tl.updates = append(tl.updates, update{e: kept, tok: token.Of(u.key), key: u.key})
		tl.gen++
		kept.refs++
	}
	if kept.refs > 0 {
		o.bytes += size
	}
}

// log is table id's log, made on first use; o.mu is held.
func (o *Overlay) log(id commitlog.TableID) *tableLog {
	tl := o.logs[id]
	if tl == nil {
		tl = &tableLog{}
		o.logs[id] = tl
	}
	return tl
}

// drop records an entry not kept for tables (nil: every table), and
// why; o.mu is held.
func (o *Overlay) drop(pos commitlog.Position, why error, tables []commitlog.TableID) {
	if tables == nil {
		if _, ok := o.dropped[pos.SegmentID]; !ok {
			o.dropped[pos.SegmentID] = why
			o.lostGen++
		}
		return
	}
	for _, id := range tables {
		tl := o.log(id)
		if tl.lost == nil {
			tl.lost = map[int64]error{}
		}
		if _, ok := tl.lost[pos.SegmentID]; !ok {
			tl.lost[pos.SegmentID] = why
			tl.gen++
		}
	}
}

// Generation changes whenever what Runs would seal for table id changes:
// its updates, its pending entries, or what the overlay lost.
func (o *Overlay) Generation(id commitlog.TableID) uint64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	g := o.lostGen
	if tl := o.logs[id]; tl != nil {
		g += tl.gen
	}
	return g
}

// Lost says why no table reflects the log whole (its bound hit, damage
// in the log), nil when nothing is lost for every table (Runs says a
// table's own losses).
func (o *Overlay) Lost() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.lostLocked()
}

func (o *Overlay) lostLocked() error {
	if len(o.broken) > 0 {
		return fmt.Errorf("the commit log cannot be read: %w", o.broken[0])
	}
	for _, err := range o.dropped {
		return err
	}
	return nil
}

// Stats are the overlay's gauges and counters, for metrics.
type Stats struct {
	Bytes   int64 // held: the entries kept or pending, with their overhead
	Updates int   // updates kept
	Pending int   // entries not decodable yet
	Unknown int64 // entries skipped: they wrote a table the schemas do not have
	Lost    bool  // some update is not kept for every table (Lost)
	// LostTables counts the tables an update of which could not be
	// decoded, in a segment still on disk.
	LostTables int
	Through    commitlog.Position
}

// Stats returns the overlay's state now.
func (o *Overlay) Stats() Stats {
	o.mu.Lock()
	defer o.mu.Unlock()
	st := Stats{Bytes: o.bytes, Pending: len(o.pending), Unknown: o.unknown, Lost: o.lostLocked() != nil, Through: o.through}
	for _, tl := range o.logs {
		st.Updates += len(tl.updates)
		if len(tl.lost) > 0 {
			st.LostTables++
		}
	}
	return st
}

// Bytes is what the entries kept or pending cost (Stats.Bytes).
func (o *Overlay) Bytes() int64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.bytes
}
