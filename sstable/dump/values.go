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
	case marshal.Float, marshal.Double, marshal.Timestamp:
		if err := checkWidth(t, b); err != nil {
			return "", err
		}
		switch t.Kind {
		case marshal.Float:
			return javaDouble(float64(math.Float32frombits(binary.BigEndian.Uint32(b))), 32), nil
		case marshal.Double:
			return javaDouble(math.Float64frombits(binary.BigEndian.Uint64(b)), 64), nil
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
		if err := checkWidth(t, b); err != nil {
			return err
		}
		var v float64
		bits := 64
		if t.Kind == marshal.Float {
			v, bits = float64(math.Float32frombits(binary.BigEndian.Uint32(b))), 32
		} else {
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
		if err := checkWidth(t, b); err != nil {
			return err
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
	if err := checkWidth(t, b); err != nil {
		return "", false, err
	}
	switch t.Kind {
	case marshal.Boolean:
		// BooleanSerializer: any non-zero byte is true.
		if b[0] != 0 {
			return "true", false, nil
		}
		return "false", false, nil
	case marshal.TinyInt:
		return fmt.Sprint(int8(b[0])), false, nil
	case marshal.SmallInt:
		return fmt.Sprint(int16(binary.BigEndian.Uint16(b))), false, nil
	case marshal.Int:
		return fmt.Sprint(int32(binary.BigEndian.Uint32(b))), false, nil
	case marshal.BigInt:
		return fmt.Sprint(int64(binary.BigEndian.Uint64(b))), false, nil
	case marshal.VarInt:
		return marshal.DecodeVarInt(b).String(), false, nil
	case marshal.UUID, marshal.TimeUUID:
		h := hex.EncodeToString(b)
		return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:], true, nil
	case marshal.Inet:
		s, ok := javaInet(b)
		if !ok {
			return "", false, fmt.Errorf("render %s value: want 4 or 16 bytes, got %d", t, len(b))
		}
		return s, true, nil
	case marshal.Date:
		return javaDate(binary.BigEndian.Uint32(b)), true, nil
	case marshal.Time:
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

// checkWidth checks that b is as long as every value of t's kind is
// (marshal.Kind.ValueWidth), when the kind has one width. Not for a
// counter: sstabledump renders its cell's counter context, not the long.
func checkWidth(t *marshal.Type, b []byte) error {
	if w := t.Kind.ValueWidth(); w >= 0 && len(b) != w {
		return fmt.Errorf("render %s value: want %d bytes, got %d", t, w, len(b))
	}
	return nil
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

// The values inside collections, tuples, UDTs and vectors are read with
// marshal.Elements, the one reader of their framing: what follows renders
// them and names, in errors, the type and the element that did not read.

// elements is a marshal.Elements over a value of type t, for errors.
type elements struct {
	t *marshal.Type
	marshal.Elements
}

// err is the fault that stopped e, with the type and, when label is not
// "", the element being read.
func (e *elements) err(label string) error {
	if label == "" {
		return fmt.Errorf("render %s value: %w", e.t, e.Err())
	}
	return fmt.Errorf("render %s value: %s: %w", e.t, label, e.Err())
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
func writeElemJSON(sb *strings.Builder, parent, t *marshal.Type, what string, v []byte) error {
	if v == nil {
		sb.WriteString("null")
		return nil
	}
	if err := writeJSON(sb, t, v); err != nil {
		return fmt.Errorf("render %s value: %s: %w", parent, what, err)
	}
	return nil
}

// writeNextJSON reads the next element of e and writes it as an element
// of type t; label names it in errors ("element 3").
func (e *elements) writeNextJSON(sb *strings.Builder, t *marshal.Type, label string) error {
	v, ok := e.Next()
	if !ok {
		return e.err(label)
	}
	return writeElemJSON(sb, e.t, t, label, v)
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

// writeElemsJSON writes n items as writeSeqJSON does, after checking that
// e's count or dimension read, and then checks that they were all the
// value held.
func (e *elements) writeElemsJSON(sb *strings.Builder, open, close byte, n int, item func(i int) error) error {
	if e.Err() != nil {
		return e.err("")
	}
	if err := writeSeqJSON(sb, open, close, n, item); err != nil {
		return err
	}
	if !e.End() {
		return e.err("")
	}
	return nil
}

// writeComponentJSON writes the next component of a tuple or UDT, or null
// where the value ends before it (one written before the type was
// extended).
func (e *elements) writeComponentJSON(sb *strings.Builder, t *marshal.Type, label string) error {
	if !e.More() {
		sb.WriteString("null")
		return nil
	}
	return e.writeNextJSON(sb, t, label)
}

// checkParams checks that the type t has its first params type parameters.
func checkParams(t *marshal.Type, params int) error {
	for i := 0; i < params; i++ {
		if _, err := elem(t, i); err != nil {
			return err
		}
	}
	return nil
}

// writeListJSON follows ListType.setOrListToJsonString: "[e1, e2]".
func writeListJSON(sb *strings.Builder, t *marshal.Type, b []byte) error {
	if err := checkParams(t, 1); err != nil {
		return err
	}
	e := elements{t, marshal.CollectionElements(b, 1)}
	return e.writeElemsJSON(sb, '[', ']', e.Len(), func(i int) error {
		return e.writeNextJSON(sb, t.Elems[0], fmt.Sprintf("element %d", i))
	})
}

// writeMapJSON follows MapType.toJSONString: JSON object keys must be
// strings, so a key whose JSON form is not already a string (starts with a
// quote) is quoted as a string: {"1": "a"}, {"[1, 2]": "x"}.
func writeMapJSON(sb *strings.Builder, t *marshal.Type, b []byte) error {
	if err := checkParams(t, 2); err != nil {
		return err
	}
	kt, vt := t.Elems[0], t.Elems[1]
	e := elements{t, marshal.CollectionElements(b, 2)}
	return e.writeElemsJSON(sb, '{', '}', e.Len(), func(i int) error {
		var ks strings.Builder
		if err := e.writeNextJSON(&ks, kt, fmt.Sprintf("key %d", i)); err != nil {
			return err
		}
		if key := ks.String(); strings.HasPrefix(key, `"`) {
			sb.WriteString(key)
		} else {
			sb.WriteString(jsonQuote(key))
		}
		sb.WriteString(": ")
		return e.writeNextJSON(sb, vt, fmt.Sprintf("value %d", i))
	})
}

// writeTupleJSON follows TupleType.toJSONString: "[c1, c2]", null for a
// null component. Components missing at the end (a tuple written before
// the type was extended) render as null too.
func writeTupleJSON(sb *strings.Builder, t *marshal.Type, b []byte) error {
	e := elements{t, marshal.FieldElements(b)}
	return e.writeElemsJSON(sb, '[', ']', len(t.Elems), func(i int) error {
		return e.writeComponentJSON(sb, t.Elems[i], fmt.Sprintf("component %d", i))
	})
}

// writeUDTJSON follows UserType.toJSONString: {"field": value, ...} with
// every field, null for null or missing ones. A field name that is not all
// lower case is a quoted CQL identifier inside the JSON key: {"\"Zip\"": 1}.
func writeUDTJSON(sb *strings.Builder, t *marshal.Type, b []byte) error {
	e := elements{t, marshal.FieldElements(b)}
	return e.writeElemsJSON(sb, '{', '}', len(t.Elems), func(i int) error {
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
		return e.writeComponentJSON(sb, t.Elems[i], "field "+name)
	})
}

// writeVectorJSON follows VectorType.toJSONString: "[e1, e2, ...]".
func writeVectorJSON(sb *strings.Builder, t *marshal.Type, b []byte) error {
	et, err := elem(t, 0)
	if err != nil {
		return err
	}
	e := elements{t, marshal.VectorElements(b, t.Dim, et.FixedLength())}
	return e.writeElemsJSON(sb, '[', ']', e.Len(), func(i int) error {
		return e.writeNextJSON(sb, et, fmt.Sprintf("element %d", i))
	})
}

// tupleString follows TupleType.getString (UserType inherits it): the
// present components' strings joined by ':', '@' for a null one, and ':'
// and '@' inside a component escaped with a backslash.
func tupleString(t *marshal.Type, b []byte) (string, error) {
	e := elements{t, marshal.FieldElements(b)}
	var sb strings.Builder
	for i, ct := range t.Elems {
		if !e.More() {
			break
		}
		if i > 0 {
			sb.WriteByte(':')
		}
		v, ok := e.Next()
		if !ok {
			return "", e.err(fmt.Sprintf("component %d", i))
		}
		if v == nil {
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
	if !e.End() {
		return "", e.err("")
	}
	return sb.String(), nil
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
