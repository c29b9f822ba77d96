package catalog

import (
	"sort"

	"github.com/sstable-flight/sstable-flight/sstable"
)

// sortColumns puts columns in CQL's SELECT * order, which is Cassandra's
// TableMetadata.allColumnsInSelectOrder: partition key columns by
// position, clustering columns by position, then
// RegularAndStaticColumns.selectOrderIterator, which is the static
// columns' select order followed by the regular columns' (see selectOrder).
func sortColumns(cols []Column) {
	var keys, statics, regulars []Column
	for _, c := range cols {
		switch c.Kind {
		case PartitionKey, Clustering:
			keys = append(keys, c)
		case Static:
			statics = append(statics, c)
		default:
			regulars = append(regulars, c)
		}
	}
	sort.SliceStable(keys, func(i, j int) bool {
		if keys[i].Kind != keys[j].Kind {
			return keys[i].Kind < keys[j].Kind
		}
		return keys[i].Position < keys[j].Position
	})
	out := append(keys, selectOrder(statics)...)
	copy(cols, append(out, selectOrder(regulars)...))
}

// selectOrder orders static or regular columns the way Cassandra 5.0's
// Columns.selectOrderIterator does, which TestCassandra checks against a
// live node's SELECT *. Columns holds its columns sorted by
// ColumnMetadata.compareTo: simple ones before complex (multi-cell) ones,
// each by name (see sstable.CompareColumnNames). selectOrderIterator merges
// simpleColumns() with complexColumns() by ByteBuffer.compareTo, which
// compares name bytes signed. The split between the two is where the
// sentinel FIRST_COMPLEX_STATIC/REGULAR (complex, empty name) would sort,
// and since the name part of the comparison has the first byte's top bit
// flipped, complex columns whose name starts with a byte >= 0x80 sort
// before the sentinel and count as "simple" here. For ASCII names all of
// this is plain alphabetical order.
func selectOrder(cols []Column) []Column {
	sorted := append([]Column(nil), cols...)
	sort.SliceStable(sorted, func(i, j int) bool {
		ci, cj := isComplex(sorted[i]), isComplex(sorted[j])
		if ci != cj {
			return !ci
		}
		return sstable.CompareColumnNames(sorted[i].Name, sorted[j].Name) < 0
	})
	split := len(sorted)
	for i, c := range sorted {
		if isComplex(c) && (c.Name == "" || c.Name[0] < 0x80) {
			split = i
			break
		}
	}
	simple, complex := sorted[:split], sorted[split:]
	out := make([]Column, 0, len(cols))
	for len(simple) > 0 && len(complex) > 0 {
		// Guava's Iterators.mergeSorted; names are unique, so no ties.
		if compareSigned(simple[0].Name, complex[0].Name) <= 0 {
			out, simple = append(out, simple[0]), simple[1:]
		} else {
			out, complex = append(out, complex[0]), complex[1:]
		}
	}
	out = append(out, simple...)
	return append(out, complex...)
}

// isComplex is ColumnMetadata.isComplex: a multi-cell column.
func isComplex(c Column) bool { return c.Type != nil && c.Type.IsMultiCell() }

// compareSigned is java.nio.ByteBuffer.compareTo: bytes compared as
// signed values (Byte.compare), then by length.
func compareSigned(a, b string) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if x, y := int8(a[i]), int8(b[i]); x != y {
			if x < y {
				return -1
			}
			return 1
		}
	}
	switch {
	case len(a) < len(b):
		return -1
	case len(a) > len(b):
		return 1
	}
	return 0
}
