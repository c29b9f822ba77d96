package overlay

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/sstable-flight/sstable-flight/commitlog"
	"github.com/sstable-flight/sstable-flight/sstable/metadata"
	"github.com/sstable-flight/sstable-flight/token"
)

// DefaultMaxBytes bounds the mutation bytes an Overlay keeps when
// Config.MaxBytes is 0.
const DefaultMaxBytes = 256 << 20

// Config configures an Overlay.
type Config struct {
	Dir string // the commit log directory
	// MaxBytes bounds the mutation bytes kept; past it updates are
	// dropped and Lost says so (0: DefaultMaxBytes).
	MaxBytes int64
	// Tables are the tables whose updates are kept, by id, with their
	// schemas.
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
// goroutine's); Runs, Lost and Bytes may run beside it.
//
// Not yet done: Lost is never cleared (it should be once the segments
// whose updates were dropped are gone), and an entry of several kept
// updates is counted once per update.
type Overlay struct {
	cfg     Config
	schemas commitlog.SchemaMap
	tail    *commitlog.Tailer
	dec     *commitlog.Decoder

	mu      sync.Mutex
	tables  map[commitlog.TableID]*tableLog
	bytes   int64
	lost    error // why updates are missing (the bound, damage); nil while whole
	unknown int64 // entries skipped for an update of a table not configured
}

// entry is one kept mutation: its bytes (copied), its messaging version
// and position.
type entry struct {
	mutation []byte
	mv       int
	pos      commitlog.Position
}

// update is one kept update of a table: the partition it writes.
type update struct {
	e   *entry
	tok token.Token
	key []byte // aliases e.mutation
}

type tableLog struct{ updates []update }

// New is an overlay of cfg.Dir, empty until the first Poll.
func New(cfg Config) *Overlay {
	if cfg.MaxBytes <= 0 {
		cfg.MaxBytes = DefaultMaxBytes
	}
	schemas := commitlog.SchemaMap{}
	for id, t := range cfg.Tables {
		schemas[id] = decodingSchema(t)
	}
	return &Overlay{cfg: cfg, schemas: schemas, tail: commitlog.NewTailer(cfg.Dir, commitlog.Options{}),
		dec: commitlog.NewDecoder(schemas), tables: map[commitlog.TableID]*tableLog{}}
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
// updates of the configured tables. Segments Cassandra deleted take their
// updates with them: what they held is flushed.
func (o *Overlay) Poll() error {
	var errs []error
	polled, err := o.tail.Poll(func(e commitlog.Entry, mv int) {
		if err := o.keep(e, mv); err != nil {
			errs = append(errs, err)
		}
	})
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(polled.Gone) > 0 {
		gone := map[int64]bool{}
		for _, id := range polled.Gone {
			gone[id] = true
		}
		for _, tl := range o.tables {
			tl.updates = slices.DeleteFunc(tl.updates, func(u update) bool {
				if gone[u.e.pos.SegmentID] {
					o.bytes -= int64(len(u.e.mutation)) // NB: per update: an entry of several kept updates counts once each
					return true
				}
				return false
			})
		}
	}
	if err != nil && o.lost == nil {
		o.lost = fmt.Errorf("read the commit log: %w", err)
	}
	return errors.Join(append(errs, err)...)
}

// keep decodes one entry and keeps its updates of configured tables.
func (o *Overlay) keep(e commitlog.Entry, mv int) error {
	type found struct {
		id  commitlog.TableID
		key []byte
	}
	var ups []found
	o.dec.Reset(e.Mutation, mv)
	for o.dec.NextUpdate() {
		u := o.dec.Update()
		ups = append(ups, found{u.Table, u.Key})
	}
	if err := o.dec.Err(); err != nil {
		if errors.Is(err, commitlog.ErrUnknownTable) {
			o.mu.Lock()
			o.unknown++
			o.mu.Unlock()
			return nil
		}
		return fmt.Errorf("decode the mutation ending at %+v: %w", e.Position, err)
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	size := int64(len(e.Mutation)) * int64(len(ups))
	if o.bytes+size > o.cfg.MaxBytes {
		if o.lost == nil {
			o.lost = fmt.Errorf("keep the commit log's updates: over the %d bytes the overlay may hold", o.cfg.MaxBytes)
		}
		return nil
	}
	kept := &entry{mutation: bytes.Clone(e.Mutation), mv: mv, pos: e.Position}
	for _, u := range ups {
		// The key aliases e.Mutation: take it at the same offset in the copy.
		off := offsetIn(e.Mutation, u.key)
		key := kept.mutation[off : off+len(u.key)]
		tl := o.tables[u.id]
		if tl == nil {
			tl = &tableLog{}
			o.tables[u.id] = tl
		}
		tl.updates = append(tl.updates, update{e: kept, tok: token.Of(key), key: key})
		o.bytes += int64(len(e.Mutation))
	}
	return nil
}

// offsetIn is where sub, a subslice b[i:j] of b (the decoder slices
// keys so), starts in b.
func offsetIn(b, sub []byte) int {
	return cap(b) - cap(sub)
}

// Lost says why the overlay is not whole (its bound hit, damage in the
// log): then readers must not claim to reflect the commit log. nil when
// every update since the first Poll is kept.
func (o *Overlay) Lost() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.lost
}

// Bytes is the mutation bytes kept.
func (o *Overlay) Bytes() int64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.bytes
}
