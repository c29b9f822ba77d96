package token_test

import (
	"fmt"
	"testing"

	"github.com/sstable-flight/sstable-flight/token"
)

// BenchmarkOf shows the token costs no allocation, since it runs once per
// partition key read.
func BenchmarkOf(b *testing.B) {
	for _, n := range []int{4, 8, 14, 20, 64} {
		key := make([]byte, n)
		for i := range key {
			key[i] = byte(0x7b * (i + 1)) // mixes bytes above and below 0x80
		}
		b.Run(fmt.Sprintf("len=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(n))
			var sink token.Token
			for b.Loop() {
				sink ^= token.Of(key)
			}
			_ = sink
		})
	}
}

func TestOfAllocs(t *testing.T) {
	key := []byte("0123456789abcdef\xc3\xa9")
	if n := testing.AllocsPerRun(100, func() { token.Of(key) }); n != 0 {
		t.Errorf("token.Of allocated %v times per call, want 0", n)
	}
}
