package compress_test

import (
	"testing"

	"github.com/sstable-flight/sstable-flight/sstable"
	"github.com/sstable-flight/sstable-flight/sstable/compress"
)

// TestMaxCompressedLengthAgrees: the corpus tests choose ParseInfo's
// layout from the version letters because this package's internal tests
// cannot import sstable; that choice must be sstable.Version's flag, the
// one the reader passes, for every version the reader accepts.
func TestMaxCompressedLengthAgrees(t *testing.T) {
	n := 0
	for _, format := range []string{"big", "bti"} {
		for a := 'a'; a <= 'z'; a++ {
			for b := 'a'; b <= 'z'; b++ {
				name := string([]rune{a, b})
				v, err := sstable.ParseVersion(name, format)
				if err != nil {
					continue
				}
				n++
				if got := compress.CorpusHasMaxCompressedLength(name); got != v.MaxCompressedLength {
					t.Errorf("%s %s: corpus tests read MaxCompressedLength %v, sstable.Version %v", format, name, got, v.MaxCompressedLength)
				}
			}
		}
	}
	if n < 9 {
		t.Errorf("only %d versions accepted by sstable.ParseVersion", n)
	}
}
