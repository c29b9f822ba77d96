package big

import "github.com/sstable-flight/sstable-flight/sstable/internal/murmur3"

// Token is the Murmur3Partitioner token of a serialized partition key
// (see murmur3.Token).
func Token(key []byte) int64 { return murmur3.Token(key) }

// CompareKeys orders partition keys as a Murmur3-partitioned SSTable
// stores them (DecoratedKey.compareTo): by token, then by unsigned bytes.
func CompareKeys(a, b []byte) int {
	return murmur3.CompareDecorated(murmur3.Token(a), a, murmur3.Token(b), b)
}
