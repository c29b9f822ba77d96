package sstable

import "github.com/sstable-flight/sstable-flight/sstable/marshal"

// What a writer of Data.db (package sstable/writer) shares with the
// decoder: the flag bits (unfiltered.go) and the clustering order
// (slice.go), exported here so that they live once.

// Unfiltered flags.
const (
	FlagEndOfPartition     = flagEndOfPartition
	FlagIsMarker           = flagIsMarker
	FlagHasTimestamp       = flagHasTimestamp
	FlagHasTTL             = flagHasTTL
	FlagHasDeletion        = flagHasDeletion
	FlagHasAllColumns      = flagHasAllColumns
	FlagHasComplexDeletion = flagHasComplexDeletion
	FlagExtension          = flagExtension

	ExtIsStatic   = extIsStatic
	ExtShadowable = extShadowable
)

// Cell flags (Cell.Flags).
const (
	CellDeleted      = cellDeleted
	CellExpiring     = cellExpiring
	CellEmptyValue   = cellEmptyValue
	CellRowTimestamp = cellRowTimestamp
	CellRowTTL       = cellRowTTL
)

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
