package tables

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/sstable-flight/sstable-flight/flightserver/request"
	"github.com/sstable-flight/sstable-flight/sstable/marshal"
)

// CheckTicket checks a ticket against the table it names, as DoGet
// leased it: every key a partition key of the table and every slice
// bound a prefix of its clustering, each value of its column's type in
// the form the planner writes (encodeValue). Signed tickets come only
// from a planner that checked the same, so this is defence in depth: a
// ticket that fails is a bug or a leaked key, and is refused before any
// SSTable is read. (Columns are checked by table.projection; the shape
// needing no table by Ticket.checkShape.)
func (t *Table) CheckTicket(tk *request.Ticket) error {
	parts := make([][]byte, t.keyComponents)
	for i, k := range tk.Keys {
		if t.keyComponents == 1 {
			parts[0] = k
		} else if err := marshal.SplitComposite(k, parts); err != nil {
			return fmt.Errorf("read ticket: key %d: %w", i, err)
		} else if !bytes.Equal(marshal.AppendComposite(nil, parts...), k) {
			return fmt.Errorf("read ticket: key %d: not a composite key as the planner writes it", i)
		}
		for j, p := range parts {
			if err := checkValue(t.keyTypes[j], p); err != nil {
				return fmt.Errorf("read ticket: key %d, component %d: %w", i, j, err)
			}
		}
	}
	if s := tk.Slice; s != nil {
		for _, bound := range [][][]byte{s.Start, s.End} {
			if len(bound) > len(t.clustering) {
				return fmt.Errorf("read ticket: a clustering bound of %d values, the table has %d clustering columns", len(bound), len(t.clustering))
			}
			for j, v := range bound {
				if err := checkValue(t.clustering[j], v); err != nil {
					return fmt.Errorf("read ticket: clustering bound value %d: %w", j, err)
				}
			}
		}
	}
	return nil
}

// checkValue reports whether v is a value of type t as encodeText
// serializes it: the width of a fixed-width type, ASCII or UTF-8 text, a
// time within a day. Types encodeText does not serialize are refused.
func checkValue(t *marshal.Type, v []byte) error {
	want := 0 // a fixed width, or 0
	switch t.Kind {
	case marshal.Blob:
		return nil
	case marshal.Ascii:
		for _, c := range v {
			if c >= 0x80 {
				return fmt.Errorf("%s value: a byte 0x%02x outside ASCII", t, c)
			}
		}
		return nil
	case marshal.Text:
		if !utf8.Valid(v) {
			return fmt.Errorf("%s value: not UTF-8", t)
		}
		return nil
	case marshal.BigInt, marshal.Counter, marshal.Timestamp, marshal.Double,
		marshal.Int, marshal.Float, marshal.Date, marshal.SmallInt, marshal.TinyInt,
		marshal.UUID, marshal.TimeUUID:
		want = t.Kind.ValueWidth()
	case marshal.Boolean:
		if len(v) != 1 || v[0] > 1 {
			return fmt.Errorf("%s value: want one byte, 0 or 1", t)
		}
		return nil
	case marshal.Inet:
		if len(v) != 4 && len(v) != 16 {
			return fmt.Errorf("%s value: %d bytes, want 4 or 16", t, len(v))
		}
		return nil
	case marshal.Time:
		if w := t.Kind.ValueWidth(); len(v) != w {
			return fmt.Errorf("%s value: %d bytes, want %d", t, len(v), w)
		}
		if ns := int64(binary.BigEndian.Uint64(v)); ns < 0 || ns >= int64(24*time.Hour) {
			return fmt.Errorf("%s value: %d ns, not a time of day", t, ns)
		}
		return nil
	case marshal.VarInt:
		if len(v) == 0 {
			return fmt.Errorf("%s value: empty", t)
		}
		return nil
	case marshal.Decimal:
		if len(v) < 5 {
			return fmt.Errorf("%s value: %d bytes, want a 4-byte scale and an unscaled value", t, len(v))
		}
		return nil
	default:
		return fmt.Errorf("keys of type %s are not supported in commands", t)
	}
	if len(v) != want {
		return fmt.Errorf("%s value: %d bytes, want %d", t, len(v), want)
	}
	return nil
}
