package sstable

import "github.com/sstable-flight/sstable-flight/sstable/internal/murmur3"

// Murmur3Token returns the token Cassandra's Murmur3Partitioner gives the
// serialized partition key key. For a multi-column partition key, pass the
// output of marshal.AppendComposite.
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
