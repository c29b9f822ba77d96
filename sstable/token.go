package sstable

import (
	"encoding/binary"
	"math"

	"github.com/sstable-flight/sstable-flight/sstable/internal/murmur3"
)

// Murmur3Token returns the token Cassandra's Murmur3Partitioner gives the
// serialized partition key key. For a multi-column partition key, pass the
// output of CompositeKey.
//
// It is the first 64-bit half of the x64 128-bit MurmurHash3 of key with
// seed 0, read as a signed int64, with two Cassandra rules on top:
//   - an empty key gets the minimum token, math.MinInt64, not the hash of
//     nothing (Murmur3Partitioner.getToken);
//   - a hash of math.MinInt64 becomes math.MaxInt64, so that no real key
//     owns the minimum token, which ranges use as an exclusive start.
//
// The hash is Cassandra's variant, not the reference one: Cassandra mixes
// the trailing len(key)%16 bytes as Java signed bytes widened to long, so
// each tail byte >= 0x80 sets every bit above its position. Tokens differ
// from a standard murmur3 whenever such a byte is in the tail; tokens must
// match Cassandra's bit for bit, since they order partitions on disk and
// place them on the ring.
//
// It does not allocate.
func Murmur3Token(key []byte) int64 { return murmur3.Token(key) }

// CompositeKey appends to dst the CompositeType serialization of a
// partition key made of several columns and returns the extended slice.
// Each component is written as a big-endian uint16 length, the component's
// bytes, and a 0x00 end-of-component byte; Murmur3Token of the whole
// result is the partition's token. A single-column partition key is not
// wrapped this way: its token is the hash of the column's bytes alone.
//
// It panics if a component is longer than 65535 bytes, which Cassandra
// refuses for a partition-key component, since the length would not fit.
func CompositeKey(dst []byte, components ...[]byte) []byte {
	for _, c := range components {
		if len(c) > math.MaxUint16 {
			panic("sstable: build composite key: component longer than 65535 bytes")
		}
		dst = binary.BigEndian.AppendUint16(dst, uint16(len(c)))
		dst = append(dst, c...)
		dst = append(dst, 0)
	}
	return dst
}
