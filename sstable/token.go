package sstable

import (
	"encoding/binary"
	"math"
	"math/bits"
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
func Murmur3Token(key []byte) int64 {
	if len(key) == 0 {
		return math.MinInt64
	}
	h := int64(murmur3Cassandra(key))
	if h == math.MinInt64 {
		return math.MaxInt64
	}
	return h
}

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

const (
	murmurC1 = 0x87c37b91114253d5
	murmurC2 = 0x4cf5ad432745937f
)

// murmur3Cassandra returns h1, the first half of Cassandra's
// MurmurHash.hash3_x64_128(key, seed 0). The second half is computed only
// because h1's finalization depends on it.
func murmur3Cassandra(key []byte) uint64 {
	var h1, h2 uint64 // seed 0
	n := len(key)

	// Body: whole 16-byte blocks, as two little-endian unsigned words.
	// Here Cassandra masks each byte with 0xff, so it agrees with the
	// reference algorithm.
	body := key[:n&^15]
	for len(body) >= 16 {
		k1 := binary.LittleEndian.Uint64(body)
		k2 := binary.LittleEndian.Uint64(body[8:])
		body = body[16:]

		h1 ^= mixK1(k1)
		h1 = bits.RotateLeft64(h1, 27)
		h1 += h2
		h1 = h1*5 + 0x52dce729

		h2 ^= mixK2(k2)
		h2 = bits.RotateLeft64(h2, 31)
		h2 += h1
		h2 = h2*5 + 0x38495ab5
	}

	// Tail: up to 15 bytes. Java's (long) cast of a byte sign-extends, so
	// each byte is widened through int8 before the shift; for a byte >=
	// 0x80 the ones above it are XORed into the word too. Bytes 8..14 go
	// to k2, bytes 0..7 to k1, as in the reference algorithm.
	tail := key[n&^15:]
	var k1, k2 uint64
	for i := len(tail) - 1; i >= 8; i-- {
		k2 ^= uint64(int64(int8(tail[i]))) << (8 * (i - 8))
	}
	if len(tail) > 8 {
		h2 ^= mixK2(k2)
	}
	for i := min(len(tail), 8) - 1; i >= 0; i-- {
		k1 ^= uint64(int64(int8(tail[i]))) << (8 * i)
	}
	if len(tail) > 0 {
		h1 ^= mixK1(k1)
	}

	// Finalization.
	h1 ^= uint64(n)
	h2 ^= uint64(n)
	h1 += h2
	h2 += h1
	h1 = fmix64(h1)
	h2 = fmix64(h2)
	h1 += h2
	return h1
}

func mixK1(k uint64) uint64 {
	k *= murmurC1
	k = bits.RotateLeft64(k, 31)
	return k * murmurC2
}

func mixK2(k uint64) uint64 {
	k *= murmurC2
	k = bits.RotateLeft64(k, 33)
	return k * murmurC1
}

func fmix64(k uint64) uint64 {
	k ^= k >> 33
	k *= 0xff51afd7ed558ccd
	k ^= k >> 33
	k *= 0xc4ceb9fe1a85ec53
	k ^= k >> 33
	return k
}
