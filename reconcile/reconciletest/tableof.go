package reconciletest

import (
	"fmt"
	"sort"

	"github.com/sstable-flight/sstable-flight/reconcile"
	"github.com/sstable-flight/sstable-flight/sstable"
)

// TableOf builds a reconcile.Table from the SSTables' serialization
// headers: the union of their columns. The server builds its tables from
// the schema instead (flightserver/catalog); tests and benchmarks over SSTables
// without one use this. A column no SSTable has written is unknown here
// and reads as absent; callers with the real schema can add it.
func TableOf(readers []*sstable.Reader) (*reconcile.Table, error) {
	t := &reconcile.Table{}
	seen := map[string]int{}
	for _, r := range readers {
		if t.Clustering == nil {
			t.Clustering = r.Schema.Clustering
		} else if len(t.Clustering) != len(r.Schema.Clustering) {
			return nil, fmt.Errorf("build table: SSTables disagree on the clustering (%d vs %d columns)", len(t.Clustering), len(r.Schema.Clustering))
		}
		for k, cols := range [][]sstable.Column{r.Schema.Regular, r.Schema.Static} {
			for _, c := range cols {
				if i, ok := seen[c.Name]; ok {
					if t.Columns[i].Static != (k == 1) {
						return nil, fmt.Errorf("build table: column %q is static in one SSTable and regular in another", c.Name)
					}
					continue
				}
				seen[c.Name] = len(t.Columns)
				t.Columns = append(t.Columns, reconcile.Column{Name: c.Name, Type: c.Type, Static: k == 1})
			}
		}
	}
	sort.SliceStable(t.Columns, func(i, j int) bool {
		if t.Columns[i].Static != t.Columns[j].Static {
			return t.Columns[i].Static
		}
		return t.Columns[i].Name < t.Columns[j].Name
	})
	return t, nil
}
