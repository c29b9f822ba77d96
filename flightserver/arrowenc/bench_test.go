package arrowenc_test

import (
	"math"
	"runtime"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/sstable-flight/sstable-flight/flightserver/arrowenc"
	"github.com/sstable-flight/sstable-flight/reconcile"
	"github.com/sstable-flight/sstable-flight/sstable/marshal"
)

// benchBatchRows is a typical record batch size for the Flight stream.
const benchBatchRows = 4096

// benchRows appends b.N rows of vals through the Batcher the server
// streams with, cutting a record every benchBatchRows rows as a scan
// does (a partition key column's value is the row's key, the others its
// values). One op is one row. Builders hand their buffers to each record,
// so every batch allocates its buffers anew (and the record's few
// objects): the allocs/batch metric; appending a value allocates nothing,
// so allocs/op rounds to 0.
func benchRows(b *testing.B, specs []arrowenc.ColumnSpec, vals [][]byte) {
	mem := memory.NewGoAllocator()
	schema, err := arrowenc.Schema(specs)
	if err != nil {
		b.Fatal(err)
	}
	cols := make([]arrowenc.Column, len(specs))
	projection := make([]int, len(specs))
	row := &reconcile.Row{}
	for i, spec := range specs {
		cols[i], projection[i] = arrowenc.Column{Spec: spec, From: arrowenc.FromValue, Index: len(row.Values)}, i
		if spec.Kind == arrowenc.KindPartitionKey {
			cols[i].From, cols[i].Index, row.Key = arrowenc.FromKey, 0, vals[i]
			continue
		}
		row.Values = append(row.Values, reconcile.Value{Bytes: vals[i]})
	}
	batcher, err := arrowenc.NewBatcher(mem, schema, cols, projection, 1, benchBatchRows, math.MaxInt)
	if err != nil {
		b.Fatal(err)
	}
	defer batcher.Release()
	b.ReportAllocs()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	b.ResetTimer()
	for range b.N {
		full, err := batcher.Add(row)
		if err != nil {
			b.Fatal(err)
		}
		if full {
			batcher.Flush().Release()
		}
	}
	b.StopTimer()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(b.N)*benchBatchRows, "allocs/batch")
}

// BenchmarkAppendNarrow: an int, a text and a bigint column.
func BenchmarkAppendNarrow(b *testing.B) {
	cols := []arrowenc.ColumnSpec{
		{Name: "id", Type: nat(marshal.Int), Kind: arrowenc.KindPartitionKey},
		{Name: "v", Type: nat(marshal.Text), Kind: arrowenc.KindRegular},
		{Name: "n", Type: nat(marshal.BigInt), Kind: arrowenc.KindRegular},
	}
	benchRows(b, cols, [][]byte{be32(42), []byte("a short text value"), be64(1 << 40)})
}

// BenchmarkAppendWide: every native type but varint and decimal, plus a
// list<int> and a map<text, int>.
func BenchmarkAppendWide(b *testing.B) {
	var cols []arrowenc.ColumnSpec
	var vals [][]byte
	add := func(t *marshal.Type, v []byte) {
		cols = append(cols, arrowenc.ColumnSpec{Name: t.String(), Type: t, Kind: arrowenc.KindRegular})
		vals = append(vals, v)
	}
	add(nat(marshal.Ascii), []byte("ascii"))
	add(nat(marshal.BigInt), be64(1))
	add(nat(marshal.Blob), []byte{1, 2, 3, 4})
	add(nat(marshal.Boolean), []byte{1})
	add(nat(marshal.Date), date(19000))
	add(nat(marshal.Double), f64(1.5))
	add(nat(marshal.Duration), duration(1, 2, 3))
	add(nat(marshal.Float), f32(1.5))
	add(nat(marshal.Inet), []byte{10, 0, 0, 1})
	add(nat(marshal.Int), be32(1))
	add(nat(marshal.SmallInt), be16(1))
	add(nat(marshal.Text), []byte("text"))
	add(nat(marshal.Time), be64(1))
	add(nat(marshal.Timestamp), be64(1))
	add(nat(marshal.TimeUUID), unhex("d2177dd0eaa211e5a1580800200c9a66"))
	add(nat(marshal.TinyInt), []byte{1})
	add(nat(marshal.UUID), unhex("550e8400e29b41d4a716446655440000"))
	add(listOf(nat(marshal.Int)), coll(be32(1), be32(2), be32(3), be32(4)))
	add(mapOf(nat(marshal.Text), nat(marshal.Int)), pairs([]byte("a"), be32(1), []byte("b"), be32(2)))
	benchRows(b, cols, vals)
}

// BenchmarkAppendVints: the values framed by Cassandra's unsigned vints,
// a duration of multi-byte vints and a vector of variable-width elements
// (each with a vint length).
func BenchmarkAppendVints(b *testing.B) {
	cols := []arrowenc.ColumnSpec{
		{Name: "d", Type: nat(marshal.Duration), Kind: arrowenc.KindRegular},
		{Name: "v", Type: vectorOf(nat(marshal.Text), 4), Kind: arrowenc.KindRegular},
	}
	vec := vvec([]byte("a"), make([]byte, 130), []byte("ccc"), []byte("dddd"))
	benchRows(b, cols, [][]byte{duration(14, -3, 7_000_000_001), vec})
}
