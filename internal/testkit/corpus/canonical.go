package corpus

import (
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"net/netip"
	"strconv"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"gopkg.in/inf.v0"
)

// rawValue captures a column's CQL wire bytes; canonical decodes them.
// Scanning raw bytes sidesteps gocql's reflection-built Go types, which
// cannot represent every CQL type (a map keyed by a frozen list has no Go
// map type).
type rawValue struct {
	info TypeInfo
	data []byte
	null bool
}

// TypeInfo is gocql's description of a CQL type.
type TypeInfo = gocql.TypeInfo

func (r *rawValue) UnmarshalCQL(info gocql.TypeInfo, data []byte) error {
	r.info = info
	r.null = data == nil
	// NB: keep empty (non-null) values non-nil: append onto a nil slice
	// would turn an empty blob into a null.
	r.data = make([]byte, len(data))
	copy(r.data, data)
	return nil
}

// Canonical renders one CQL value in the corpus' canonical JSON form (see
// testdata/corpus/README.md). Leaf values are decoded by gocql, so the
// oracle does not share a decoder with the code it checks; collections,
// UDTs, tuples and vectors are split here by the native protocol layout.
func Canonical(info TypeInfo, data []byte) (any, error) {
	if data == nil {
		return nil, nil
	}
	switch t := info.(type) {
	case gocql.CollectionType:
		return canonicalCollection(t, data)
	case gocql.TupleTypeInfo:
		vals, err := splitFields(data, len(t.Elems))
		if err != nil {
			return nil, fmt.Errorf("split tuple: %w", err)
		}
		out := make([]any, len(t.Elems))
		for i, e := range t.Elems {
			if out[i], err = Canonical(e, vals[i]); err != nil {
				return nil, err
			}
		}
		return out, nil
	case gocql.UDTTypeInfo:
		vals, err := splitFields(data, len(t.Elements))
		if err != nil {
			return nil, fmt.Errorf("split udt %s: %w", t.Name, err)
		}
		out := make(map[string]any, len(t.Elements))
		for i, f := range t.Elements {
			if out[f.Name], err = Canonical(f.Type, vals[i]); err != nil {
				return nil, err
			}
		}
		return out, nil
	case gocql.VectorType:
		var fs []float32
		if t.SubType.Type() != gocql.TypeFloat {
			return nil, fmt.Errorf("canonical vector: element type %v not supported", t.SubType)
		}
		if err := gocql.Unmarshal(t, data, &fs); err != nil {
			return nil, fmt.Errorf("unmarshal vector: %w", err)
		}
		out := make([]any, len(fs))
		for i, f := range fs {
			out[i] = Float(float64(f), 32)
		}
		return out, nil
	}
	return canonicalLeaf(info, data)
}

func canonicalLeaf(info TypeInfo, data []byte) (any, error) {
	fail := func(err error) (any, error) {
		return nil, fmt.Errorf("unmarshal %v: %w", info, err)
	}
	switch info.Type() {
	case gocql.TypeAscii, gocql.TypeText, gocql.TypeVarchar:
		var s string
		if err := gocql.Unmarshal(info, data, &s); err != nil {
			return fail(err)
		}
		return s, nil
	case gocql.TypeBlob:
		return "0x" + hex.EncodeToString(data), nil
	case gocql.TypeBoolean:
		var b bool
		if err := gocql.Unmarshal(info, data, &b); err != nil {
			return fail(err)
		}
		return b, nil
	case gocql.TypeTinyInt, gocql.TypeSmallInt, gocql.TypeInt:
		var v int64
		if err := gocql.Unmarshal(info, data, &v); err != nil {
			return fail(err)
		}
		return v, nil
	case gocql.TypeBigInt, gocql.TypeCounter:
		var v int64
		if err := gocql.Unmarshal(info, data, &v); err != nil {
			return fail(err)
		}
		return strconv.FormatInt(v, 10), nil
	case gocql.TypeVarint:
		var v big.Int
		if err := gocql.Unmarshal(info, data, &v); err != nil {
			return fail(err)
		}
		return v.String(), nil
	case gocql.TypeDecimal:
		var d inf.Dec
		if err := gocql.Unmarshal(info, data, &d); err != nil {
			return fail(err)
		}
		return d.UnscaledBig().String() + "e" + strconv.Itoa(-int(d.Scale())), nil
	case gocql.TypeFloat:
		var f float32
		if err := gocql.Unmarshal(info, data, &f); err != nil {
			return fail(err)
		}
		return Float(float64(f), 32), nil
	case gocql.TypeDouble:
		var f float64
		if err := gocql.Unmarshal(info, data, &f); err != nil {
			return fail(err)
		}
		return Float(f, 64), nil
	case gocql.TypeDate:
		var t time.Time
		if err := gocql.Unmarshal(info, data, &t); err != nil {
			return fail(err)
		}
		return t.UTC().Format("2006-01-02"), nil
	case gocql.TypeTime:
		var d time.Duration
		if err := gocql.Unmarshal(info, data, &d); err != nil {
			return fail(err)
		}
		return int64(d), nil
	case gocql.TypeTimestamp:
		var t time.Time
		if err := gocql.Unmarshal(info, data, &t); err != nil {
			return fail(err)
		}
		return t.UTC().Format("2006-01-02T15:04:05.000Z"), nil
	case gocql.TypeUUID, gocql.TypeTimeUUID:
		var u gocql.UUID
		if err := gocql.Unmarshal(info, data, &u); err != nil {
			return fail(err)
		}
		return u.String(), nil
	case gocql.TypeInet:
		a, ok := netip.AddrFromSlice(data)
		if !ok {
			return fail(fmt.Errorf("inet of %d bytes", len(data)))
		}
		return a.String(), nil
	case gocql.TypeDuration:
		var d gocql.Duration
		if err := gocql.Unmarshal(info, data, &d); err != nil {
			return fail(err)
		}
		return map[string]any{"months": int64(d.Months), "days": int64(d.Days), "nanos": d.Nanoseconds}, nil
	}
	return nil, fmt.Errorf("canonical value: unsupported CQL type %v", info)
}

func canonicalCollection(t gocql.CollectionType, data []byte) (any, error) {
	if len(data) < 4 {
		return nil, fmt.Errorf("decode %v: %d bytes, want a 4-byte count", t, len(data))
	}
	n := int(int32(binary.BigEndian.Uint32(data)))
	data = data[4:]
	per := 1
	if t.Type() == gocql.TypeMap {
		per = 2
	}
	if n < 0 || n*per*4 > len(data) {
		return nil, fmt.Errorf("decode %v: bad element count %d", t, n)
	}
	vals, rest, err := splitValues(data, n*per)
	if err != nil {
		return nil, fmt.Errorf("decode %v: %w", t, err)
	}
	if len(rest) != 0 {
		return nil, fmt.Errorf("decode %v: %d trailing bytes", t, len(rest))
	}
	out := make([]any, 0, n)
	for i := range n {
		if per == 1 {
			v, err := Canonical(t.Elem, vals[i])
			if err != nil {
				return nil, err
			}
			out = append(out, v)
			continue
		}
		k, err := Canonical(t.Key, vals[2*i])
		if err != nil {
			return nil, err
		}
		v, err := Canonical(t.Elem, vals[2*i+1])
		if err != nil {
			return nil, err
		}
		out = append(out, []any{k, v})
	}
	return out, nil
}

// splitFields splits a tuple or UDT value. Trailing fields may be absent
// (a UDT written before fields were added); they read as null.
func splitFields(data []byte, n int) ([][]byte, error) {
	out := make([][]byte, n)
	for i := 0; i < n && len(data) > 0; i++ {
		vals, rest, err := splitValues(data, 1)
		if err != nil {
			return nil, err
		}
		out[i], data = vals[0], rest
	}
	if len(data) != 0 {
		return nil, fmt.Errorf("%d trailing bytes", len(data))
	}
	return out, nil
}

// splitValues reads n [int32 length][bytes] values; a negative length is null.
func splitValues(data []byte, n int) ([][]byte, []byte, error) {
	out := make([][]byte, n)
	for i := range n {
		if len(data) < 4 {
			return nil, nil, fmt.Errorf("value %d: truncated length", i)
		}
		l := int(int32(binary.BigEndian.Uint32(data)))
		data = data[4:]
		if l < 0 {
			continue
		}
		if l > len(data) {
			return nil, nil, fmt.Errorf("value %d: length %d exceeds %d remaining bytes", i, l, len(data))
		}
		out[i] = data[:l:l]
		if out[i] == nil {
			out[i] = []byte{}
		}
		data = data[l:]
	}
	return out, data, nil
}

// Float is the canonical form of a float or double (bits 32 or 64):
// non-finite values, which JSON numbers cannot carry, as strings, and
// finite ones in the shortest form that round-trips at the type's own
// width. Every canonicalizer (of CQL results here, of SSTable bytes in
// internal/testkit/canon, of Arrow values in arrowenc's tests) formats floats
// through it.
func Float(f float64, bits int) any {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	return json.Number(strconv.FormatFloat(f, 'g', -1, bits))
}
