package tables

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/sstable-flight/sstable-flight/sstable/marshal"
)

// TestCheckValueTakesWhatPlanningWrites: every value encodeValue writes
// passes checkValue, which DoGet holds a ticket's values to, and a value
// of the wrong form does not (an ascii key that is not ASCII is refused
// at planning, as Cassandra refuses it).
func TestCheckValueTakesWhatPlanningWrites(t *testing.T) {
	for _, c := range []struct {
		kind marshal.Kind
		good []string
		bad  []string
	}{
		{marshal.Ascii, []string{`"abc"`, `""`}, []string{`"é"`}},
		{marshal.Text, []string{`"é"`, `""`}, nil},
		{marshal.Blob, []string{`"0x"`, `"0x00ff"`}, nil},
		{marshal.BigInt, []string{`1`, `"-9223372036854775808"`}, nil},
		{marshal.Counter, []string{`1`}, nil},
		{marshal.Int, []string{`-1`}, nil},
		{marshal.SmallInt, []string{`7`}, nil},
		{marshal.TinyInt, []string{`-128`}, nil},
		{marshal.Boolean, []string{`true`, `false`}, nil},
		{marshal.Float, []string{`1.5`}, nil},
		{marshal.Double, []string{`-2.5e300`}, nil},
		{marshal.UUID, []string{`"01234567-89ab-cdef-0123-456789abcdef"`}, nil},
		{marshal.TimeUUID, []string{`"01234567-89ab-1def-8123-456789abcdef"`}, nil},
		{marshal.Inet, []string{`"1.2.3.4"`, `"::1"`}, nil},
		{marshal.Timestamp, []string{`0`, `"2024-01-02T03:04:05Z"`}, nil},
		{marshal.Date, []string{`0`, `"2024-01-02"`}, nil},
		{marshal.Time, []string{`0`, `"23:59:59.999999999"`}, nil},
		{marshal.VarInt, []string{`"0"`, `"-123456789012345678901234567890"`}, nil},
		{marshal.Decimal, []string{`"0"`, `"-1.25e-3"`}, nil},
	} {
		t.Run(fmt.Sprint(c.kind), func(t *testing.T) {
			typ := &marshal.Type{Kind: c.kind}
			for _, raw := range c.good {
				v, err := encodeValue(typ, json.RawMessage(raw))
				if err != nil {
					t.Errorf("%s %s: %v", typ, raw, err)
					continue
				}
				if err := checkValue(typ, v); err != nil {
					t.Errorf("%s %s: planning wrote %x, which DoGet refuses: %v", typ, raw, v, err)
				}
				if len(v) > 0 {
					if err := checkValue(typ, append(v, 0)); err == nil && typ.IsFixedLength() {
						t.Errorf("%s %s: a byte more, %x, passes", typ, raw, append(v, 0))
					}
				}
			}
			for _, raw := range c.bad {
				if v, err := encodeValue(typ, json.RawMessage(raw)); err == nil {
					t.Errorf("%s %s: planning wrote %x", typ, raw, v)
				}
			}
		})
	}
}
