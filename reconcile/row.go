package reconcile

import (
	"github.com/sstable-flight/sstable-flight/sstable"
	"github.com/sstable-flight/sstable-flight/token"
)

// Row is one live CQL row. The merger reuses it: slices are valid until
// the next call to Next.
type Row struct {
	Key []byte // serialized partition key
	// Clustering holds the clustering values; nil for the static-only row
	// of a partition that has static data but no live rows.
	Clustering [][]byte
	// Values has one entry per Table.Columns: static columns repeat the
	// partition's static values on every row.
	Values []Value

	token    token.Token
	tokenSet bool
}

// Token is the partition's Murmur3 token (computed on first use when the
// merge did not need it).
func (r *Row) Token() token.Token {
	if !r.tokenSet {
		r.token, r.tokenSet = token.Of(r.Key), true
	}
	return r.token
}

// Value is one column's value in a row, with what CQL's WRITETIME() and
// TTL() report for a simple column.
type Value struct {
	// Bytes is the serialized value, as CQL would send it: for a
	// multi-cell collection or UDT the assembled live elements. nil is
	// null.
	Bytes []byte
	// Timestamp is the winning cell's write time (µs); NoTimestamp for
	// null and for multi-cell columns.
	Timestamp int64
	// TTL is the cell's TTL in seconds and LocalExpirationTime when it
	// expires (seconds since the epoch); 0 when the cell does not expire.
	TTL                 int64
	LocalExpirationTime int64
}

// NoTimestamp marks a Value without a write time.
const NoTimestamp = sstable.NoTimestamp
