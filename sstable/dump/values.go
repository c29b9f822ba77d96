package dump

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"math/big"
	"strings"

	"github.com/sstable-flight/sstable-flight/sstable/marshal"
)

// ValueJSON renders a serialized value of type t as Cassandra 5.0's
// AbstractType.toJSONString(value, ProtocolVersion.CURRENT) does: the raw
// JSON text sstabledump writes for a cell or clustering value (and SELECT
// JSON returns). Numbers are bare, NaN and ±Infinity are null, blobs are
// "0x…", timestamps "yyyy-MM-dd HH:mm:ss.SSSZ", collections and tuples JSON
// arrays, maps and UDTs JSON objects.
//
// An empty (0-byte) value of a non-string type, which CQL can write (for
// example with a blob-cast of an empty string) and Cassandra keeps as
// distinct from null, renders as Cassandra 5.0 renders it: "" (an empty JSON
// string) for the numeric, boolean, temporal, uuid, inet and duration
// types, "0x" for a blob, and "null" (a JSON string, TimeSerializer's
// toString of no value) for time. Where Cassandra would throw instead (a
// counter, a frozen collection, tuple or vector) this renders "" too, and
// a UDT renders all fields null, as UserType's splitting yields no fields.
//
// It returns an error, never panics, on bytes that are not a valid value
// of t: the error names the type and what is wrong.
func ValueJSON(t *marshal.Type, b []byte) (string, error) {
	var sb strings.Builder
	if err := writeJSON(&sb, t, b); err != nil {
		return "", err
	}
	return sb.String(), nil
}

// ValueString renders a serialized value of type t as Cassandra 5.0's
// AbstractType.getString(value) does: what sstabledump prints for partition
// key components and collection cell paths. Text is raw (no quotes or
// escaping), blobs, counters, collections and vectors are lower-case hex
// without "0x", timestamps are "yyyy-MM-dd'T'HH:mm:ss.SSSZ", decimals are
// plain (no exponent), floats keep Java's spelling (NaN, Infinity, 1.0E10),
// tuples and UDTs are their fields' strings joined by ':' with ':' and '@'
// escaped and '@' for a null field, and a composite joins its components
// likewise.
//
// An empty value renders as "" except for date and time, whose Cassandra
// validators reject it: that is an error, as any other invalid value is.
func ValueString(t *marshal.Type, b []byte) (string, error) {
	if t == nil {
		return "", fmt.Errorf("render value as string: no type")
	}
	switch t.Kind {
	case marshal.Ascii, marshal.Text:
		if err := checkText(t, b); err != nil {
			return "", err
		}
		return string(b), nil
	case marshal.Blob, marshal.Counter, marshal.List, marshal.Set, marshal.Map, marshal.Vector,
		marshal.DynamicComposite, marshal.PartitionerOrder:
		return hex.EncodeToString(b), nil
	case marshal.Empty:
		if len(b) != 0 {
			return "", fmt.Errorf("render %s value: want 0 bytes, got %d", t, len(b))
		}
		return "", nil
	case marshal.Date, marshal.Time:
		if len(b) == 0 {
			return "", fmt.Errorf("render %s value: empty value", t)
		}
	case marshal.Tuple, marshal.UDT:
		return tupleString(t, b)
	case marshal.Composite:
		return compositeString(t, b)
	}
	if len(b) == 0 {
		return "", nil
	}
	switch t.Kind {
	case marshal.Decimal:
		unscaled, scale, err := decodeDecimal(t, b)
		if err != nil {
			return "", err
		}
		// A plain string pads with |scale| zeros; a corrupt 4-byte scale
		// would ask for gigabytes of them.
		if scale > maxPlainScale || scale < -maxPlainScale {
			return "", fmt.Errorf("render %s value: scale %d is too large to print without an exponent", t, scale)
		}
		return javaBigDecimalPlain(unscaled, scale), nil
	case marshal.Float:
		if len(b) != 4 {
			return "", lengthErr(t, 4, len(b))
		}
		return javaDouble(float64(math.Float32frombits(binary.BigEndian.Uint32(b))), 32), nil
	case marshal.Double:
		if len(b) != 8 {
			return "", lengthErr(t, 8, len(b))
		}
		return javaDouble(math.Float64frombits(binary.BigEndian.Uint64(b)), 64), nil
	case marshal.Timestamp:
		if len(b) != 8 {
			return "", lengthErr(t, 8, len(b))
		}
		return javaTimestamp(int64(binary.BigEndian.Uint64(b)), 'T'), nil
	}
	// The rest print the same text in both forms, JSON merely quoting
	// some of it.
	s, _, err := scalarText(t, b)
	return s, err
}

// writeJSON appends the toJSONString form of b to sb.
func writeJSON(sb *strings.Builder, t *marshal.Type, b []byte) error {
	if t == nil {
		return fmt.Errorf("render value as JSON: no type")
	}
	switch t.Kind {
	case marshal.Ascii, marshal.Text:
		if err := checkText(t, b); err != nil {
			return err
		}
		sb.WriteString(jsonQuote(string(b)))
		return nil
	case marshal.Blob:
		sb.WriteString(`"0x`)
		sb.WriteString(hex.EncodeToString(b))
		sb.WriteByte('"')
		return nil
	case marshal.Empty:
		// EmptyType.toJSONString is "" whatever it is given.
		sb.WriteString(`""`)
		return nil
	case marshal.Time:
		if len(b) == 0 {
			sb.WriteString(`"null"`)
			return nil
		}
	case marshal.UDT:
		return writeUDTJSON(sb, t, b)
	case marshal.Composite, marshal.DynamicComposite, marshal.PartitionerOrder:
		// No CQL column has these types; AbstractType's default quotes
		// the value's string form.
		s, err := ValueString(t, b)
		if err != nil {
			return err
		}
		sb.WriteString(jsonQuote(s))
		return nil
	}
	if len(b) == 0 {
		sb.WriteString(`""`)
		return nil
	}
	switch t.Kind {
	case marshal.Float, marshal.Double:
		var v float64
		bits := 64
		if t.Kind == marshal.Float {
			if len(b) != 4 {
				return lengthErr(t, 4, len(b))
			}
			v, bits = float64(math.Float32frombits(binary.BigEndian.Uint32(b))), 32
		} else {
			if len(b) != 8 {
				return lengthErr(t, 8, len(b))
			}
			v = math.Float64frombits(binary.BigEndian.Uint64(b))
		}
		// JSON has no NaN or Infinity; Cassandra writes null for them.
		if math.IsNaN(v) || math.IsInf(v, 0) {
			sb.WriteString("null")
		} else {
			sb.WriteString(javaDouble(v, bits))
		}
		return nil
	case marshal.Decimal:
		unscaled, scale, err := decodeDecimal(t, b)
		if err != nil {
			return err
		}
		sb.WriteString(javaBigDecimal(unscaled, scale))
		return nil
	case marshal.Timestamp:
		if len(b) != 8 {
			return lengthErr(t, 8, len(b))
		}
		sb.WriteByte('"')
		sb.WriteString(javaTimestamp(int64(binary.BigEndian.Uint64(b)), ' '))
		sb.WriteByte('"')
		return nil
	case marshal.Counter:
		// CounterColumnType.toJSONString deserializes with the long
		// serializer, which reads the first 8 bytes of the counter
		// context (its header, not the total) as a big-endian long.
		if len(b) < 8 {
			return fmt.Errorf("render %s value: want at least 8 bytes, got %d", t, len(b))
		}
		sb.WriteString(fmt.Sprint(int64(binary.BigEndian.Uint64(b))))
		return nil
	case marshal.List, marshal.Set:
		return writeListJSON(sb, t, b)
	case marshal.Map:
		return writeMapJSON(sb, t, b)
	case marshal.Tuple:
		return writeTupleJSON(sb, t, b)
	case marshal.Vector:
		return writeVectorJSON(sb, t, b)
	}
	s, quoted, err := scalarText(t, b)
	if err != nil {
		return err
	}
	if quoted {
		sb.WriteString(jsonQuote(s))
	} else {
		sb.WriteString(s)
	}
	return nil
}

// scalarText renders the native types whose getString and toJSONString
// agree up to JSON quoting; quoted reports whether toJSONString quotes it.
// b is not empty.
func scalarText(t *marshal.Type, b []byte) (s string, quoted bool, err error) {
	switch t.Kind {
	case marshal.Boolean:
		if len(b) != 1 {
			return "", false, lengthErr(t, 1, len(b))
		}
		// BooleanSerializer: any non-zero byte is true.
		if b[0] != 0 {
			return "true", false, nil
		}
		return "false", false, nil
	case marshal.TinyInt:
		if len(b) != 1 {
			return "", false, lengthErr(t, 1, len(b))
		}
		return fmt.Sprint(int8(b[0])), false, nil
	case marshal.SmallInt:
		if len(b) != 2 {
			return "", false, lengthErr(t, 2, len(b))
		}
		return fmt.Sprint(int16(binary.BigEndian.Uint16(b))), false, nil
	case marshal.Int:
		if len(b) != 4 {
			return "", false, lengthErr(t, 4, len(b))
		}
		return fmt.Sprint(int32(binary.BigEndian.Uint32(b))), false, nil
	case marshal.BigInt:
		if len(b) != 8 {
			return "", false, lengthErr(t, 8, len(b))
		}
		return fmt.Sprint(int64(binary.BigEndian.Uint64(b))), false, nil
	case marshal.VarInt:
		return marshal.DecodeVarInt(b).String(), false, nil
	case marshal.UUID, marshal.TimeUUID:
		if len(b) != 16 {
			return "", false, lengthErr(t, 16, len(b))
		}
		h := hex.EncodeToString(b)
		return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:], true, nil
	case marshal.Inet:
		s, ok := javaInet(b)
		if !ok {
			return "", false, fmt.Errorf("render %s value: want 4 or 16 bytes, got %d", t, len(b))
		}
		return s, true, nil
	case marshal.Date:
		if len(b) != 4 {
			return "", false, lengthErr(t, 4, len(b))
		}
		return javaDate(binary.BigEndian.Uint32(b)), true, nil
	case marshal.Time:
		if len(b) != 8 {
			return "", false, lengthErr(t, 8, len(b))
		}
		s, ok := javaTime(int64(binary.BigEndian.Uint64(b)))
		if !ok {
			return "", false, fmt.Errorf("render %s value: %d ns is not a time of day", t, int64(binary.BigEndian.Uint64(b)))
		}
		return s, true, nil
	case marshal.Duration:
		s, err := decodeDuration(t, b)
		return s, true, err
	}
	return "", false, fmt.Errorf("render %s value: type not supported", t)
}

// maxPlainScale bounds the zeros ValueString writes for a decimal.
const maxPlainScale = 1 << 16

func lengthErr(t *marshal.Type, want, got int) error {
	return fmt.Errorf("render %s value: want %d bytes, got %d", t, want, got)
}

func checkText(t *marshal.Type, b []byte) error {
	if t.Kind == marshal.Ascii {
		for i, c := range b {
			if c > 0x7f {
				return fmt.Errorf("render %s value: byte %#x at %d is not ASCII", t, c, i)
			}
		}
		return nil
	}
	if !validUTF8(b) {
		return fmt.Errorf("render %s value: invalid UTF-8", t)
	}
	return nil
}

// decodeDecimal splits a DecimalType value: a 4-byte big-endian scale, then
// the unscaled value in two's complement (at least one byte: Java's
// BigInteger rejects a zero-length magnitude).
func decodeDecimal(t *marshal.Type, b []byte) (*big.Int, int32, error) {
	if len(b) < 5 {
		return nil, 0, fmt.Errorf("render %s value: want at least 5 bytes (scale and unscaled value), got %d", t, len(b))
	}
	return marshal.DecodeVarInt(b[4:]), int32(binary.BigEndian.Uint32(b)), nil
}

// decodeDuration reads DurationSerializer's months, days (signed vint
// ints) and nanoseconds (signed vint long) and formats them.
func decodeDuration(t *marshal.Type, b []byte) (string, error) {
	var parts [3]int64
	off := 0
	for i := range parts {
		v, n, err := marshal.ReadVint(b[off:])
		if err != nil {
			return "", fmt.Errorf("render %s value: truncated at byte %d of %d", t, off, len(b))
		}
		parts[i] = v
		off += n
	}
	if off != len(b) {
		return "", fmt.Errorf("render %s value: %d bytes left after months, days and nanoseconds", t, len(b)-off)
	}
	if parts[0] != int64(int32(parts[0])) || parts[1] != int64(int32(parts[1])) {
		return "", fmt.Errorf("render %s value: months %d or days %d overflow an int", t, parts[0], parts[1])
	}
	return javaDuration(int32(parts[0]), int32(parts[1]), parts[2]), nil
}

// reader walks the int32-length-prefixed values of a serialized collection,
// tuple or UDT. A negative length is null.
type reader struct {
	t   *marshal.Type
	b   []byte
	off int
}

func (r *reader) done() bool { return r.off >= len(r.b) }

func (r *reader) int32(what string) (int32, error) {
	if len(r.b)-r.off < 4 {
		return 0, fmt.Errorf("render %s value: truncated %s at byte %d of %d", r.t, what, r.off, len(r.b))
	}
	v := int32(binary.BigEndian.Uint32(r.b[r.off:]))
	r.off += 4
	return v, nil
}

// value reads one element; null reports a negative length.
func (r *reader) value(what string) (v []byte, null bool, err error) {
	n, err := r.int32(what + " length")
	if err != nil {
		return nil, false, err
	}
	if n < 0 {
		return nil, true, nil
	}
	if int64(len(r.b)-r.off) < int64(n) {
		return nil, false, fmt.Errorf("render %s value: %s of %d bytes overruns the value at byte %d of %d", r.t, what, n, r.off, len(r.b))
	}
	v = r.b[r.off : r.off+int(n)]
	r.off += int(n)
	return v, false, nil
}

func (r *reader) end() error {
	if r.off != len(r.b) {
		return fmt.Errorf("render %s value: %d bytes left after the last element", r.t, len(r.b)-r.off)
	}
	return nil
}

// count reads a collection's element count, bounded by what the bytes
// could hold so that a corrupt count cannot make us loop for long.
func (r *reader) count() (int, error) {
	n, err := r.int32("element count")
	if err != nil {
		return 0, err
	}
	if n < 0 || int64(n) > int64(len(r.b)-r.off)/4 {
		return 0, fmt.Errorf("render %s value: element count %d does not fit in %d bytes", r.t, n, len(r.b))
	}
	return int(n), nil
}

func elem(t *marshal.Type, i int) (*marshal.Type, error) {
	if i >= len(t.Elems) || t.Elems[i] == nil {
		return nil, fmt.Errorf("render %s value: type has no parameter %d", t, i)
	}
	return t.Elems[i], nil
}

// writeElemJSON writes an element of parent, or null for a null one (which
// Cassandra itself never stores inside a collection but does inside
// tuples). An error names the parent type and the element too.
func writeElemJSON(sb *strings.Builder, parent, t *marshal.Type, what string, v []byte, null bool) error {
	if null {
		sb.WriteString("null")
		return nil
	}
	if err := writeJSON(sb, t, v); err != nil {
		return fmt.Errorf("render %s value: %s: %w", parent, what, err)
	}
	return nil
}

// writeNextJSON reads the next length-prefixed element of r and writes it
// as an element of type t: what names it to the reader ("element") and
// label to the error of a bad value ("element 3").
func (r *reader) writeNextJSON(sb *strings.Builder, t *marshal.Type, what, label string) error {
	v, null, err := r.value(what)
	if err != nil {
		return err
	}
	return writeElemJSON(sb, r.t, t, label, v, null)
}

// writeSeqJSON writes n items between open and close, separated by ", ",
// as every toJSONString of a collection, tuple, UDT or vector does; item
// writes the i-th.
func writeSeqJSON(sb *strings.Builder, open, close byte, n int, item func(i int) error) error {
	sb.WriteByte(open)
	for i := 0; i < n; i++ {
		if i > 0 {
			sb.WriteString(", ")
		}
		if err := item(i); err != nil {
			return err
		}
	}
	sb.WriteByte(close)
	return nil
}

// writeElemsJSON writes n items as writeSeqJSON does and then checks that
// they were all the value held.
func (r *reader) writeElemsJSON(sb *strings.Builder, open, close byte, n int, item func(i int) error) error {
	if err := writeSeqJSON(sb, open, close, n, item); err != nil {
		return err
	}
	return r.end()
}

// writeComponentJSON writes the next component of a tuple or UDT, or null
// where the value ends before it (one written before the type was
// extended).
func (r *reader) writeComponentJSON(sb *strings.Builder, t *marshal.Type, what, label string) error {
	if r.done() {
		sb.WriteString("null")
		return nil
	}
	return r.writeNextJSON(sb, t, what, label)
}

// openCollection checks that the collection type t has its params type
// parameters and reads the element count at the start of b.
func openCollection(t *marshal.Type, b []byte, params int) (*reader, int, error) {
	for i := 0; i < params; i++ {
		if _, err := elem(t, i); err != nil {
			return nil, 0, err
		}
	}
	r := &reader{t: t, b: b}
	n, err := r.count()
	if err != nil {
		return nil, 0, err
	}
	return r, n, nil
}

// writeListJSON follows ListType.setOrListToJsonString: "[e1, e2]".
func writeListJSON(sb *strings.Builder, t *marshal.Type, b []byte) error {
	r, n, err := openCollection(t, b, 1)
	if err != nil {
		return err
	}
	return r.writeElemsJSON(sb, '[', ']', n, func(i int) error {
		return r.writeNextJSON(sb, t.Elems[0], "element", fmt.Sprintf("element %d", i))
	})
}

// writeMapJSON follows MapType.toJSONString: JSON object keys must be
// strings, so a key whose JSON form is not already a string (starts with a
// quote) is quoted as a string: {"1": "a"}, {"[1, 2]": "x"}.
func writeMapJSON(sb *strings.Builder, t *marshal.Type, b []byte) error {
	r, n, err := openCollection(t, b, 2)
	if err != nil {
		return err
	}
	kt, vt := t.Elems[0], t.Elems[1]
	return r.writeElemsJSON(sb, '{', '}', n, func(i int) error {
		var ks strings.Builder
		if err := r.writeNextJSON(&ks, kt, "key", fmt.Sprintf("key %d", i)); err != nil {
			return err
		}
		if key := ks.String(); strings.HasPrefix(key, `"`) {
			sb.WriteString(key)
		} else {
			sb.WriteString(jsonQuote(key))
		}
		sb.WriteString(": ")
		return r.writeNextJSON(sb, vt, "value", fmt.Sprintf("value %d", i))
	})
}

// writeTupleJSON follows TupleType.toJSONString: "[c1, c2]", null for a
// null component. Components missing at the end (a tuple written before
// the type was extended) render as null too.
func writeTupleJSON(sb *strings.Builder, t *marshal.Type, b []byte) error {
	r := reader{t: t, b: b}
	return r.writeElemsJSON(sb, '[', ']', len(t.Elems), func(i int) error {
		return r.writeComponentJSON(sb, t.Elems[i], "component", fmt.Sprintf("component %d", i))
	})
}

// writeUDTJSON follows UserType.toJSONString: {"field": value, ...} with
// every field, null for null or missing ones. A field name that is not all
// lower case is a quoted CQL identifier inside the JSON key: {"\"Zip\"": 1}.
func writeUDTJSON(sb *strings.Builder, t *marshal.Type, b []byte) error {
	r := reader{t: t, b: b}
	return r.writeElemsJSON(sb, '{', '}', len(t.Elems), func(i int) error {
		name := ""
		if i < len(t.FieldNames) {
			name = t.FieldNames[i]
		}
		if name != strings.ToLower(name) {
			// UserType quotes without doubling inner quotes.
			name = `"` + name + `"`
		}
		sb.WriteString(jsonQuote(name))
		sb.WriteString(": ")
		return r.writeComponentJSON(sb, t.Elems[i], "field "+name, "field "+name)
	})
}

// vectorElems splits a vector value: Dim elements, packed without lengths
// when the element type is fixed-width, else each behind an unsigned vint
// length.
func vectorElems(t *marshal.Type, b []byte) ([][]byte, *marshal.Type, error) {
	et, err := elem(t, 0)
	if err != nil {
		return nil, nil, err
	}
	if t.Dim <= 0 {
		return nil, nil, fmt.Errorf("render %s value: dimension %d", t, t.Dim)
	}
	if w := et.FixedLength(); w >= 0 {
		if int64(len(b)) != int64(w)*int64(t.Dim) {
			return nil, nil, lengthErr(t, w*t.Dim, len(b))
		}
		out := make([][]byte, t.Dim)
		for i := range out {
			out[i] = b[i*w : (i+1)*w]
		}
		return out, et, nil
	}
	if t.Dim > len(b) {
		// Every element takes at least its one-byte length.
		return nil, nil, fmt.Errorf("render %s value: %d bytes cannot hold %d elements", t, len(b), t.Dim)
	}
	out := make([][]byte, t.Dim)
	off := 0
	for i := range out {
		n, m, err := marshal.ReadUvint(b[off:])
		if err != nil || n > uint64(len(b)-off-m) {
			return nil, nil, fmt.Errorf("render %s value: element %d overruns the value at byte %d of %d", t, i, off, len(b))
		}
		off += m
		out[i] = b[off : off+int(n)]
		off += int(n)
	}
	if off != len(b) {
		return nil, nil, fmt.Errorf("render %s value: %d bytes left after the last element", t, len(b)-off)
	}
	return out, et, nil
}

// writeVectorJSON follows VectorType.toJSONString: "[e1, e2, ...]".
func writeVectorJSON(sb *strings.Builder, t *marshal.Type, b []byte) error {
	elems, et, err := vectorElems(t, b)
	if err != nil {
		return err
	}
	return writeSeqJSON(sb, '[', ']', len(elems), func(i int) error {
		return writeElemJSON(sb, t, et, fmt.Sprintf("element %d", i), elems[i], false)
	})
}

// tupleString follows TupleType.getString (UserType inherits it): the
// present components' strings joined by ':', '@' for a null one, and ':'
// and '@' inside a component escaped with a backslash.
func tupleString(t *marshal.Type, b []byte) (string, error) {
	r := reader{t: t, b: b}
	var sb strings.Builder
	for i, ct := range t.Elems {
		if r.done() {
			break
		}
		if i > 0 {
			sb.WriteByte(':')
		}
		v, null, err := r.value("component")
		if err != nil {
			return "", err
		}
		if null {
			sb.WriteByte('@')
			continue
		}
		s, err := ValueString(ct, v)
		if err != nil {
			return "", fmt.Errorf("render %s value: component %d: %w", t, i, err)
		}
		s = strings.ReplaceAll(s, ":", `\:`)
		sb.WriteString(strings.ReplaceAll(s, "@", `\@`))
	}
	return sb.String(), r.end()
}

// splitComposite splits a CompositeType value (a multi-column partition
// key, or a slice bound) with marshal.ReadComponent. It returns the
// components and the last end-of-component byte read: a non-zero one
// (only in slice bounds, never in a stored key) ends the value.
func splitComposite(t *marshal.Type, b []byte) ([][]byte, byte, error) {
	var out [][]byte
	var eoc byte
	for rest := b; len(rest) > 0; {
		if len(out) >= len(t.Elems) {
			return nil, 0, fmt.Errorf("render %s value: more than %d components", t, len(t.Elems))
		}
		v, e, r, err := marshal.ReadComponent(rest)
		if err != nil {
			return nil, 0, fmt.Errorf("render %s value: component %d at byte %d of %d: %w", t, len(out), len(b)-len(rest), len(b), err)
		}
		out, eoc, rest = append(out, v), e, r
		if eoc != 0 {
			break
		}
	}
	return out, eoc, nil
}

// compositeString follows AbstractCompositeType.getString: components'
// strings joined by ':' with ':' escaped as "\:" (and a trailing '\' or
// '!' followed by '!'), then ":_" or ":!" for a non-zero end-of-component.
func compositeString(t *marshal.Type, b []byte) (string, error) {
	parts, eoc, err := splitComposite(t, b)
	if err != nil {
		return "", err
	}
	var sb strings.Builder
	for i, p := range parts {
		if i > 0 {
			sb.WriteByte(':')
		}
		s, err := ValueString(t.Elems[i], p)
		if err != nil {
			return "", fmt.Errorf("render %s value: component %d: %w", t, i, err)
		}
		s = strings.ReplaceAll(s, ":", `\:`)
		if s != "" && (s[len(s)-1] == '\\' || s[len(s)-1] == '!') {
			s += "!"
		}
		sb.WriteString(s)
	}
	switch {
	case int8(eoc) < 0:
		sb.WriteString(":_")
	case eoc > 0:
		sb.WriteString(":!")
	}
	return sb.String(), nil
}
