package compress

import (
	"errors"
	"os"
	"testing"

	"github.com/sstable-flight/sstable-flight/sstable/internal/base"
)

func FuzzParseInfo(f *testing.F) {
	for _, s := range corpus(f) {
		if b, err := os.ReadFile(s.path("CompressionInfo.db")); err == nil {
			f.Add(b, true)
		}
	}
	f.Add(infoBytes("SnappyCompressor", 4096, -1, 4097, []int64{0, 10}, map[string]string{"k": "v"}), false)
	f.Fuzz(func(t *testing.T, b []byte, hasMax bool) {
		if len(b) > 1<<20 {
			return
		}
		info, err := ParseInfo(b, "f", hasMax)
		if err != nil {
			if !errors.Is(err, base.ErrCorruption) {
				t.Fatalf("not a corruption error: %v", err)
			}
			return
		}
		// A parsed header must drive the reader safely over arbitrary data.
		r := NewReader(base.BytesReadable{B: b, Path: "d"}, info, Options{})
		defer r.Close()
		for i := range min(info.NumChunks(), 4) {
			if _, err := r.ReadChunk(i, nil); err != nil && !errors.Is(err, base.ErrCorruption) {
				t.Fatalf("chunk %d: not a corruption error: %v", i, err)
			}
		}
	})
}
