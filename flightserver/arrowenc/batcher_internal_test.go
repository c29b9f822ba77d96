package arrowenc

import (
	"testing"

	"github.com/sstable-flight/sstable-flight/sstable/marshal"
)

// BenchmarkSplitKey splits a three-column partition key as the batcher
// does for every row of a table with a composite key; it must not
// allocate.
func BenchmarkSplitKey(b *testing.B) {
	key := marshal.AppendComposite(nil, []byte("tenant-0042"), []byte{0, 0, 0, 7}, make([]byte, 300))
	bt := &Batcher{composite: true, keyParts: make([][]byte, 3)}
	b.ReportAllocs()
	for b.Loop() {
		if err := bt.splitKey(key); err != nil {
			b.Fatal(err)
		}
	}
}
