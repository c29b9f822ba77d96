package arrowenc_test

import (
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/extensions"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/sstable-flight/sstable-flight/flightserver/arrowenc"
	"github.com/sstable-flight/sstable-flight/reconcile"
	"github.com/sstable-flight/sstable-flight/sstable/marshal"
)

// TestDataType pins the mapping of docs/types.md, one row per CQL type.
func TestDataType(t *testing.T) {
	str, i64 := arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64
	addr := address()
	cases := []struct {
		typ  *marshal.Type
		want arrow.DataType
	}{
		{nat(marshal.Ascii), str},
		{nat(marshal.Text), str},
		{nat(marshal.BigInt), i64},
		{nat(marshal.Counter), i64},
		{nat(marshal.Int), arrow.PrimitiveTypes.Int32},
		{nat(marshal.SmallInt), arrow.PrimitiveTypes.Int16},
		{nat(marshal.TinyInt), arrow.PrimitiveTypes.Int8},
		{nat(marshal.Boolean), arrow.FixedWidthTypes.Boolean},
		{nat(marshal.Float), arrow.PrimitiveTypes.Float32},
		{nat(marshal.Double), arrow.PrimitiveTypes.Float64},
		{nat(marshal.Blob), arrow.BinaryTypes.Binary},
		{nat(marshal.Timestamp), &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "UTC"}},
		{nat(marshal.Date), arrow.FixedWidthTypes.Date32},
		{nat(marshal.Time), &arrow.Time64Type{Unit: arrow.Nanosecond}},
		{nat(marshal.UUID), extensions.NewUUIDType()},
		{nat(marshal.TimeUUID), extensions.NewUUIDType()},
		{nat(marshal.Inet), str},
		{nat(marshal.Duration), arrow.FixedWidthTypes.MonthDayNanoInterval},
		{nat(marshal.VarInt), str},
		{nat(marshal.Decimal), str},
		{nat(marshal.Empty), arrow.Null},
		{vectorOf(nat(marshal.Float), 3), arrow.FixedSizeListOf(3, arrow.PrimitiveTypes.Float32)},
		{vectorOf(nat(marshal.Text), 2), arrow.FixedSizeListOf(2, str)},
		{listOf(nat(marshal.Int)), arrow.ListOf(arrow.PrimitiveTypes.Int32)},
		{frozen(listOf(nat(marshal.Int))), arrow.ListOf(arrow.PrimitiveTypes.Int32)},
		{setOf(nat(marshal.Text)), arrow.ListOf(str)},
		{mapOf(nat(marshal.Text), nat(marshal.Int)), arrow.MapOf(str, arrow.PrimitiveTypes.Int32)},
		{frozen(mapOf(nat(marshal.Int), setOf(nat(marshal.Text)))), arrow.MapOf(arrow.PrimitiveTypes.Int32, arrow.ListOf(str))},
		{tupleOf(nat(marshal.Int), nat(marshal.Text)), arrow.StructOf(
			arrow.Field{Name: "0", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
			arrow.Field{Name: "1", Type: str, Nullable: true})},
		{addr, arrow.StructOf(
			arrow.Field{Name: "street", Type: str, Nullable: true},
			arrow.Field{Name: "zip", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
			arrow.Field{Name: "loc", Type: arrow.StructOf(
				arrow.Field{Name: "0", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
				arrow.Field{Name: "1", Type: arrow.PrimitiveTypes.Float64, Nullable: true}), Nullable: true})},
		{&marshal.Type{Kind: marshal.Int, Reversed: true}, arrow.PrimitiveTypes.Int32},
	}
	for _, c := range cases {
		got, err := arrowenc.DataType(c.typ)
		if err != nil {
			t.Errorf("%s: %v", c.typ, err)
			continue
		}
		if !arrow.TypeEqual(got, c.want) {
			t.Errorf("%s: %s, want %s", c.typ, got, c.want)
		}
	}

	// Nullability: every element and field nullable but map keys.
	m, _ := arrowenc.DataType(mapOf(nat(marshal.Text), nat(marshal.Int)))
	mt := m.(*arrow.MapType)
	if mt.KeyField().Nullable || !mt.ItemField().Nullable || mt.KeysSorted {
		t.Errorf("map fields: key nullable %v, item nullable %v, sorted %v", mt.KeyField().Nullable, mt.ItemField().Nullable, mt.KeysSorted)
	}
	l, _ := arrowenc.DataType(listOf(nat(marshal.Int)))
	if !l.(*arrow.ListType).ElemField().Nullable {
		t.Error("list element not nullable")
	}
	v, _ := arrowenc.DataType(vectorOf(nat(marshal.Float), 3))
	if !v.(*arrow.FixedSizeListType).ElemField().Nullable {
		t.Error("vector element not nullable")
	}
}

func TestDataTypeErrors(t *testing.T) {
	for _, typ := range []*marshal.Type{
		nil,
		{Kind: marshal.Invalid},
		{Kind: marshal.Composite, Elems: []*marshal.Type{nat(marshal.Int)}},
		{Kind: marshal.DynamicComposite},
		{Kind: marshal.PartitionerOrder},
		listOf(&marshal.Type{Kind: marshal.Composite}),
		{Kind: marshal.List},
		{Kind: marshal.Map, Elems: []*marshal.Type{nat(marshal.Int)}},
		{Kind: marshal.UDT, Elems: []*marshal.Type{nat(marshal.Int)}},
		vectorOf(nat(marshal.Float), 0),
		vectorOf(nat(marshal.Empty), 2),
	} {
		if dt, err := arrowenc.DataType(typ); err == nil {
			t.Errorf("%v: %s, want an error", typ, dt)
		}
	}
}

func TestField(t *testing.T) {
	f, err := arrowenc.Field(arrowenc.ColumnSpec{Name: "c", Type: &marshal.Type{Kind: marshal.Int, Reversed: true}, Kind: arrowenc.KindClustering, Position: 2})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"cql.type": "int", "cql.kind": "clustering", "cql.clustering_order": "desc", "cql.position": "2"}
	checkMeta(t, f, want)
	if !f.Nullable || f.Name != "c" {
		t.Errorf("field %v", f)
	}

	f, err = arrowenc.Field(arrowenc.ColumnSpec{Name: "c2", Type: nat(marshal.Text), Kind: arrowenc.KindClustering})
	if err != nil {
		t.Fatal(err)
	}
	checkMeta(t, f, map[string]string{"cql.type": "text", "cql.kind": "clustering", "cql.clustering_order": "asc", "cql.position": "0"})

	f, err = arrowenc.Field(arrowenc.ColumnSpec{Name: "k", Type: nat(marshal.UUID), Kind: arrowenc.KindPartitionKey, Position: 1})
	if err != nil {
		t.Fatal(err)
	}
	checkMeta(t, f, map[string]string{"cql.type": "uuid", "cql.kind": "partition_key", "cql.position": "1"})

	f, err = arrowenc.Field(arrowenc.ColumnSpec{Name: "m", Type: mapOf(nat(marshal.Text), frozen(listOf(nat(marshal.Int)))), Kind: arrowenc.KindStatic, Position: 9})
	if err != nil {
		t.Fatal(err)
	}
	checkMeta(t, f, map[string]string{"cql.type": "map<text, frozen<list<int>>>", "cql.kind": "static"})

	for _, c := range []arrowenc.ColumnSpec{
		{Name: "x", Type: nat(marshal.Int), Kind: "primary"},
		{Name: "x", Kind: arrowenc.KindRegular},
		{Name: "x", Type: &marshal.Type{Kind: marshal.Composite}, Kind: arrowenc.KindRegular},
		{Name: "x", Type: nat(marshal.Int), Kind: arrowenc.KindClustering, Position: -1},
	} {
		if _, err := arrowenc.Field(c); err == nil {
			t.Errorf("%+v: no error", c)
		} else if !strings.Contains(err.Error(), `"x"`) {
			t.Errorf("error %q does not name the column", err)
		}
	}

	s, err := arrowenc.Schema([]arrowenc.ColumnSpec{
		{Name: "k", Type: nat(marshal.Int), Kind: arrowenc.KindPartitionKey},
		{Name: "v", Type: nat(marshal.Text), Kind: arrowenc.KindRegular},
	})
	if err != nil {
		t.Fatal(err)
	}
	if s.NumFields() != 2 || s.Field(1).Name != "v" {
		t.Errorf("schema %s", s)
	}
}

func checkMeta(t *testing.T, f arrow.Field, want map[string]string) {
	t.Helper()
	if f.Metadata.Len() != len(want) {
		t.Errorf("%s: metadata %v, want %v", f.Name, f.Metadata, want)
	}
	for k, v := range want {
		if got, ok := f.Metadata.GetValue(k); !ok || got != v {
			t.Errorf("%s: %s = %q, want %q", f.Name, k, got, v)
		}
	}
}

func TestNewAppenderChecksBuilder(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	b := array.NewInt64Builder(mem)
	defer b.Release()
	if _, err := arrowenc.NewAppender(nat(marshal.Int), b); err == nil {
		t.Error("int appender over an Int64 builder")
	}
	sb := array.NewBuilder(mem, arrow.StructOf(arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int32, Nullable: true}))
	defer sb.Release()
	if _, err := arrowenc.NewAppender(udtOf("u", []string{"y"}, nat(marshal.Int)), sb); err == nil {
		t.Error("udt appender over a struct with other field names")
	}
	if _, err := arrowenc.NewAppender(&marshal.Type{Kind: marshal.Composite}, b); err == nil {
		t.Error("appender of a composite")
	}
	// A plain extension builder over the uuid type works as well as
	// extensions.UUIDBuilder.
	eb := array.NewExtensionBuilder(mem, extensions.NewUUIDType())
	defer eb.Release()
	a, err := arrowenc.NewAppender(nat(marshal.UUID), eb)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Append(make([]byte, 16)); err != nil {
		t.Fatal(err)
	}
	arr := eb.NewArray()
	defer arr.Release()
	if arr.Len() != 1 || arr.IsNull(0) {
		t.Errorf("uuid array %v", arr)
	}
}

// TestBatcher: rows go into batches cut at the row bound and at the
// byte estimate, each a valid record of the rows added since the last;
// a value that does not decode fails Add, and the Batcher is then not
// reused for another stream.
func TestBatcher(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	specs := []arrowenc.ColumnSpec{
		{Name: "k", Type: nat(marshal.Int), Kind: arrowenc.KindPartitionKey},
		{Name: "l", Type: listOf(nat(marshal.Int)), Kind: arrowenc.KindRegular},
	}
	cols := []arrowenc.Column{{Spec: specs[0], From: arrowenc.FromKey}, {Spec: specs[1], From: arrowenc.FromValue}}
	schema, err := arrowenc.Schema(specs)
	if err != nil {
		t.Fatal(err)
	}
	b, err := arrowenc.NewBatcher(mem, schema, cols, []int{0, 1}, 1, 5, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	for batch := range 3 {
		for i := range 5 {
			full, err := b.Add(&reconcile.Row{Key: be32(int32(batch*10 + i)), Values: []reconcile.Value{{Bytes: coll(be32(int32(i)))}}})
			if err != nil || full != (i == 4) {
				t.Fatalf("row %d: full %v, error %v", i, full, err)
			}
		}
		rec := b.Flush()
		if err := array.ValidateRecordFull(rec); err != nil {
			t.Fatal(err)
		}
		if rec.NumRows() != 5 || !rec.Schema().Equal(b.Schema()) {
			t.Fatalf("record of %d rows, schema %s", rec.NumRows(), rec.Schema())
		}
		for i := range 5 {
			if got := rec.Column(0).(*array.Int32).Value(i); got != int32(batch*10+i) {
				t.Errorf("batch %d row %d: k %d", batch, i, got)
			}
			if got, want := canonOf(specs[1].Type, rec.Column(1), i), any([]any{i}); !sameCanon(t, got, want) {
				t.Errorf("batch %d row %d: l %s, want %s", batch, i, jsonString(got), jsonString(want))
			}
		}
		rec.Release()
	}
	if b.Flush() != nil {
		t.Error("a batch of no rows")
	}
	if !b.Reset() {
		t.Error("a Batcher whose rows all appended is not reusable")
	}
	v := coll(be32(1))
	if _, err := b.Add(&reconcile.Row{Key: be32(1), Values: []reconcile.Value{{Bytes: v[:len(v)-1]}}}); err == nil {
		t.Error("a truncated list appended")
	}
	if b.Reset() {
		t.Error("a Batcher holding a half-appended row is reusable")
	}
	b.Release()

	// The byte estimate cuts a batch before the row bound.
	b, err = arrowenc.NewBatcher(mem, schema, cols, []int{0, 1}, 1, 1000, 64)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Release()
	rows := 0
	for full := false; !full; rows++ {
		if full, err = b.Add(&reconcile.Row{Key: be32(1), Values: []reconcile.Value{{Bytes: coll(be32(1), be32(2))}}}); err != nil {
			t.Fatal(err)
		}
	}
	rec := b.Flush()
	if rec.NumRows() != int64(rows) || rows >= 1000 {
		t.Errorf("cut at %d rows (record of %d), want before 1000 by bytes", rows, rec.NumRows())
	}
	rec.Release()

	if _, err := arrowenc.Schema([]arrowenc.ColumnSpec{{Name: "bad", Type: nat(marshal.Int), Kind: "nope"}}); err == nil {
		t.Error("schema with a bad column kind")
	}
}

// TestNestedFieldsCarryCQLType: every nested Arrow field (a collection's
// element, a map's key and value, a tuple's and a UDT's fields, a
// vector's element) carries its own cql.type, so a client tells an inet
// or a varint inside a UDT (whose cql.type is only its name) from the
// utf8 it travels as.
func TestNestedFieldsCarryCQLType(t *testing.T) {
	typ := udtOf("holder", []string{"addr", "nums", "m", "home"},
		nat(marshal.Inet), listOf(nat(marshal.VarInt)), mapOf(nat(marshal.Text), nat(marshal.Decimal)), address())
	dt, err := arrowenc.DataType(typ)
	if err != nil {
		t.Fatal(err)
	}
	st := dt.(*arrow.StructType)
	checkMeta(t, st.Field(0), map[string]string{"cql.type": "inet"})
	checkMeta(t, st.Field(1), map[string]string{"cql.type": "list<varint>"})
	checkMeta(t, st.Field(1).Type.(*arrow.ListType).ElemField(), map[string]string{"cql.type": "varint"})
	m := st.Field(2).Type.(*arrow.MapType)
	checkMeta(t, m.KeyField(), map[string]string{"cql.type": "text"})
	checkMeta(t, m.ItemField(), map[string]string{"cql.type": "decimal"})
	home := st.Field(3).Type.(*arrow.StructType)
	checkMeta(t, home.Field(2), map[string]string{"cql.type": "frozen<tuple<double, double>>"})
	checkMeta(t, home.Field(2).Type.(*arrow.StructType).Field(1), map[string]string{"cql.type": "double"})

	vt, err := arrowenc.DataType(vectorOf(nat(marshal.Float), 3))
	if err != nil {
		t.Fatal(err)
	}
	checkMeta(t, vt.(*arrow.FixedSizeListType).ElemField(), map[string]string{"cql.type": "float"})
}
