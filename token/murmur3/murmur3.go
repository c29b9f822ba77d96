package murmur3

import (
	"encoding/binary"
	"math/bits"
)

const (
	murmurC1 = 0x87c37b91114253d5
	murmurC2 = 0x4cf5ad432745937f
)

// Sum128 returns Cassandra's MurmurHash.hash3_x64_128(key, seed 0) as its
// two 64-bit halves: h1 is the Murmur3Partitioner token, and the bloom
// filter (Filter.db) derives its bit indexes from both.
func Sum128(key []byte) (h1, h2 uint64) {
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

	// Tail: up to 15 bytes.
	if tail := key[n&^15:]; len(tail) > 8 {
		k1, k2 := tailWords(tail)
		h2 ^= mixK2(k2)
		h1 ^= mixK1(k1)
	} else if len(tail) > 0 {
		k1, _ := tailWords(tail)
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
	h2 += h1
	return h1, h2
}

// tailWords returns the words a tail of up to 15 bytes mixes in: bytes
// 0..7 in k1 and 8..14 in k2 as in the reference algorithm, read as
// little-endian words. Java's (long) cast of a byte sign-extends, so a
// byte >= 0x80 also XORs ones into every bit above it (signExt); the
// reference algorithm has no such term.
func tailWords(tail []byte) (k1, k2 uint64) {
	if len(tail) > 8 {
		k1, k2 = binary.LittleEndian.Uint64(tail), leWord(tail[8:])
	} else {
		k1 = leWord(tail)
	}
	return k1 ^ signExt(k1), k2 ^ signExt(k2)
}

// signExt is what sign-extending each byte of w, as Java widens a byte to
// a long before shifting it into place, XORs into w beyond its own bits:
// for each byte >= 0x80, ones in every byte above it. So a byte of the
// result is 0xff when an odd number of the bytes below it are >= 0x80: a
// prefix XOR over the bytes, without a branch.
func signExt(w uint64) uint64 {
	b := (w >> 7 & 0x0101010101010101) * 0xff // 0xff at each byte >= 0x80
	b ^= b << 8
	b ^= b << 16
	b ^= b << 32
	return b << 8
}

// leWord reads up to 8 bytes as a little-endian word.
func leWord(b []byte) uint64 {
	var w uint64
	for i := len(b) - 1; i >= 0; i-- {
		w = w<<8 | uint64(b[i])
	}
	return w
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
