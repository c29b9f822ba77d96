package sstable

import "github.com/sstable-flight/sstable-flight/sstable/marshal"

// What a writer of Data.db (package sstable/writer) shares with the
// decoder beside the flag bits (unfiltered.go): the clustering order
// (slice.go).

// CompareUnfiltered orders two rows or markers of one partition as
// Cassandra's ClusteringComparator does (see compareBound): negative when
// a sorts before b. types are the clustering column types.
func CompareUnfiltered(types []*marshal.Type, a, b *Unfiltered) int {
	bk := ClusteringKind
	if b.Marker {
		bk = b.Kind
	}
	return compareBound(types, a, b.Clustering, bk)
}
