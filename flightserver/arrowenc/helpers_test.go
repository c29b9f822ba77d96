package arrowenc_test

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/extensions"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/sstable-flight/sstable-flight/flightserver/arrowenc"
	"github.com/sstable-flight/sstable-flight/internal/testkit/corpus"
	"github.com/sstable-flight/sstable-flight/sstable/marshal"
)

// newAppender returns a builder of typ's Arrow type on mem and an
// Appender into it. The caller releases the builder, before its checked
// allocator asserts that nothing is left.
func newAppender(t testing.TB, mem memory.Allocator, typ *marshal.Type) (array.Builder, *arrowenc.Appender) {
	t.Helper()
	dt, err := arrowenc.DataType(typ)
	if err != nil {
		t.Fatal(err)
	}
	b := array.NewBuilder(mem, dt)
	a, err := arrowenc.NewAppender(typ, b)
	if err != nil {
		b.Release()
		t.Fatal(err)
	}
	return b, a
}

// Type constructors.

func nat(k marshal.Kind) *marshal.Type { return &marshal.Type{Kind: k} }

func listOf(e *marshal.Type) *marshal.Type {
	return &marshal.Type{Kind: marshal.List, Elems: []*marshal.Type{e}}
}

func setOf(e *marshal.Type) *marshal.Type {
	return &marshal.Type{Kind: marshal.Set, Elems: []*marshal.Type{e}}
}

func mapOf(k, v *marshal.Type) *marshal.Type {
	return &marshal.Type{Kind: marshal.Map, Elems: []*marshal.Type{k, v}}
}

func tupleOf(es ...*marshal.Type) *marshal.Type {
	return &marshal.Type{Kind: marshal.Tuple, Frozen: true, Elems: es}
}

func udtOf(name string, names []string, es ...*marshal.Type) *marshal.Type {
	return &marshal.Type{Kind: marshal.UDT, Frozen: true, Keyspace: "ks", Name: name, FieldNames: names, Elems: es}
}

func vectorOf(e *marshal.Type, dim int) *marshal.Type {
	return &marshal.Type{Kind: marshal.Vector, Frozen: true, Elems: []*marshal.Type{e}, Dim: dim}
}

func frozen(t *marshal.Type) *marshal.Type {
	u := *t
	u.Frozen = true
	return &u
}

// Value encoders: the serialized forms CQL sends.

func be16(v int16) []byte { return binary.BigEndian.AppendUint16(nil, uint16(v)) }
func be32(v int32) []byte { return binary.BigEndian.AppendUint32(nil, uint32(v)) }
func be64(v int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(v)) }
func f32(v float32) []byte {
	return binary.BigEndian.AppendUint32(nil, math.Float32bits(v))
}
func f64(v float64) []byte {
	return binary.BigEndian.AppendUint64(nil, math.Float64bits(v))
}

// date encodes days since the epoch as CQL does: unsigned, epoch at 2^31.
func date(days int64) []byte { return binary.BigEndian.AppendUint32(nil, uint32(days+1<<31)) }

func unhex(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

func duration(months, days, nanos int64) []byte {
	return marshal.AppendVint(marshal.AppendVint(marshal.AppendVint(nil, months), days), nanos)
}

// lp writes int32-length-prefixed values; nil is null (length -1).
func lp(vals ...[]byte) []byte {
	var b []byte
	for _, v := range vals {
		if v == nil {
			b = binary.BigEndian.AppendUint32(b, math.MaxUint32)
			continue
		}
		b = binary.BigEndian.AppendUint32(b, uint32(len(v)))
		b = append(b, v...)
	}
	if b == nil {
		b = []byte{}
	}
	return b
}

// coll encodes a list or set; pairs encodes a map from key, value, ...
func coll(vals ...[]byte) []byte { return append(be32(int32(len(vals))), lp(vals...)...) }
func pairs(kv ...[]byte) []byte  { return append(be32(int32(len(kv)/2)), lp(kv...)...) }

// vvec encodes a vector of variable-width elements.
func vvec(vals ...[]byte) []byte {
	b := []byte{}
	for _, v := range vals {
		b = append(marshal.AppendUvint(b, uint64(len(v))), v...)
	}
	return b
}

// canonOf converts one Arrow value back into the corpus' canonical JSON
// form (testdata/corpus/README.md). It reads only the Arrow arrays, with
// the CQL type deciding the rendering; it shares no code with the byte
// decoders it checks.
func canonOf(t *marshal.Type, arr arrow.Array, i int) any {
	if arr.IsNull(i) || arr.DataType().ID() == arrow.NULL {
		return nil
	}
	switch t.Kind {
	case marshal.Ascii, marshal.Text, marshal.Inet, marshal.VarInt, marshal.Decimal:
		return arr.(*array.String).Value(i)
	case marshal.Blob:
		return "0x" + hex.EncodeToString(arr.(*array.Binary).Value(i))
	case marshal.Boolean:
		return arr.(*array.Boolean).Value(i)
	case marshal.TinyInt:
		return int64(arr.(*array.Int8).Value(i))
	case marshal.SmallInt:
		return int64(arr.(*array.Int16).Value(i))
	case marshal.Int:
		return int64(arr.(*array.Int32).Value(i))
	case marshal.BigInt, marshal.Counter:
		return strconv.FormatInt(arr.(*array.Int64).Value(i), 10)
	case marshal.Float:
		return corpus.Float(float64(arr.(*array.Float32).Value(i)), 32)
	case marshal.Double:
		return corpus.Float(arr.(*array.Float64).Value(i), 64)
	case marshal.Date:
		d := int64(arr.(*array.Date32).Value(i))
		return time.Unix(d*86400, 0).UTC().Format("2006-01-02")
	case marshal.Time:
		return int64(arr.(*array.Time64).Value(i))
	case marshal.Timestamp:
		ms := int64(arr.(*array.Timestamp).Value(i))
		return time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z")
	case marshal.UUID, marshal.TimeUUID:
		return arr.(*extensions.UUIDArray).Value(i).String()
	case marshal.Duration:
		d := arr.(*array.MonthDayNanoInterval).Value(i)
		return map[string]any{"months": int64(d.Months), "days": int64(d.Days), "nanos": d.Nanoseconds}
	case marshal.List, marshal.Set, marshal.Vector:
		// A vector's fixed-size list reads as a list does.
		l := arr.(array.ListLike)
		start, end := l.ValueOffsets(i)
		out := []any{}
		for j := start; j < end; j++ {
			out = append(out, canonOf(t.Elems[0], l.ListValues(), int(j)))
		}
		return out
	case marshal.Map:
		m := arr.(*array.Map)
		start, end := m.ValueOffsets(i)
		out := []any{}
		for j := start; j < end; j++ {
			out = append(out, []any{canonOf(t.Elems[0], m.Keys(), int(j)), canonOf(t.Elems[1], m.Items(), int(j))})
		}
		return out
	case marshal.Tuple:
		s := arr.(*array.Struct)
		out := make([]any, len(t.Elems))
		for j, e := range t.Elems {
			out[j] = canonOf(e, s.Field(j), i)
		}
		return out
	case marshal.UDT:
		s := arr.(*array.Struct)
		out := map[string]any{}
		for j, e := range t.Elems {
			out[t.FieldNames[j]] = canonOf(e, s.Field(j), i)
		}
		return out
	}
	panic(fmt.Sprintf("canonOf: kind %s", t.Kind))
}

// normJSON renders v as JSON and decodes it back with numbers kept as
// text, so values compare exactly: 1 and 1.0 differ, key order does not.
func normJSON(t testing.TB, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("marshal %v: %v", v, err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var out any
	if err := dec.Decode(&out); err != nil {
		t.Fatal(err)
	}
	return out
}

func sameCanon(t testing.TB, a, b any) bool {
	return reflect.DeepEqual(normJSON(t, a), normJSON(t, b))
}

func num(s string) json.Number { return json.Number(s) }

func jsonString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
