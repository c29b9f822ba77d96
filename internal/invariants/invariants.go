// Package invariants switches on checks that only test builds pay for, as
// pebble's internal/invariants does: code guards them with
// `if invariants.Enabled`, a constant the invariants build tag sets
// (go test -tags invariants; make test's unit step builds so), and
// without the tag the compiler drops them, so the hot paths are the code
// they would be without the checks.
//
// The checks turn aliasing contracts that are otherwise comments
// ("valid until the next call", "dead after Release") into failures:
// memory a contract says is no longer valid is poisoned, filled with
// PoisonByte, so a reader that kept it sees garbage rather than
// plausible stale data, and a double release panics. docs/testing.md
// lists what each package poisons.
//
// It imports only the standard library and belongs to no layer of the
// data flow, so every package may import it, sstable included.
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
