package writer

import (
	"encoding/binary"
	"slices"
)

// Statistics.db's COMPACTION component is a HyperLogLog++ estimate of
// the partition count (MetadataCollector: new HyperLogLogPlus(13, 25),
// offered MurmurHash.hash2_64 of every partition key), serialized as
// stream-lib does (HyperLogLogPlus.getBytes):
//
//	int32 BE -2 (version), varint p, varint sp
//	sparse: varint 1, varint n, n varints: each encoded hash minus the
//	        previous one (32-bit, as unsigned), in sparse-index order
//	normal: varint 0, varint 4*words, words × int32 BE: 2^p registers
//	        of 5 bits, six to a word, each the longest run seen
//
// The varints are LEB128 of 32 bits. The estimator stays sparse while it
// holds at most 0.75 * 2^p distinct sparse indexes; its final bytes do
// not depend on when stream-lib merged or converted.
const (
	hllP  = 13
	hllSP = 25
)

// hllEncode is HyperLogLogPlus.encodeHash: the sp-bit index, and the run
// of zeros after the first p bits when the index cannot tell it.
func hllEncode(x uint64) uint32 {
	idx := uint32(x >> (64 - hllSP))
	if idx<<((32-hllSP)+hllP) == 0 {
		rl := uint32(leadingZeros64(x<<hllP|1<<(hllP-1))) + 1
		return (idx<<6|rl^63)<<1 | 1
	}
	return idx << 1
}

func leadingZeros64(x uint64) int {
	n := 0
	for x&(1<<63) == 0 && n < 64 {
		x <<= 1
		n++
	}
	return n
}

func hllSparseIndex(k uint32) uint32 {
	if k&1 == 1 {
		return k >> 7
	}
	return k >> 1
}

// hllRunLength is decodeRunLength.
func hllRunLength(k uint32) uint32 {
	if k&1 == 1 {
		return (k>>1)&63 ^ 63
	}
	return uint32(leadingZeros32(k<<(hllP+(31-hllSP)))) + 1
}

func leadingZeros32(x uint32) int {
	n := 0
	for x&(1<<31) == 0 && n < 32 {
		x <<= 1
		n++
	}
	return n
}

// cardinality returns the serialized estimator of the keys of the given
// hash2_64 hashes.
func cardinality(hashes []uint64) []byte {
	set := make([]uint32, 0, len(hashes))
	for _, h := range hashes {
		set = append(set, hllEncode(h))
	}
	// Sorted by sparse index, then by value as Java ints; one entry per
	// index, the least (the longest run).
	slices.SortFunc(set, func(a, b uint32) int {
		ia, ib := hllSparseIndex(a), hllSparseIndex(b)
		switch {
		case ia != ib:
			if ia < ib {
				return -1
			}
			return 1
		case int32(a) < int32(b):
			return -1
		case int32(a) > int32(b):
			return 1
		}
		return 0
	})
	set = slices.CompactFunc(set, func(a, b uint32) bool { return hllSparseIndex(a) == hllSparseIndex(b) })
	b := binary.BigEndian.AppendUint32(nil, uint32(0xfffffffe))
	b = binary.AppendUvarint(b, hllP)
	b = binary.AppendUvarint(b, hllSP)
	if len(set) <= (1<<hllP)*3/4 {
		b = binary.AppendUvarint(b, 1)
		b = binary.AppendUvarint(b, uint64(len(set)))
		prev := uint32(0)
		for _, k := range set {
			b = binary.AppendUvarint(b, uint64(k-prev))
			prev = k
		}
		return b
	}
	// RegisterSet: 2^p registers, 6 per int32 word.
	words := make([]uint32, (1<<hllP)/6+1)
	for _, k := range set {
		idx := hllSparseIndex(k) >> (hllSP - hllP)
		r := hllRunLength(k)
		w, shift := idx/6, 5*(idx%6)
		if cur := words[w] >> shift & 0x1f; cur < r {
			words[w] = words[w]&^(0x1f<<shift) | r<<shift
		}
	}
	b = binary.AppendUvarint(b, 0)
	b = binary.AppendUvarint(b, uint64(4*len(words)))
	for _, w := range words {
		b = binary.BigEndian.AppendUint32(b, w)
	}
	return b
}

// murmurHash2_64 is Cassandra's MurmurHash.hash2_64 with seed 0
// (MurmurHash64A), whose tail bytes are sign-extended as Java bytes are.
func murmurHash2_64(key []byte) uint64 {
	const m = 0xc6a4a7935bd1e995
	const r = 47
	h := uint64(len(key)) * m
	n := len(key) &^ 7
	for i := 0; i < n; i += 8 {
		k := binary.LittleEndian.Uint64(key[i:])
		k *= m
		k ^= k >> r
		k *= m
		h ^= k
		h *= m
	}
	if rem := key[n:]; len(rem) > 0 {
		for i := len(rem) - 1; i >= 0; i-- {
			h ^= uint64(int64(int8(rem[i]))) << (8 * i)
		}
		h *= m
	}
	h ^= h >> r
	h *= m
	h ^= h >> r
	return h
}
