package invariants

import "bytes"

// PoisonByte fills poisoned memory: 0xa5, alternating bits, easy to spot
// in a hex dump and in an Arrow offset (0xa5a5a5a5 is negative as an
// int32, so Arrow's own bounds checks trip over it).
const PoisonByte = 0xa5

// Poison fills b with PoisonByte.
func Poison(b []byte) {
	if len(b) == 0 {
		return
	}
	b[0] = PoisonByte
	for n := 1; n < len(b); n *= 2 {
		copy(b[n:], b[:n])
	}
}

// Poisoned reports whether every byte of b is PoisonByte.
func Poisoned(b []byte) bool {
	for len(b) > 0 {
		n := min(len(b), len(poisoned))
		if !bytes.Equal(b[:n], poisoned[:n]) {
			return false
		}
		b = b[n:]
	}
	return true
}

// poisoned is a block of poison that Poisoned compares against, a block
// at a time: bytes.Equal is vectorized, a loop over bytes is not, and the
// buffer pool checks every buffer it hands out again, megabytes a batch.
var poisoned = func() []byte {
	b := make([]byte, 4096)
	Poison(b)
	return b
}()
