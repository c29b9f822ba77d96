package flightserver

import (
	"fmt"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/sstable-flight/sstable-flight/flightserver/arrowenc"
	"github.com/sstable-flight/sstable-flight/flightserver/catalog"
	"github.com/sstable-flight/sstable-flight/reconcile"
	"github.com/sstable-flight/sstable-flight/snapshot"
	"github.com/sstable-flight/sstable-flight/sstable/marshal"
)

// table is what serving one table needs: its schema as the catalog
// gives it, the reconcile table and the Arrow schema, with the output
// columns in CQL's SELECT * order. It outlives the snapshot epochs that
// share its schema, so it holds nothing of their SSTables: those are the
// lease's (lease.e.Table, lease.readers).
type table struct {
	keyspace, name string
	cat            *catalog.Table
	rt             *reconcile.Table
	columns        []arrowenc.Column
	byName         map[string]int
	keyTypes       []*marshal.Type // partition key components
	keyComponents  int
	clustering     []*marshal.Type
	schema         *arrow.Schema
	schemaIPC      []byte // schema serialized for FlightInfo, the full projection
	schemaOnce     sync.Once
	batchers       sync.Pool // *arrowenc.Batcher of the full projection, between streams

	// The epoch whose schema was last resolved, and when; guarded by
	// tables.mu.
	epoch   string
	checked time.Time
}

func newTable(td snapshot.TableDir, cat *catalog.Table) (*table, error) {
	t := &table{keyspace: td.Keyspace, name: td.Table, cat: cat, rt: cat.Reconcile(), byName: map[string]int{}}
	valueIndex := map[string]int{}
	for i, c := range t.rt.Columns {
		valueIndex[c.Name] = i
	}
	var specs []arrowenc.ColumnSpec
	for _, c := range cat.Columns {
		col := arrowenc.Column{Spec: arrowenc.ColumnSpec{Name: c.Name, Type: c.Type, Kind: c.Kind.String(), Position: c.Position, Desc: c.Desc}}
		switch c.Kind {
		case catalog.PartitionKey:
			col.From, col.Index = arrowenc.FromKey, c.Position
			t.keyComponents++
		case catalog.Clustering:
			col.From, col.Index = arrowenc.FromClustering, c.Position
			t.clustering = append(t.clustering, c.Type)
		default:
			i, ok := valueIndex[c.Name]
			if !ok {
				return nil, fmt.Errorf("build table %s.%s: column %q is not in the reconcile table", td.Keyspace, td.Table, c.Name)
			}
			col.From, col.Index = arrowenc.FromValue, i
		}
		t.byName[c.Name] = len(t.columns)
		t.columns = append(t.columns, col)
		specs = append(specs, col.Spec)
	}
	t.keyTypes = make([]*marshal.Type, t.keyComponents)
	for _, c := range t.columns {
		if c.From == arrowenc.FromKey {
			t.keyTypes[c.Index] = c.Spec.Type
		}
	}
	var err error
	if t.schema, err = arrowenc.Schema(specs); err != nil {
		return nil, fmt.Errorf("build table %s.%s: %w", td.Keyspace, td.Table, err)
	}
	return t, nil
}

// serializedSchema is the projection's schema as FlightInfo and
// GetSchema carry it; the full one is serialized once per table (per
// plan, it was 9% of the server's CPU under point reads).
func (t *table) serializedSchema(projection []int, mem memory.Allocator) []byte {
	if t.isAll(projection) {
		t.schemaOnce.Do(func() { t.schemaIPC = flight.SerializeSchema(t.schema, mem) })
		return t.schemaIPC
	}
	return flight.SerializeSchema(t.projectedSchema(projection), mem)
}

// isAll reports whether a projection is every column in table order.
func (t *table) isAll(projection []int) bool {
	if len(projection) != len(t.columns) {
		return false
	}
	for i, ci := range projection {
		if ci != i {
			return false
		}
	}
	return true
}

// valueColumns is the reconcile projection of a column projection: the
// regular and static columns whose values are built (nil: all).
func (t *table) valueColumns(projection []int) []bool {
	if len(projection) == len(t.columns) {
		return nil
	}
	want := make([]bool, len(t.rt.Columns))
	for _, ci := range projection {
		if c := t.columns[ci]; c.From == arrowenc.FromValue {
			want[c.Index] = true
		}
	}
	return want
}

// projectionFor is a command's or ticket's projection: no column for a
// count-only read (its shape check refused columns with it), else the
// named ones.
func (t *table) projectionFor(names []string, countOnly bool) ([]int, error) {
	if countOnly {
		return []int{}, nil
	}
	return t.projection(names)
}

// projection maps column names to column indexes; nil names is every
// column in SELECT * order.
func (t *table) projection(names []string) ([]int, error) {
	if len(names) == 0 {
		out := make([]int, len(t.columns))
		for i := range out {
			out[i] = i
		}
		return out, nil
	}
	out := make([]int, 0, len(names))
	seen := map[string]bool{}
	for _, n := range names {
		i, ok := t.byName[n]
		if !ok {
			return nil, invalid(fmt.Errorf("project %s.%s: no column %q", t.keyspace, t.name, n))
		}
		if seen[n] {
			return nil, invalid(fmt.Errorf("project %s.%s: column %q twice", t.keyspace, t.name, n))
		}
		seen[n] = true
		out = append(out, i)
	}
	return out, nil
}

func (t *table) projectedSchema(projection []int) *arrow.Schema {
	if t.isAll(projection) {
		return t.schema // built once: per request it was 4% of a point read's allocations
	}
	fields := make([]arrow.Field, len(projection))
	for i, ci := range projection {
		fields[i] = t.schema.Field(ci)
	}
	md := t.schema.Metadata()
	return arrow.NewSchema(fields, &md)
}

// batcherFor is a batcher for a stream of the table: for the full
// projection one a finished stream gave back (building the record
// builder and appenders per stream was 14% of the server's allocations
// under point reads), else a new one.
func (t *table) batcherFor(mem memory.Allocator, projection []int, maxRows, maxBytes int) (*arrowenc.Batcher, error) {
	if t.isAll(projection) {
		if b, ok := t.batchers.Get().(*arrowenc.Batcher); ok && b.Fits(maxRows, maxBytes) {
			return b, nil
		}
	}
	return arrowenc.NewBatcher(mem, t.projectedSchema(projection), t.columns, projection, t.keyComponents, maxRows, maxBytes)
}

// done ends a stream's use of the batcher: a full-projection one goes
// back to the table, emptied, for the next stream, unless a row failed
// to append and left its builders unaligned.
func (t *table) done(b *arrowenc.Batcher, projection []int) {
	if !t.isAll(projection) || !b.Reset() {
		b.Release()
		return
	}
	t.batchers.Put(b)
}
