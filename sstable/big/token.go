package big

import (
	"bytes"
	"math"

	"github.com/sstable-flight/sstable-flight/sstable/internal/murmur3"
)

// Token is the Murmur3Partitioner token of a serialized partition key:
// the first half of Cassandra's murmur3, except that the empty key gets
// math.MinInt64 and a hash of math.MinInt64 becomes math.MaxInt64 (so no
// real key owns the minimum token). It is repeated here, not taken from
// package sstable, because that package imports this one.
func Token(key []byte) int64 {
	if len(key) == 0 {
		return math.MinInt64
	}
	h1, _ := murmur3.Sum128(key)
	if t := int64(h1); t != math.MinInt64 {
		return t
	}
	return math.MaxInt64
}

// CompareKeys orders partition keys as a Murmur3-partitioned SSTable
// stores them (DecoratedKey.compareTo): by token, then by unsigned bytes.
func CompareKeys(a, b []byte) int {
	return compareDecorated(Token(a), a, b)
}

func compareDecorated(ta int64, a, b []byte) int {
	if tb := Token(b); ta != tb {
		if ta < tb {
			return -1
		}
		return 1
	}
	return bytes.Compare(a, b)
}
