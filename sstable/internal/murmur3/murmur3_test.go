package murmur3

import (
	"encoding/binary"
	"math/bits"
	"math/rand/v2"
	"testing"
)

// sum128Bytewise is Sum128 with the tail read byte by byte, each byte
// widened through int8 as Java's (long) cast does: the direct reading of
// MurmurHash.hash3_x64_128 that Sum128's word-wise tail must equal.
func sum128Bytewise(key []byte) (h1, h2 uint64) {
	n := len(key)
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

// Every tail length with bytes below and above 0x80 in every position.
func TestSum128TailMatchesBytewise(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	for n := 0; n <= 48; n++ {
		for trial := range 200 {
			key := make([]byte, n)
			for i := range key {
				switch trial % 4 {
				case 0:
					key[i] = byte(rng.IntN(0x80)) // ASCII
				case 1:
					key[i] = byte(0x80 + rng.IntN(0x80))
				default:
					key[i] = byte(rng.IntN(256))
				}
			}
			a1, a2 := Sum128(key)
			b1, b2 := sum128Bytewise(key)
			if a1 != b1 || a2 != b2 {
				t.Fatalf("key %x: Sum128 %x %x, bytewise %x %x", key, a1, a2, b1, b2)
			}
		}
	}
}

func FuzzSum128(f *testing.F) {
	f.Add([]byte("key-0000000001"))
	f.Add([]byte{0x80, 0xff, 0x7f, 0x00, 0xc3, 0xa9, 0x01, 0x02, 0x03, 0xfe, 0x80})
	f.Fuzz(func(t *testing.T, key []byte) {
		a1, a2 := Sum128(key)
		b1, b2 := sum128Bytewise(key)
		if a1 != b1 || a2 != b2 {
			t.Fatalf("key %x: Sum128 %x %x, bytewise %x %x", key, a1, a2, b1, b2)
		}
	})
}
