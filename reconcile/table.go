package reconcile

import (
	"fmt"
	"sync"

	"github.com/sstable-flight/sstable-flight/sstable"
	"github.com/sstable-flight/sstable-flight/sstable/marshal"
)

// Column is one static or regular column of the table.
type Column struct {
	Name   string
	Type   *marshal.Type
	Static bool
}

// Table is what reconciliation needs of the schema: the clustering types
// and the static and regular columns, in output order (static first, then
// regular, each by name).
type Table struct {
	Clustering []*marshal.Type
	Columns    []Column
	// Dropped maps a dropped column's name to the drop time (µs, as
	// system_schema.dropped_columns records it). Cells of the column
	// written at or before it are ignored, also after the column is
	// re-added; a dropped column that is not re-added is simply absent
	// from Columns, and its cells are ignored.
	Dropped map[string]int64

	// What every merger needs of the table, derived on first use: the
	// table must not change once a merger has used it. Per merger this
	// was most of a point read's allocations in reconcile.
	once    sync.Once
	derived derived
}

type derived struct {
	byName  map[string]int // column name → index in Columns
	dropped []int64        // per column: drop time, or NoTimestamp
	plain   []bool         // per column: simple, not a counter, never dropped
	statics []int          // indexes of the static columns

	// mergers keeps released mergers for the table's next ones: their
	// per-column scratch was most of a point read's allocations left in
	// reconcile.
	mergers sync.Pool
}

func (t *Table) derive() *derived {
	t.once.Do(func() {
		d := &t.derived
		d.byName = make(map[string]int, len(t.Columns))
		d.dropped = make([]int64, len(t.Columns))
		d.plain = make([]bool, len(t.Columns))
		for i, c := range t.Columns {
			d.byName[c.Name] = i
			d.dropped[i] = t.droppedAt(i)
			d.plain[i] = !c.Type.IsMultiCell() && c.Type.Kind != marshal.Counter && d.dropped[i] == NoTimestamp
			if c.Static {
				d.statics = append(d.statics, i)
			}
		}
	})
	return &t.derived
}

// Without removes columns from the table (a dropped column that was not
// re-added): their cells are then ignored.
func (t *Table) Without(names ...string) {
	out := t.Columns[:0]
	for _, c := range t.Columns {
		drop := false
		for _, n := range names {
			drop = drop || c.Name == n
		}
		if !drop {
			out = append(out, c)
		}
	}
	t.Columns = out
}

// columnMap maps each reader's header columns to table column indexes:
// m[static][i] is the table index of the reader's i-th static (1) or
// regular (0) column, or -1 for a column the table no longer has.
func (t *Table) columnMap(r *sstable.Reader) ([2][]int, error) {
	var m [2][]int
	idx := t.derive().byName
	for k, cols := range [][]sstable.Column{r.Schema.Regular, r.Schema.Static} {
		m[k] = make([]int, len(cols))
		for i, c := range cols {
			j, ok := idx[c.Name]
			if !ok {
				if _, dropped := t.Dropped[c.Name]; !dropped {
					return m, fmt.Errorf("map columns of %s: column %q is neither in the table nor dropped", r.Desc.FileName(), c.Name)
				}
				j = -1
			}
			m[k][i] = j
		}
	}
	return m, nil
}

// droppedAt is the drop time of the table column, or NoTimestamp.
func (t *Table) droppedAt(col int) int64 {
	if ts, ok := t.Dropped[t.Columns[col].Name]; ok {
		return ts
	}
	return NoTimestamp
}
