package catalog

import (
	"maps"

	"github.com/sstable-flight/sstable-flight/reconcile"
)

// Reconcile returns what the reconciler needs of the table: the clustering
// types (reversed where DESC) and the static and regular columns in the
// order of t.Columns, static first, so that the reconciler's value i is
// column len(t.Keys())+i of t. Dropped is copied.
func (t *Table) Reconcile() *reconcile.Table {
	rt := &reconcile.Table{Dropped: maps.Clone(t.Dropped)}
	if rt.Dropped == nil {
		rt.Dropped = map[string]int64{}
	}
	// t.Columns holds the clustering columns by position.
	for _, c := range t.Columns {
		switch c.Kind {
		case Clustering:
			rt.Clustering = append(rt.Clustering, c.Type)
		case Static, Regular:
			rt.Columns = append(rt.Columns, reconcile.Column{Name: c.Name, Type: c.Type, Static: c.Kind == Static})
		}
	}
	return rt
}
