package murmur3

import (
	"math/rand/v2"
	"testing"
)

// tailWordsBytewise reads a tail as MurmurHash.hash3_x64_128 does, byte by
// byte, each byte widened through int8 as Java's (long) cast does: the
// direct reading tailWords must equal.
func tailWordsBytewise(tail []byte) (k1, k2 uint64) {
	for i := len(tail) - 1; i >= 8; i-- {
		k2 ^= uint64(int64(int8(tail[i]))) << (8 * (i - 8))
	}
	for i := min(len(tail), 8) - 1; i >= 0; i-- {
		k1 ^= uint64(int64(int8(tail[i]))) << (8 * i)
	}
	return k1, k2
}

// Every tail length, with bytes below and above 0x80 in every position.
// (The tokens of the corpus keys, equal to Cassandra's, check the rest of
// Sum128.)
func TestTailWordsMatchBytewise(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	for n := 1; n <= 15; n++ {
		for trial := range 2000 {
			tail := make([]byte, n)
			for i := range tail {
				switch trial % 4 {
				case 0:
					tail[i] = byte(rng.IntN(0x80)) // ASCII
				case 1:
					tail[i] = byte(0x80 + rng.IntN(0x80))
				default:
					tail[i] = byte(rng.IntN(256))
				}
			}
			checkTail(t, tail)
		}
	}
}

func checkTail(t *testing.T, tail []byte) {
	t.Helper()
	a1, a2 := tailWords(tail)
	b1, b2 := tailWordsBytewise(tail)
	if a1 != b1 || a2 != b2 {
		t.Fatalf("tail %x: words %x %x, bytewise %x %x", tail, a1, a2, b1, b2)
	}
}

func FuzzTailWords(f *testing.F) {
	f.Add([]byte("key-0000000001"))
	f.Add([]byte{0x80, 0xff, 0x7f, 0x00, 0xc3, 0xa9, 0x01, 0x02, 0x03, 0xfe, 0x80})
	f.Fuzz(func(t *testing.T, key []byte) {
		checkTail(t, key[len(key)&^15:])
	})
}
