package writer

import (
	"encoding/binary"
	"math/bits"
	"math/rand/v2"
	"testing"
)

// TestCardinalityNormalForm: past 0.75 * 2^p distinct sparse indexes the
// estimator is written as registers, each the longest run that
// stream-lib's normal-mode offerHashed would have kept for its index.
// (The corpus checks the sparse form byte for byte; it has no SSTable
// large enough for this one.)
func TestCardinalityNormalForm(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	hashes := make([]uint64, 20000)
	want := make([]uint32, 1<<hllP)
	for i := range hashes {
		x := r.Uint64()
		hashes[i] = x
		idx := x >> (64 - hllP)
		run := uint32(bits.LeadingZeros64(x<<hllP|1<<(hllP-1))) + 1
		want[idx] = max(want[idx], run)
	}
	b := cardinality(hashes)
	head := []byte{0xff, 0xff, 0xff, 0xfe, hllP, hllSP, 0}
	words := (1<<hllP)/6 + 1
	head = binary.AppendUvarint(head, uint64(4*words))
	if string(b[:len(head)]) != string(head) || len(b) != len(head)+4*words {
		t.Fatalf("normal form header % x, %d bytes", b[:len(head)], len(b))
	}
	regs := b[len(head):]
	for i, w := range want {
		word := binary.BigEndian.Uint32(regs[4*(i/6):])
		if got := word >> (5 * (i % 6)) & 0x1f; got != w {
			t.Fatalf("register %d = %d, want %d", i, got, w)
		}
	}
}
