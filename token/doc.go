// Package token is Cassandra's Murmur3Partitioner ring: the token of a
// partition key, the order of keys on disk, and token ranges with their
// arithmetic. It is the one home of these facts for the module: sstable
// orders and filters partitions by token, cluster places ranges on
// nodes, and flightserver plans scans as ranges, each through this
// package.
//
// A Token is a signed 64-bit integer. Of gives a key's token: the first
// half of Cassandra's MurmurHash3 variant (murmur3/, the one hash) with
// the partitioner's two rules on top, so that no real key has Min.
// CompareDecorated orders keys as Cassandra's DecoratedKey does: by token,
// then by bytes.
//
// A Range is (Start, End], Cassandra's Range<Token>: it holds the tokens
// after Start up to and including End. Start >= End wraps past the end of
// the ring, and Start == End is the whole ring. Its methods are the ring
// arithmetic the rest of the module needs (range.go: Contains, Wraps,
// Overlaps, Intersect, Fraction; split.go: Split into n pieces of equal
// width).
//
// It imports only the standard library, so that every layer may use it.
package token
