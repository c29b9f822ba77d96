package marshal_test

import (
	"testing"

	"github.com/sstable-flight/sstable-flight/sstable/marshal"
)

// BenchmarkCompareFrozen orders values framed by the collection, tuple and
// vector codecs, as a scan does for a clustering column of such a type: one
// op is one Compare of two values that differ in their last element.
func BenchmarkCompareFrozen(b *testing.B) {
	uvint := func(vals ...[]byte) []byte {
		var out []byte
		for _, v := range vals {
			out = marshal.AppendUvint(out, uint64(len(v)))
			out = append(out, v...)
		}
		return out
	}
	const p = "org.apache.cassandra.db.marshal."
	cases := []struct {
		name, typ string
		a, b      []byte
	}{
		{"list<int>", p + "FrozenType(" + p + "ListType(" + p + "Int32Type))",
			collection(1, i32(1), i32(2), i32(3), i32(4)), collection(1, i32(1), i32(2), i32(3), i32(5))},
		{"map<text,int>", p + "FrozenType(" + p + "MapType(" + p + "UTF8Type," + p + "Int32Type))",
			collection(2, []byte("a"), i32(1), []byte("b"), i32(2)), collection(2, []byte("a"), i32(1), []byte("b"), i32(3))},
		{"tuple<int,text>", p + "TupleType(" + p + "Int32Type," + p + "UTF8Type)",
			tuple(i32(1), []byte("abc")), tuple(i32(1), []byte("abd"))},
		{"vector<float,4>", p + "VectorType(" + p + "FloatType,4)",
			append(append(f32(1), f32(2)...), append(f32(3), f32(4)...)...),
			append(append(f32(1), f32(2)...), append(f32(3), f32(5)...)...)},
		{"vector<text,3>", p + "VectorType(" + p + "UTF8Type,3)",
			uvint([]byte("a"), []byte("bb"), []byte("ccc")), uvint([]byte("a"), []byte("bb"), []byte("ccd"))},
	}
	for _, c := range cases {
		typ, err := marshal.Parse(c.typ)
		if err != nil {
			b.Fatal(err)
		}
		if marshal.Compare(typ, c.a, c.b) >= 0 {
			b.Fatalf("%s: %x does not sort before %x", c.name, c.a, c.b)
		}
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				marshal.Compare(typ, c.a, c.b)
			}
		})
	}
}
