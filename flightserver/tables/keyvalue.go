package tables

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/sstable-flight/sstable-flight/sstable/marshal"
)

// encodeValue serializes a JSON value of a key or clustering column as
// Cassandra stores it. JSON forms follow CQL literals where JSON has no
// type: integers as numbers or strings (bigint and varint exceed what a
// float64 keeps), blobs as "0x..." hex, uuids and inets as their text
// (inets as Java reads them, see inetBytes), timestamps as milliseconds
// or RFC 3339, dates as days since the epoch or "YYYY-MM-DD", times as
// nanoseconds or "HH:MM:SS[.fffffffff]".
func encodeValue(t *marshal.Type, raw json.RawMessage) ([]byte, error) {
	if bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return nil, fmt.Errorf("encode %s value: null is not a key value", t)
	}
	var s string
	quoted := len(raw) > 0 && raw[0] == '"'
	if quoted {
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, fmt.Errorf("encode %s value: %w", t, err)
		}
	} else {
		s = string(bytes.TrimSpace(raw))
	}
	b, err := encodeText(t, s, quoted)
	if err == nil {
		// What DoGet checks a ticket's values by (ticketcheck.go): the
		// planner must never sign a value it would refuse back.
		err = checkValue(t, b)
	}
	if err != nil {
		return nil, fmt.Errorf("encode %s value %s: %w", t, raw, err)
	}
	return b, nil
}

func encodeText(t *marshal.Type, s string, quoted bool) ([]byte, error) {
	switch t.Kind {
	case marshal.Ascii, marshal.Text:
		if !quoted {
			return nil, fmt.Errorf("want a JSON string")
		}
		return []byte(s), nil
	case marshal.BigInt, marshal.Counter:
		return intBytes(s, 64)
	case marshal.Int:
		return intBytes(s, 32)
	case marshal.SmallInt:
		return intBytes(s, 16)
	case marshal.TinyInt:
		return intBytes(s, 8)
	case marshal.Boolean:
		v, err := strconv.ParseBool(s)
		if err != nil {
			return nil, err
		}
		if v {
			return []byte{1}, nil
		}
		return []byte{0}, nil
	case marshal.Float:
		v, err := strconv.ParseFloat(s, 32)
		if err != nil {
			return nil, err
		}
		return binary.BigEndian.AppendUint32(nil, math.Float32bits(float32(v))), nil
	case marshal.Double:
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, err
		}
		return binary.BigEndian.AppendUint64(nil, math.Float64bits(v)), nil
	case marshal.Blob:
		h, ok := strings.CutPrefix(strings.ToLower(s), "0x")
		if !ok {
			return nil, fmt.Errorf(`want "0x" and hex digits`)
		}
		return hex.DecodeString(h)
	case marshal.UUID, marshal.TimeUUID:
		h := strings.ReplaceAll(s, "-", "")
		b, err := hex.DecodeString(h)
		if err != nil || len(b) != 16 || len(s) != 36 {
			return nil, fmt.Errorf("want a UUID as 8-4-4-4-12 hex digits")
		}
		return b, nil
	case marshal.Inet:
		return inetBytes(s)
	case marshal.Timestamp:
		if v, err := strconv.ParseInt(s, 10, 64); err == nil {
			return binary.BigEndian.AppendUint64(nil, uint64(v)), nil
		}
		ts, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			return nil, fmt.Errorf("want milliseconds or RFC 3339: %w", err)
		}
		return binary.BigEndian.AppendUint64(nil, uint64(ts.UnixMilli())), nil
	case marshal.Date:
		days, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			d, perr := time.Parse(time.DateOnly, s)
			if perr != nil {
				return nil, fmt.Errorf("want days since 1970-01-01 or YYYY-MM-DD: %w", perr)
			}
			days = d.Unix() / 86400
		}
		if days < math.MinInt32 || days > math.MaxInt32 {
			return nil, fmt.Errorf("date out of range")
		}
		return binary.BigEndian.AppendUint32(nil, uint32(days+(1<<31))), nil
	case marshal.Time:
		ns, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			ns, err = parseTimeOfDay(s)
			if err != nil {
				return nil, err
			}
		}
		if ns < 0 || ns >= 24*int64(time.Hour) {
			return nil, fmt.Errorf("time of day out of range")
		}
		return binary.BigEndian.AppendUint64(nil, uint64(ns)), nil
	case marshal.VarInt:
		v, ok := new(big.Int).SetString(s, 10)
		if !ok {
			return nil, fmt.Errorf("want an integer")
		}
		return marshal.AppendVarInt(nil, v), nil
	case marshal.Decimal:
		return decimalBytes(s)
	}
	return nil, fmt.Errorf("keys of type %s are not supported in commands", t)
}

func intBytes(s string, bits int) ([]byte, error) {
	v, err := strconv.ParseInt(s, 10, bits)
	if err != nil {
		return nil, err
	}
	b := binary.BigEndian.AppendUint64(nil, uint64(v))
	return b[8-bits/8:], nil
}

func parseTimeOfDay(s string) (int64, error) {
	hms, frac, _ := strings.Cut(s, ".")
	t, err := time.Parse(time.TimeOnly, hms)
	if err != nil {
		return 0, fmt.Errorf("want nanoseconds or HH:MM:SS[.fffffffff]: %w", err)
	}
	ns := int64(t.Hour())*int64(time.Hour) + int64(t.Minute())*int64(time.Minute) + int64(t.Second())*int64(time.Second)
	if frac != "" {
		if len(frac) > 9 {
			return 0, fmt.Errorf("more than 9 fractional digits")
		}
		f, err := strconv.ParseInt(frac+strings.Repeat("0", 9-len(frac)), 10, 64)
		if err != nil {
			return 0, err
		}
		ns += f
	}
	return ns, nil
}

// decimalBytes is DecimalType's form: int32 scale, then the unscaled
// value as a varint.
func decimalBytes(s string) ([]byte, error) {
	mant, exp, _ := strings.Cut(strings.ToLower(s), "e")
	scale := int64(0)
	if exp != "" {
		e, err := strconv.ParseInt(exp, 10, 32)
		if err != nil {
			return nil, fmt.Errorf("want a decimal: %w", err)
		}
		scale = -e
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	scale += int64(len(frac))
	v, ok := new(big.Int).SetString(intPart+frac, 10)
	if !ok || scale < math.MinInt32 || scale > math.MaxInt32 {
		return nil, fmt.Errorf("want a decimal")
	}
	return marshal.AppendVarInt(binary.BigEndian.AppendUint32(nil, uint32(int32(scale))), v), nil
}
