package canon

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"net/netip"
	"strconv"
	"time"

	"github.com/sstable-flight/sstable-flight/internal/testkit/corpus"
	"github.com/sstable-flight/sstable-flight/sstable/marshal"
)

// Value renders one serialized value; nil bytes are null.
func Value(t *marshal.Type, b []byte) (any, error) {
	if b == nil {
		return nil, nil
	}
	switch t.Kind {
	case marshal.List, marshal.Set:
		return collection(t, b, false)
	case marshal.Map:
		return collection(t, b, true)
	case marshal.Tuple:
		return fields(t, b)
	case marshal.UDT:
		vals, err := fields(t, b)
		if err != nil {
			return nil, err
		}
		out := make(map[string]any, len(t.Elems))
		for i, name := range t.FieldNames {
			out[name] = vals[i]
		}
		return out, nil
	case marshal.Vector:
		return vector(t, b)
	}
	return leaf(t, b)
}

func fail(t *marshal.Type, b []byte) error {
	return fmt.Errorf("render %s: bad value of %d bytes", t, len(b))
}

func leaf(t *marshal.Type, b []byte) (any, error) {
	fixed := map[marshal.Kind]int{marshal.Int: 4, marshal.BigInt: 8, marshal.Counter: 8, marshal.SmallInt: 2,
		marshal.TinyInt: 1, marshal.Boolean: 1, marshal.Float: 4, marshal.Double: 8, marshal.Date: 4,
		marshal.Time: 8, marshal.Timestamp: 8, marshal.UUID: 16, marshal.TimeUUID: 16}
	if n, ok := fixed[t.Kind]; ok && len(b) != n {
		return nil, fail(t, b)
	}
	switch t.Kind {
	case marshal.Ascii, marshal.Text:
		return string(b), nil
	case marshal.Blob:
		return "0x" + hex.EncodeToString(b), nil
	case marshal.Boolean:
		return b[0] != 0, nil
	case marshal.TinyInt:
		return int64(int8(b[0])), nil
	case marshal.SmallInt:
		return int64(int16(binary.BigEndian.Uint16(b))), nil
	case marshal.Int:
		return int64(int32(binary.BigEndian.Uint32(b))), nil
	case marshal.BigInt, marshal.Counter:
		return strconv.FormatInt(int64(binary.BigEndian.Uint64(b)), 10), nil
	case marshal.VarInt:
		return marshal.DecodeVarInt(b).String(), nil
	case marshal.Decimal:
		if len(b) < 4 {
			return nil, fail(t, b)
		}
		scale := int32(binary.BigEndian.Uint32(b))
		return marshal.DecodeVarInt(b[4:]).String() + "e" + strconv.Itoa(-int(scale)), nil
	case marshal.Float:
		return corpus.Float(float64(math.Float32frombits(binary.BigEndian.Uint32(b))), 32), nil
	case marshal.Double:
		return corpus.Float(math.Float64frombits(binary.BigEndian.Uint64(b)), 64), nil
	case marshal.Date:
		days := int64(binary.BigEndian.Uint32(b)) - 1<<31
		return time.Unix(days*86400, 0).UTC().Format("2006-01-02"), nil
	case marshal.Time:
		return int64(binary.BigEndian.Uint64(b)), nil
	case marshal.Timestamp:
		return time.UnixMilli(int64(binary.BigEndian.Uint64(b))).UTC().Format("2006-01-02T15:04:05.000Z"), nil
	case marshal.UUID, marshal.TimeUUID:
		h := hex.EncodeToString(b)
		return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:], nil
	case marshal.Inet:
		a, ok := netip.AddrFromSlice(b)
		if !ok {
			return nil, fail(t, b)
		}
		return a.String(), nil
	case marshal.Duration:
		var vals [3]int64
		rest := b
		for i := range vals {
			v, n, err := marshal.ReadVint(rest)
			if err != nil {
				return nil, fail(t, b)
			}
			vals[i], rest = v, rest[n:]
		}
		return map[string]any{"months": vals[0], "days": vals[1], "nanos": vals[2]}, nil
	}
	return nil, fmt.Errorf("render %s: unsupported type", t)
}

// elements splits n [int32 length][bytes] values (negative length: null).
func elements(b []byte, n int) ([][]byte, []byte, bool) {
	out := make([][]byte, 0, n)
	for range n {
		if len(b) < 4 {
			return nil, nil, false
		}
		l := int(int32(binary.BigEndian.Uint32(b)))
		b = b[4:]
		if l < 0 {
			out = append(out, nil)
			continue
		}
		if l > len(b) {
			return nil, nil, false
		}
		out = append(out, b[:l:l])
		b = b[l:]
	}
	return out, b, true
}

func collection(t *marshal.Type, b []byte, isMap bool) (any, error) {
	if len(b) < 4 {
		return nil, fail(t, b)
	}
	n := int(int32(binary.BigEndian.Uint32(b)))
	per := 1
	if isMap {
		per = 2
	}
	if n < 0 || n*per*4 > len(b)-4 {
		return nil, fail(t, b)
	}
	vals, rest, ok := elements(b[4:], n*per)
	if !ok || len(rest) != 0 {
		return nil, fail(t, b)
	}
	out := make([]any, 0, n)
	for i := range n {
		if !isMap {
			v, err := Value(t.Elems[0], vals[i])
			if err != nil {
				return nil, err
			}
			out = append(out, v)
			continue
		}
		k, err := Value(t.Elems[0], vals[2*i])
		if err != nil {
			return nil, err
		}
		v, err := Value(t.Elems[1], vals[2*i+1])
		if err != nil {
			return nil, err
		}
		out = append(out, []any{k, v})
	}
	return out, nil
}

// fields splits a tuple or UDT; absent trailing fields are null.
func fields(t *marshal.Type, b []byte) ([]any, error) {
	out := make([]any, len(t.Elems))
	for i, et := range t.Elems {
		if len(b) == 0 {
			break
		}
		vals, rest, ok := elements(b, 1)
		if !ok {
			return nil, fail(t, b)
		}
		v, err := Value(et, vals[0])
		if err != nil {
			return nil, err
		}
		out[i], b = v, rest
	}
	if len(b) != 0 {
		return nil, fail(t, b)
	}
	return out, nil
}

func vector(t *marshal.Type, b []byte) (any, error) {
	et := t.Elems[0]
	w := et.FixedLength()
	if w <= 0 || len(b) != w*t.Dim {
		return nil, fail(t, b)
	}
	out := make([]any, t.Dim)
	for i := range out {
		v, err := Value(et, b[i*w:(i+1)*w])
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}
