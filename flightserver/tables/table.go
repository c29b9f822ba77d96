package tables

import (
	"fmt"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/sstable-flight/sstable-flight/flightserver/arrowenc"
	"github.com/sstable-flight/sstable-flight/flightserver/catalog"
	"github.com/sstable-flight/sstable-flight/flightserver/request"
	"github.com/sstable-flight/sstable-flight/reconcile"
	"github.com/sstable-flight/sstable-flight/snapshot"
	"github.com/sstable-flight/sstable-flight/sstable/marshal"
)

// Table is what serving one table needs: its schema as the catalog
// gives it, the reconcile table and the Arrow schema, with the output
// columns in CQL's SELECT * order. It outlives the snapshot epochs that
// share its schema, so it holds nothing of their SSTables: those are the
// lease's (lease.e.Table, lease.readers).
type Table struct {
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

// Keyspace and Name name the table; Catalog is its schema as the schema
// source gave it, Reconcile the table the merge reads it by.
func (t *Table) Keyspace() string            { return t.keyspace }
func (t *Table) Name() string                { return t.name }
func (t *Table) Catalog() *catalog.Table     { return t.cat }
func (t *Table) Reconcile() *reconcile.Table { return t.rt }

func newTable(td snapshot.TableDir, cat *catalog.Table) (*Table, error) {
	t := &Table{keyspace: td.Keyspace, name: td.Table, cat: cat, rt: cat.Reconcile(), byName: map[string]int{}}
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

// SerializedSchema is the projection's schema as FlightInfo and
// GetSchema carry it; the full one is serialized once per table (per
// plan, it was 9% of the server's CPU under point reads).
func (t *Table) SerializedSchema(projection []int, mem memory.Allocator) []byte {
	if t.IsAll(projection) {
		t.schemaOnce.Do(func() { t.schemaIPC = flight.SerializeSchema(t.schema, mem) })
		return t.schemaIPC
	}
	return flight.SerializeSchema(t.projectedSchema(projection), mem)
}

// IsAll reports whether a projection is every column in table order.
func (t *Table) IsAll(projection []int) bool {
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

// ValueColumns is the reconcile projection of a column projection: the
// regular and static columns whose values are built (nil: all).
func (t *Table) ValueColumns(projection []int) []bool {
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

// ProjectionFor is a command's or ticket's projection: no column for a
// count-only read (its shape check refused columns with it), else the
// named ones.
func (t *Table) ProjectionFor(names []string, countOnly bool) ([]int, error) {
	if countOnly {
		return []int{}, nil
	}
	return t.projection(names)
}

// projection maps column names to column indexes; nil names is every
// column in SELECT * order.
func (t *Table) projection(names []string) ([]int, error) {
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
			return nil, request.Invalid(fmt.Errorf("project %s.%s: no column %q", t.keyspace, t.name, n))
		}
		if seen[n] {
			return nil, request.Invalid(fmt.Errorf("project %s.%s: column %q twice", t.keyspace, t.name, n))
		}
		seen[n] = true
		out = append(out, i)
	}
	return out, nil
}

func (t *Table) projectedSchema(projection []int) *arrow.Schema {
	if t.IsAll(projection) {
		return t.schema // built once: per request it was 4% of a point read's allocations
	}
	fields := make([]arrow.Field, len(projection))
	for i, ci := range projection {
		fields[i] = t.schema.Field(ci)
	}
	md := t.schema.Metadata()
	return arrow.NewSchema(fields, &md)
}

// BatcherFor is a batcher for a stream of the table: for the full
// projection one a finished stream gave back (building the record
// builder and appenders per stream was 14% of the server's allocations
// under point reads), else a new one.
func (t *Table) BatcherFor(mem memory.Allocator, projection []int, maxRows, maxBytes int) (*arrowenc.Batcher, error) {
	if t.IsAll(projection) {
		if b, ok := t.batchers.Get().(*arrowenc.Batcher); ok && b.Fits(maxRows, maxBytes) {
			return b, nil
		}
	}
	return arrowenc.NewBatcher(mem, t.projectedSchema(projection), t.columns, projection, t.keyComponents, maxRows, maxBytes)
}

// Done ends a stream's use of the batcher: a full-projection one goes
// back to the table, emptied, for the next stream, unless a row failed
// to append and left its builders unaligned.
func (t *Table) Done(b *arrowenc.Batcher, projection []int) {
	if !t.IsAll(projection) || !b.Reset() {
		b.Release()
		return
	}
	t.batchers.Put(b)
}
