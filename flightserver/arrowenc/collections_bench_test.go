package arrowenc_test

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/sstable-flight/sstable-flight/sstable/marshal"
)

// BenchmarkAppendCollections: one op appends one collection, tuple or
// vector value through its Appender, the way the server's batcher does per
// cell (dry run over the whole value, then the append). The builder is
// rebuilt every benchBatchRows values, as a scan's batches are; appending
// allocates nothing.
func BenchmarkAppendCollections(b *testing.B) {
	cases := []struct {
		name string
		typ  *marshal.Type
		v    []byte
	}{
		{"list<int>", listOf(nat(marshal.Int)), coll(be32(1), be32(2), be32(3), be32(4))},
		{"map<text,int>", mapOf(nat(marshal.Text), nat(marshal.Int)), pairs([]byte("a"), be32(1), []byte("b"), be32(2))},
		{"tuple<int,text>", tupleOf(nat(marshal.Int), nat(marshal.Text)), lp(be32(1), []byte("abc"))},
		{"vector<float,4>", vectorOf(nat(marshal.Float), 4), append(append(f32(1), f32(2)...), append(f32(3), f32(4)...)...)},
		{"vector<text,4>", vectorOf(nat(marshal.Text), 4), vvec([]byte("a"), []byte("bb"), []byte("ccc"), []byte("dddd"))},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			bld, a := newAppender(b, memory.NewGoAllocator(), c.typ)
			defer bld.Release()
			bld.Reserve(benchBatchRows)
			b.ReportAllocs()
			for i := range b.N {
				if err := a.Append(c.v); err != nil {
					b.Fatal(err)
				}
				if i%benchBatchRows == benchBatchRows-1 {
					bld.NewArray().Release()
					bld.Reserve(benchBatchRows)
				}
			}
		})
	}
}
