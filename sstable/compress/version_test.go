package compress_test

import (
	"testing"

	"github.com/sstable-flight/sstable-flight/sstable/compress"
	"github.com/sstable-flight/sstable-flight/sstable/metadata"
)

// TestMaxCompressedLengthAgrees: the corpus tests choose ParseInfo's
// layout from the version letters because this package's internal tests
// cannot import sstable; that choice must be metadata.Version's flag, the
// one the reader passes, for every version the reader supports.
func TestMaxCompressedLengthAgrees(t *testing.T) {
	for format, names := range metadata.Versions {
		for _, name := range names {
			t.Run(format+"/"+name, func(t *testing.T) {
				v, err := metadata.ParseVersion(name, format)
				if err != nil {
					t.Fatal(err)
				}
				if got := compress.CorpusHasMaxCompressedLength(name); got != v.MaxCompressedLength {
					t.Errorf("corpus tests read MaxCompressedLength %v, metadata.Version %v", got, v.MaxCompressedLength)
				}
			})
		}
	}
}
