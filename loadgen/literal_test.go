package loadgen

import (
	"math"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/extensions"
	"github.com/apache/arrow-go/v18/arrow/memory"
	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/google/uuid"
	"gopkg.in/inf.v0"
)

// Every key type converts to the literal docs/flight-api.md names and to
// the value gocql binds for the same CQL type.
func TestKeyValueLiterals(t *testing.T) {
	mem := memory.NewGoAllocator()
	one := func(b array.Builder, add func()) arrow.Array {
		add()
		return b.NewArray()
	}
	u := uuid.MustParse("01234567-89ab-cdef-0123-456789abcdef")
	for _, c := range []struct {
		cql  string
		arr  func() arrow.Array
		lit  string
		want func(any) bool
	}{
		{"int", func() arrow.Array { b := array.NewInt32Builder(mem); return one(b, func() { b.Append(-5) }) },
			`-5`, func(v any) bool { return v == int32(-5) }},
		{"smallint", func() arrow.Array { b := array.NewInt16Builder(mem); return one(b, func() { b.Append(300) }) },
			`300`, func(v any) bool { return v == int16(300) }},
		{"tinyint", func() arrow.Array { b := array.NewInt8Builder(mem); return one(b, func() { b.Append(-7) }) },
			`-7`, func(v any) bool { return v == int8(-7) }},
		// Beyond 2^53: a string keeps it exact.
		{"bigint", func() arrow.Array { b := array.NewInt64Builder(mem); return one(b, func() { b.Append(1<<53 + 1) }) },
			`"9007199254740993"`, func(v any) bool { return v == int64(1<<53+1) }},
		{"text", func() arrow.Array {
			b := array.NewStringBuilder(mem)
			return one(b, func() { b.Append(`a "b"` + "\n") })
		},
			`"a \"b\"\n"`, func(v any) bool { return v == `a "b"`+"\n" }},
		{"boolean", func() arrow.Array { b := array.NewBooleanBuilder(mem); return one(b, func() { b.Append(true) }) },
			`true`, func(v any) bool { return v == true }},
		{"float", func() arrow.Array { b := array.NewFloat32Builder(mem); return one(b, func() { b.Append(0.1) }) },
			`0.1`, func(v any) bool { return v == float32(0.1) }},
		{"double", func() arrow.Array {
			b := array.NewFloat64Builder(mem)
			return one(b, func() { b.Append(math.NaN()) })
		}, `"NaN"`, func(v any) bool { f, ok := v.(float64); return ok && math.IsNaN(f) }},
		{"blob", func() arrow.Array {
			b := array.NewBinaryBuilder(mem, arrow.BinaryTypes.Binary)
			return one(b, func() { b.Append([]byte{0xde, 0xad, 0x00}) })
		}, `"0xdead00"`, func(v any) bool { b, ok := v.([]byte); return ok && string(b) == "\xde\xad\x00" }},
		{"uuid", func() arrow.Array {
			b := extensions.NewUUIDBuilder(mem)
			return one(b, func() { b.Append(u) })
		}, `"01234567-89ab-cdef-0123-456789abcdef"`, func(v any) bool { return v == gocql.UUID(u) }},
		{"timeuuid", func() arrow.Array {
			b := array.NewFixedSizeBinaryBuilder(mem, &arrow.FixedSizeBinaryType{ByteWidth: 16})
			return one(b, func() { b.Append(u[:]) })
		}, `"01234567-89ab-cdef-0123-456789abcdef"`, func(v any) bool { return v == gocql.UUID(u) }},
		{"date", func() arrow.Array { b := array.NewDate32Builder(mem); return one(b, func() { b.Append(19723) }) },
			`"2024-01-01"`, func(v any) bool { return v == int64(19723*86_400_000) }},
		// Outside years 1..9999 the day number, which the server also reads.
		{"date", func() arrow.Array {
			b := array.NewDate32Builder(mem)
			return one(b, func() { b.Append(math.MinInt32) })
		},
			`-2147483648`, func(v any) bool { return v == int64(math.MinInt32)*86_400_000 }},
		{"timestamp", func() arrow.Array {
			b := array.NewTimestampBuilder(mem, &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "UTC"})
			return one(b, func() { b.Append(-1) })
		}, `"-1"`, func(v any) bool { return v == int64(-1) }},
		{"time", func() arrow.Array {
			b := array.NewTime64Builder(mem, &arrow.Time64Type{Unit: arrow.Nanosecond})
			return one(b, func() { b.Append(arrow.Time64(time.Hour + 5)) })
		}, `3600000000005`, func(v any) bool { return v == time.Hour+5 }},
		// An IPv4-mapped address stays 16 bytes: gocql would send 4.
		{"inet", func() arrow.Array {
			b := array.NewStringBuilder(mem)
			return one(b, func() { b.Append("::ffff:1.2.3.4") })
		},
			`"::ffff:1.2.3.4"`, func(v any) bool { r, ok := v.(rawCQL); return ok && len(r) == 16 && r[15] == 4 }},
		{"varint", func() arrow.Array {
			b := array.NewStringBuilder(mem)
			return one(b, func() { b.Append("-170141183460469231731687303715884105728") })
		},
			`"-170141183460469231731687303715884105728"`, func(v any) bool {
				b, ok := v.(*big.Int)
				return ok && b.String() == "-170141183460469231731687303715884105728"
			}},
		{"decimal", func() arrow.Array { b := array.NewStringBuilder(mem); return one(b, func() { b.Append("12345e-2") }) },
			`"12345e-2"`, func(v any) bool { d, ok := v.(*inf.Dec); return ok && d.String() == "123.45" }},
	} {
		arr := c.arr()
		lit, v, err := keyValue(c.cql, arr, 0)
		arr.Release()
		if err != nil {
			t.Errorf("%s: %v", c.cql, err)
			continue
		}
		if string(lit) != c.lit {
			t.Errorf("%s: literal %s, want %s", c.cql, lit, c.lit)
		}
		if !c.want(v) {
			t.Errorf("%s: CQL value %#v (%T)", c.cql, v, v)
		}
	}
}

func TestKeyValueRefuses(t *testing.T) {
	mem := memory.NewGoAllocator()
	b := array.NewInt32Builder(mem)
	b.AppendNull()
	b.Append(1)
	arr := b.NewArray()
	defer arr.Release()
	if _, _, err := keyValue("int", arr, 0); err != errNullKey {
		t.Errorf("null int key: %v, want errNullKey", err)
	}
	// The CQL type decides; a mismatched Arrow type is an error, never a
	// wrong literal.
	if _, _, err := keyValue("bigint", arr, 1); err == nil || !strings.Contains(err.Error(), "bigint") {
		t.Errorf("bigint over Int32: %v", err)
	}
	if _, _, err := keyValue("frozen<list<int>>", arr, 1); err == nil {
		t.Error("a collection key converted")
	}
}

func TestParseMetrics(t *testing.T) {
	text := `# HELP process_cpu_seconds_total Total user and system CPU time spent in seconds.
# TYPE process_cpu_seconds_total counter
process_cpu_seconds_total 12.5
process_resident_memory_bytes 3.1457e+07
sstf_sheds_total 4
sstf_requests_total{code="OK",rpc="DoGet"} 10
sstf_requests_total{code="Unavailable",rpc="Do Get } odd"} 3 1700000000000
sstf_sheds_total_other 99
`
	m, err := parseMetrics(strings.NewReader(text), metricCPU, metricRSS, metricSheds, "sstf_requests_total")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{metricCPU: 12.5, metricRSS: 31457000, metricSheds: 4, "sstf_requests_total": 13}
	for k, v := range want {
		if m[k] != v {
			t.Errorf("%s = %g, want %g", k, m[k], v)
		}
	}
	if len(m) != len(want) {
		t.Errorf("parsed %v", m)
	}
	if _, err := parseMetrics(strings.NewReader("sstf_sheds_total x\n"), metricSheds); err == nil {
		t.Error("a non-numeric value parsed")
	}
}
