package arrowenc

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/big"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/extensions"

	"github.com/sstable-flight/sstable-flight/sstable/marshal"
)

// ErrMalformed is wrapped by every error about a value's bytes: a wrong
// width, a truncated collection, invalid UTF-8 in text.
var ErrMalformed = errors.New("malformed value")

// Appender appends serialized values of one CQL type to an Arrow builder.
// It holds the builder's typed form and, for nested types, one Appender
// per child builder, so appending dispatches on the kind and calls the
// typed Append directly: nothing is boxed or allocated per value.
//
// An Appender keeps pointers to its builder and the builder's children.
// arrow-go builders reset in place when they build an array, so the
// Appender stays valid across batches for as long as the builder lives.
// It is not safe for concurrent use.
type Appender struct {
	typ  *marshal.Type
	kind marshal.Kind
	b    array.Builder
	// emptyNull: a zero-length value is null (the type has no empty value).
	emptyNull bool
	// nested: the value has children, so Append validates it in full
	// before appending anything.
	nested bool

	// The typed builder of the kind; only the one the kind uses is set.
	bin  *array.BinaryBuilder // text, ascii, blob, inet, varint, decimal
	boo  *array.BooleanBuilder
	i8   *array.Int8Builder
	i16  *array.Int16Builder
	i32  *array.Int32Builder
	i64  *array.Int64Builder
	f32  *array.Float32Builder
	f64  *array.Float64Builder
	ts   *array.TimestampBuilder
	d32  *array.Date32Builder
	t64  *array.Time64Builder
	mdn  *array.MonthDayNanoIntervalBuilder
	fsb  *array.FixedSizeBinaryBuilder // uuid storage
	list *array.ListBuilder
	mp   *array.MapBuilder
	st   *array.StructBuilder
	fsl  *array.FixedSizeListBuilder

	kids []*Appender // element; map key and value; fields; vector element
	// width is a vector element's fixed width, -1 when elements carry an
	// unsigned vint length.
	width int

	text []byte  // scratch for inet, varint and decimal text
	mag  []byte  // scratch for a large negative varint's magnitude
	big  big.Int // scratch for a large varint
}

// NewAppender returns an Appender of t's values into b, which must be a
// builder of DataType(t), e.g. from array.NewBuilder or a RecordBuilder
// over Schema.
func NewAppender(t *marshal.Type, b array.Builder) (*Appender, error) {
	dt, err := DataType(t)
	if err != nil {
		return nil, fmt.Errorf("new appender: %w", err)
	}
	if !arrow.TypeEqual(dt, b.Type()) {
		return nil, fmt.Errorf("new appender for %s: builder of %s, want %s", t, b.Type(), dt)
	}
	return build(t, b)
}

// Type returns the CQL type the Appender decodes.
func (a *Appender) Type() *marshal.Type { return a.typ }

// Builder returns the builder the Appender appends to.
func (a *Appender) Builder() array.Builder { return a.b }

// Append appends one serialized value; nil appends null. On error nothing
// is appended: the builder is as it was.
func (a *Appender) Append(v []byte) error {
	if a.nested && v != nil {
		// Builders cannot undo a partial append, so a dry run over the
		// whole value comes first; the second pass then cannot fail.
		if err := a.put(v, false); err != nil {
			return a.fail(v, err)
		}
	}
	if err := a.put(v, true); err != nil {
		return a.fail(v, err)
	}
	return nil
}

// AppendNull appends a null.
func (a *Appender) AppendNull() { a.b.AppendNull() }

func (a *Appender) fail(v []byte, err error) error {
	return fmt.Errorf("append %s value of %d bytes: %w", a.typ, len(v), err)
}

func build(t *marshal.Type, b array.Builder) (*Appender, error) {
	a := &Appender{typ: t, kind: t.Kind, b: b, emptyNull: true, width: -1}
	ok := true
	var err error
	switch t.Kind {
	case marshal.Ascii, marshal.Text, marshal.Inet, marshal.VarInt, marshal.Decimal:
		a.emptyNull = t.Kind != marshal.Ascii && t.Kind != marshal.Text
		var sb *array.StringBuilder
		if sb, ok = b.(*array.StringBuilder); ok {
			a.bin = sb.BinaryBuilder
		}
	case marshal.Blob:
		a.emptyNull = false
		a.bin, ok = b.(*array.BinaryBuilder)
	case marshal.Boolean:
		a.boo, ok = b.(*array.BooleanBuilder)
	case marshal.TinyInt:
		a.i8, ok = b.(*array.Int8Builder)
	case marshal.SmallInt:
		a.i16, ok = b.(*array.Int16Builder)
	case marshal.Int:
		a.i32, ok = b.(*array.Int32Builder)
	case marshal.BigInt, marshal.Counter:
		a.i64, ok = b.(*array.Int64Builder)
	case marshal.Float:
		a.f32, ok = b.(*array.Float32Builder)
	case marshal.Double:
		a.f64, ok = b.(*array.Float64Builder)
	case marshal.Timestamp:
		a.ts, ok = b.(*array.TimestampBuilder)
	case marshal.Date:
		a.d32, ok = b.(*array.Date32Builder)
	case marshal.Time:
		a.t64, ok = b.(*array.Time64Builder)
	case marshal.Duration:
		a.mdn, ok = b.(*array.MonthDayNanoIntervalBuilder)
	case marshal.UUID, marshal.TimeUUID:
		var eb *array.ExtensionBuilder
		switch x := b.(type) {
		case *extensions.UUIDBuilder:
			eb = x.ExtensionBuilder
		case *array.ExtensionBuilder:
			eb = x
		}
		if ok = eb != nil; ok {
			a.fsb, ok = eb.Builder.(*array.FixedSizeBinaryBuilder)
		}
	case marshal.Empty:
		_, ok = b.(*array.NullBuilder)
	case marshal.List, marshal.Set:
		if a.list, ok = b.(*array.ListBuilder); ok {
			err = a.addKids(t.Elems, a.list.ValueBuilder())
		}
	case marshal.Map:
		if a.mp, ok = b.(*array.MapBuilder); ok {
			err = a.addKids(t.Elems, a.mp.KeyBuilder(), a.mp.ItemBuilder())
		}
	case marshal.Tuple, marshal.UDT:
		a.emptyNull = false // every field absent: a tuple of nulls
		if a.st, ok = b.(*array.StructBuilder); ok {
			kb := make([]array.Builder, a.st.NumField())
			for i := range kb {
				kb[i] = a.st.FieldBuilder(i)
			}
			err = a.addKids(t.Elems, kb...)
		}
	case marshal.Vector:
		if a.fsl, ok = b.(*array.FixedSizeListBuilder); ok {
			if err = a.addKids(t.Elems, a.fsl.ValueBuilder()); err == nil {
				a.width = t.Elems[0].FixedLength()
			}
		}
	default:
		return nil, fmt.Errorf("new appender for %s: kind %s has no Arrow type", t, t.Kind)
	}
	if !ok {
		return nil, fmt.Errorf("new appender for %s: unexpected builder %T", t, b)
	}
	if err != nil {
		return nil, err
	}
	a.nested = len(a.kids) > 0
	return a, nil
}

func (a *Appender) addKids(elems []*marshal.Type, bs ...array.Builder) error {
	if len(elems) != len(bs) {
		return fmt.Errorf("new appender for %s: %d types for %d builders", a.typ, len(elems), len(bs))
	}
	for i, e := range elems {
		k, err := build(e, bs[i])
		if err != nil {
			return err
		}
		a.kids = append(a.kids, k)
	}
	return nil
}

// isNull reports whether v is null for a's type: absent, or empty where
// the type has no empty value.
func (a *Appender) isNull(v []byte) bool {
	return v == nil || len(v) == 0 && a.emptyNull
}

// put validates v and, when apply is set, appends it. A put that
// succeeded with apply unset succeeds with it set, so a nested value is
// checked with a dry run before the real one.
func (a *Appender) put(v []byte, apply bool) error {
	if a.isNull(v) {
		if apply {
			a.b.AppendNull()
		}
		return nil
	}
	switch a.kind {
	case marshal.Ascii, marshal.Text, marshal.Blob, marshal.Inet, marshal.VarInt, marshal.Decimal:
		return a.putText(v, apply)
	case marshal.Duration:
		return a.putDuration(v, apply)
	case marshal.List, marshal.Set, marshal.Map:
		return a.putCollection(v, apply)
	case marshal.Tuple, marshal.UDT:
		return a.putFields(v, apply)
	case marshal.Vector:
		return a.putVector(v, apply)
	case marshal.Empty:
		return malformed("empty type with %d bytes", len(v))
	}
	return a.putFixed(v, apply)
}

// putFixed appends the fixed-width kinds.
func (a *Appender) putFixed(v []byte, apply bool) error {
	want := a.kind.ValueWidth() // marshal's table, the one home of the widths
	if len(v) != want {
		return malformed("%s of %d bytes, want %d", a.kind, len(v), want)
	}
	if !apply {
		return nil
	}
	switch a.kind {
	case marshal.Boolean:
		a.boo.Append(v[0] != 0)
	case marshal.TinyInt:
		a.i8.Append(int8(v[0]))
	case marshal.SmallInt:
		a.i16.Append(int16(binary.BigEndian.Uint16(v)))
	case marshal.Int:
		a.i32.Append(int32(binary.BigEndian.Uint32(v)))
	case marshal.BigInt, marshal.Counter:
		a.i64.Append(int64(binary.BigEndian.Uint64(v)))
	case marshal.Float:
		a.f32.Append(math.Float32frombits(binary.BigEndian.Uint32(v)))
	case marshal.Double:
		a.f64.Append(math.Float64frombits(binary.BigEndian.Uint64(v)))
	case marshal.Date:
		// Days with 1970-01-01 at 2^31: subtracting 2^31 in uint32 and
		// reading the bits as int32 covers the whole range exactly.
		a.d32.Append(arrow.Date32(int32(binary.BigEndian.Uint32(v) - 1<<31)))
	case marshal.Time:
		a.t64.Append(arrow.Time64(int64(binary.BigEndian.Uint64(v))))
	case marshal.Timestamp:
		a.ts.Append(arrow.Timestamp(int64(binary.BigEndian.Uint64(v))))
	case marshal.UUID, marshal.TimeUUID:
		a.fsb.Append(v)
	}
	return nil
}

// putDuration appends three zigzag vints: months, days, nanoseconds.
func (a *Appender) putDuration(v []byte, apply bool) error {
	var vals [3]int64
	rest := v
	for i := range vals {
		// NB: ReadUvint inlines and ReadVint does not; the call was 0.5%
		// of the instructions of a row of every type.
		x, n, err := marshal.ReadUvint(rest)
		if err != nil {
			return malformed("duration truncated in component %d", i)
		}
		vals[i], rest = marshal.DecodeZigZag(x), rest[n:]
	}
	if len(rest) != 0 {
		return malformed("%d bytes after the duration", len(rest))
	}
	if vals[0] != int64(int32(vals[0])) || vals[1] != int64(int32(vals[1])) {
		return malformed("duration of %d months, %d days overflows int32", vals[0], vals[1])
	}
	if apply {
		a.mdn.Append(arrow.MonthDayNanoInterval{Months: int32(vals[0]), Days: int32(vals[1]), Nanoseconds: vals[2]})
	}
	return nil
}

func malformed(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrMalformed}, args...)...)
}
