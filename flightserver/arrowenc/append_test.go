package arrowenc_test

import (
	"errors"
	"math"
	"math/big"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/sstable-flight/sstable-flight/flightserver/arrowenc"
	"github.com/sstable-flight/sstable-flight/sstable/marshal"
)

type valueCase struct {
	name string
	typ  *marshal.Type
	in   []byte
	want any // canonical JSON form; ignored when err is set
	err  bool
}

// bigText renders a big integer for the varint/decimal cases.
func bigText(s string) *big.Int {
	v, ok := new(big.Int).SetString(s, 10)
	if !ok {
		panic(s)
	}
	return v
}

// twos encodes v as Cassandra's varint: minimal big-endian two's
// complement.
func twos(v *big.Int) []byte { return marshal.AppendVarInt(nil, v) }

func address() *marshal.Type {
	return udtOf("address", []string{"street", "zip", "loc"},
		nat(marshal.Text), nat(marshal.Int), tupleOf(nat(marshal.Double), nat(marshal.Double)))
}

func person() *marshal.Type {
	return udtOf("person", []string{"name", "home", "tags"},
		nat(marshal.Text), address(), frozen(setOf(nat(marshal.Text))))
}

func valueCases() []valueCase {
	big100 := new(big.Int).Lsh(big.NewInt(1), 100)
	neg2e71 := new(big.Int).Neg(new(big.Int).Lsh(big.NewInt(1), 71))
	neg2e64 := new(big.Int).Neg(new(big.Int).Lsh(big.NewInt(1), 64))
	huge := bigText("-123456789012345678901234567890123456789012345678901234567890")
	uuid := unhex("550e8400e29b41d4a716446655440000")
	addr := func(street string, zip int32) []byte {
		return lp([]byte(street), be32(zip), lp(f64(1.5), f64(-2.25)))
	}
	return []valueCase{
		{"int max", nat(marshal.Int), be32(math.MaxInt32), int64(math.MaxInt32), false},
		{"int min", nat(marshal.Int), be32(math.MinInt32), int64(math.MinInt32), false},
		{"int zero", nat(marshal.Int), be32(0), int64(0), false},
		{"int empty", nat(marshal.Int), []byte{}, nil, false},
		{"int short", nat(marshal.Int), []byte{1, 2, 3}, nil, true},
		{"int long", nat(marshal.Int), []byte{1, 2, 3, 4, 5}, nil, true},
		{"bigint max", nat(marshal.BigInt), be64(math.MaxInt64), "9223372036854775807", false},
		{"bigint min", nat(marshal.BigInt), be64(math.MinInt64), "-9223372036854775808", false},
		{"bigint empty", nat(marshal.BigInt), []byte{}, nil, false},
		{"counter", nat(marshal.Counter), be64(-42), "-42", false},
		{"counter short", nat(marshal.Counter), be32(1), nil, true},
		{"smallint max", nat(marshal.SmallInt), be16(math.MaxInt16), int64(math.MaxInt16), false},
		{"smallint min", nat(marshal.SmallInt), be16(math.MinInt16), int64(math.MinInt16), false},
		{"smallint empty", nat(marshal.SmallInt), []byte{}, nil, false},
		{"tinyint max", nat(marshal.TinyInt), []byte{0x7f}, int64(127), false},
		{"tinyint min", nat(marshal.TinyInt), []byte{0x80}, int64(-128), false},
		{"tinyint wide", nat(marshal.TinyInt), []byte{0, 1}, nil, true},
		{"boolean true", nat(marshal.Boolean), []byte{1}, true, false},
		{"boolean false", nat(marshal.Boolean), []byte{0}, false, false},
		{"boolean nonzero", nat(marshal.Boolean), []byte{2}, true, false},
		{"boolean empty", nat(marshal.Boolean), []byte{}, nil, false},
		{"float NaN", nat(marshal.Float), f32(float32(math.NaN())), "NaN", false},
		{"float +Inf", nat(marshal.Float), f32(float32(math.Inf(1))), "Infinity", false},
		{"float -Inf", nat(marshal.Float), f32(float32(math.Inf(-1))), "-Infinity", false},
		{"float max", nat(marshal.Float), f32(math.MaxFloat32), num("3.4028235e+38"), false},
		{"float subnormal", nat(marshal.Float), f32(math.SmallestNonzeroFloat32), num("1e-45"), false},
		{"float empty", nat(marshal.Float), []byte{}, nil, false},
		{"double NaN", nat(marshal.Double), f64(math.NaN()), "NaN", false},
		{"double -Inf", nat(marshal.Double), f64(math.Inf(-1)), "-Infinity", false},
		{"double max", nat(marshal.Double), f64(math.MaxFloat64), num("1.7976931348623157e+308"), false},
		{"double -0.1", nat(marshal.Double), f64(-0.1), num("-0.1"), false},
		{"double short", nat(marshal.Double), f32(1), nil, true},
		{"date epoch", nat(marshal.Date), date(0), "1970-01-01", false},
		{"date pre-epoch", nat(marshal.Date), date(-1), "1969-12-31", false},
		{"date 9999", nat(marshal.Date), date(2932896), "9999-12-31", false},
		{"date empty", nat(marshal.Date), []byte{}, nil, false},
		{"date short", nat(marshal.Date), be16(1), nil, true},
		{"time zero", nat(marshal.Time), be64(0), int64(0), false},
		{"time last ns", nat(marshal.Time), be64(86399999999999), int64(86399999999999), false},
		{"time empty", nat(marshal.Time), []byte{}, nil, false},
		{"timestamp epoch", nat(marshal.Timestamp), be64(0), "1970-01-01T00:00:00.000Z", false},
		{"timestamp pre-epoch", nat(marshal.Timestamp), be64(-1), "1969-12-31T23:59:59.999Z", false},
		{"timestamp 2024", nat(marshal.Timestamp), be64(1709251200123), "2024-03-01T00:00:00.123Z", false},
		{"timestamp empty", nat(marshal.Timestamp), []byte{}, nil, false},
		{"uuid", nat(marshal.UUID), uuid, "550e8400-e29b-41d4-a716-446655440000", false},
		{"timeuuid", nat(marshal.TimeUUID), unhex("d2177dd0eaa211e5a1580800200c9a66"), "d2177dd0-eaa2-11e5-a158-0800200c9a66", false},
		{"uuid empty", nat(marshal.UUID), []byte{}, nil, false},
		{"uuid short", nat(marshal.UUID), uuid[:15], nil, true},
		{"inet v4", nat(marshal.Inet), []byte{192, 168, 1, 20}, "192.168.1.20", false},
		{"inet v6 loopback", nat(marshal.Inet), unhex("00000000000000000000000000000001"), "::1", false},
		{"inet v6", nat(marshal.Inet), unhex("20010db8000000000000ff0000428329"), "2001:db8::ff00:42:8329", false},
		{"inet v4-mapped", nat(marshal.Inet), unhex("00000000000000000000ffff01020304"), "::ffff:1.2.3.4", false},
		{"inet empty", nat(marshal.Inet), []byte{}, nil, false},
		{"inet 5 bytes", nat(marshal.Inet), []byte{1, 2, 3, 4, 5}, nil, true},
		{"duration", nat(marshal.Duration), duration(14, 3, 7_000_000_001), map[string]any{"months": 14, "days": 3, "nanos": 7000000001}, false},
		{"duration negative", nat(marshal.Duration), duration(-1, -2, -3), map[string]any{"months": -1, "days": -2, "nanos": -3}, false},
		{"duration extremes", nat(marshal.Duration), duration(math.MinInt32, math.MaxInt32, math.MinInt64), map[string]any{"months": math.MinInt32, "days": math.MaxInt32, "nanos": int64(math.MinInt64)}, false},
		{"duration max nanos", nat(marshal.Duration), duration(0, 0, math.MaxInt64), map[string]any{"months": 0, "days": 0, "nanos": int64(math.MaxInt64)}, false},
		{"duration empty", nat(marshal.Duration), []byte{}, nil, false},
		{"duration truncated", nat(marshal.Duration), duration(1, 1, 1)[:2], nil, true},
		{"duration trailing", nat(marshal.Duration), append(duration(1, 1, 1), 0), nil, true},
		{"duration months overflow", nat(marshal.Duration), duration(math.MaxInt32+1, 0, 0), nil, true},
		{"varint zero", nat(marshal.VarInt), []byte{0}, "0", false},
		{"varint -1", nat(marshal.VarInt), []byte{0xff}, "-1", false},
		{"varint -128", nat(marshal.VarInt), []byte{0x80}, "-128", false},
		{"varint 255", nat(marshal.VarInt), []byte{0, 0xff}, "255", false},
		{"varint int64 min", nat(marshal.VarInt), be64(math.MinInt64), "-9223372036854775808", false},
		{"varint 2^100", nat(marshal.VarInt), twos(big100), big100.String(), false},
		{"varint -2^71", nat(marshal.VarInt), twos(neg2e71), neg2e71.String(), false},
		{"varint -2^71, a redundant sign byte", nat(marshal.VarInt), unhex("ff800000000000000000"), neg2e71.String(), false},
		{"varint -2^64", nat(marshal.VarInt), unhex("ff0000000000000000"), neg2e64.String(), false},
		{"varint huge negative", nat(marshal.VarInt), twos(huge), huge.String(), false},
		{"varint empty", nat(marshal.VarInt), []byte{}, nil, false},
		{"decimal 123.45", nat(marshal.Decimal), append(be32(2), twos(big.NewInt(12345))...), "12345e-2", false},
		{"decimal negative scale", nat(marshal.Decimal), append(be32(-3), 1), "1e3", false},
		{"decimal -0.000", nat(marshal.Decimal), append(be32(3), 0), "0e-3", false},
		{"decimal huge", nat(marshal.Decimal), append(be32(40), twos(huge)...), huge.String() + "e-40", false},
		{"decimal min scale", nat(marshal.Decimal), append(be32(math.MinInt32), 0xff), "-1e2147483648", false},
		{"decimal no unscaled", nat(marshal.Decimal), be32(2), "0e-2", false},
		{"decimal empty", nat(marshal.Decimal), []byte{}, nil, false},
		{"decimal short", nat(marshal.Decimal), []byte{0, 0, 1}, nil, true},
		{"text", nat(marshal.Text), []byte("héllo, 世界"), "héllo, 世界", false},
		{"text empty", nat(marshal.Text), []byte{}, "", false},
		{"text invalid utf8", nat(marshal.Text), []byte{0xff, 0xfe}, nil, true},
		{"ascii", nat(marshal.Ascii), []byte("plain"), "plain", false},
		{"ascii empty", nat(marshal.Ascii), []byte{}, "", false},
		{"blob", nat(marshal.Blob), []byte{0xca, 0xfe, 0x00}, "0xcafe00", false},
		{"blob empty", nat(marshal.Blob), []byte{}, "0x", false},
		{"empty type with bytes", nat(marshal.Empty), []byte{1}, nil, true},

		{"list<int>", listOf(nat(marshal.Int)), coll(be32(1), be32(-2), be32(3)), []any{1, -2, 3}, false},
		{"list<int> null element", listOf(nat(marshal.Int)), coll(be32(1), nil, be32(3)), []any{1, nil, 3}, false},
		{"list<int> empty element", listOf(nat(marshal.Int)), coll(be32(1), []byte{}), []any{1, nil}, false},
		{"list<int> no elements", listOf(nat(marshal.Int)), coll(), []any{}, false},
		{"list<int> empty value", listOf(nat(marshal.Int)), []byte{}, nil, false},
		{"list<int> truncated", listOf(nat(marshal.Int)), coll(be32(1), be32(2))[:13], nil, true},
		{"list<int> bad element", listOf(nat(marshal.Int)), coll(be32(1), be32(2), be16(3)), nil, true},
		{"list<int> trailing", listOf(nat(marshal.Int)), append(coll(be32(1)), 0), nil, true},
		{"list<int> negative count", listOf(nat(marshal.Int)), be32(-1), nil, true},
		{"list<int> huge count", listOf(nat(marshal.Int)), append(be32(math.MaxInt32), lp(be32(1))...), nil, true},
		{"list<int> short count", listOf(nat(marshal.Int)), []byte{0, 0, 1}, nil, true},
		{"list<timeuuid>", listOf(nat(marshal.TimeUUID)), coll(unhex("d2177dd0eaa211e5a1580800200c9a66"), nil),
			[]any{"d2177dd0-eaa2-11e5-a158-0800200c9a66", nil}, false},
		{"tuple<uuid,inet,duration,date>", tupleOf(nat(marshal.UUID), nat(marshal.Inet), nat(marshal.Duration), nat(marshal.Date)),
			lp(unhex("550e8400e29b41d4a716446655440000"), []byte{10, 0, 0, 1}, duration(1, -1, 5), date(-1)),
			[]any{"550e8400-e29b-41d4-a716-446655440000", "10.0.0.1", map[string]any{"months": 1, "days": -1, "nanos": 5}, "1969-12-31"}, false},
		{"set<text>", setOf(nat(marshal.Text)), coll([]byte("a"), []byte(""), []byte("b")), []any{"a", "", "b"}, false},
		{"list<frozen<set<int>>>", listOf(frozen(setOf(nat(marshal.Int)))), coll(coll(be32(1), be32(2)), coll()), []any{[]any{1, 2}, []any{}}, false},
		{"map<text,int>", mapOf(nat(marshal.Text), nat(marshal.Int)), pairs([]byte("a"), be32(1), []byte("b"), nil), []any{[]any{"a", 1}, []any{"b", nil}}, false},
		{"map<text,int> empty key", mapOf(nat(marshal.Text), nat(marshal.Int)), pairs([]byte(""), be32(1)), []any{[]any{"", 1}}, false},
		{"map<text,int> null key", mapOf(nat(marshal.Text), nat(marshal.Int)), pairs(nil, be32(1)), nil, true},
		{"map<int,text> empty int key", mapOf(nat(marshal.Int), nat(marshal.Text)), pairs([]byte{}, []byte("x")), nil, true},
		{"map<int,text> odd", mapOf(nat(marshal.Int), nat(marshal.Text)), append(be32(1), lp(be32(1))...), nil, true},
		{"map<blob,double>", mapOf(nat(marshal.Blob), nat(marshal.Double)), pairs([]byte{}, f64(1), []byte{1}, f64(math.Inf(1))), []any{[]any{"0x", num("1")}, []any{"0x01", "Infinity"}}, false},
		{"frozen<map<text,frozen<list<int>>>>", frozen(mapOf(nat(marshal.Text), frozen(listOf(nat(marshal.Int))))),
			pairs([]byte("k"), coll(be32(7), nil)), []any{[]any{"k", []any{7, nil}}}, false},
		{"map<frozen<list<int>>,int> key", mapOf(frozen(listOf(nat(marshal.Int))), nat(marshal.Int)),
			pairs(coll(be32(1)), be32(2)), []any{[]any{[]any{1}, 2}}, false},

		{"tuple", tupleOf(nat(marshal.Int), nat(marshal.Text), frozen(listOf(nat(marshal.Int)))),
			lp(be32(1), []byte("x"), coll(be32(2))), []any{1, "x", []any{2}}, false},
		{"tuple null field", tupleOf(nat(marshal.Int), nat(marshal.Text)), lp(nil, []byte("x")), []any{nil, "x"}, false},
		{"tuple missing trailing", tupleOf(nat(marshal.Int), nat(marshal.Text), nat(marshal.Double)), lp(be32(5)), []any{5, nil, nil}, false},
		{"tuple empty", tupleOf(nat(marshal.Int), nat(marshal.Text)), []byte{}, []any{nil, nil}, false},
		{"tuple nested", tupleOf(nat(marshal.Int), tupleOf(nat(marshal.Text), nat(marshal.Double))),
			lp(be32(1), lp([]byte("t"), nil)), []any{1, []any{"t", nil}}, false},
		{"tuple trailing", tupleOf(nat(marshal.Int)), append(lp(be32(1)), 9), nil, true},
		{"tuple bad field", tupleOf(nat(marshal.Int), nat(marshal.Int)), lp(be32(1), be16(2)), nil, true},
		{"udt", address(), addr("Main St", 12345),
			map[string]any{"street": "Main St", "zip": 12345, "loc": []any{num("1.5"), num("-2.25")}}, false},
		{"udt missing fields", address(), lp([]byte("Elm")),
			map[string]any{"street": "Elm", "zip": nil, "loc": nil}, false},
		{"list<frozen<person>>", listOf(person()), coll(
			lp([]byte("ann"), addr("A", 1), coll([]byte("x"), []byte("y"))),
			nil,
			lp([]byte("bob"), nil),
		), []any{
			map[string]any{"name": "ann", "home": map[string]any{"street": "A", "zip": 1, "loc": []any{num("1.5"), num("-2.25")}}, "tags": []any{"x", "y"}},
			nil,
			map[string]any{"name": "bob", "home": nil, "tags": nil},
		}, false},
		{"map<text,frozen<address>>", mapOf(nat(marshal.Text), address()), pairs([]byte("home"), addr("B", 2)),
			[]any{[]any{"home", map[string]any{"street": "B", "zip": 2, "loc": []any{num("1.5"), num("-2.25")}}}}, false},
		{"udt bad nested", listOf(person()), coll(lp([]byte("ann"), lp([]byte("A"), be16(1)))), nil, true},

		{"vector<float,3>", vectorOf(nat(marshal.Float), 3), append(append(f32(1.5), f32(float32(math.Copysign(0, -1)))...), f32(float32(math.Inf(1)))...),
			[]any{num("1.5"), num("-0"), "Infinity"}, false},
		{"vector<float,3> short", vectorOf(nat(marshal.Float), 3), append(f32(1), f32(2)...), nil, true},
		{"vector<float,3> empty", vectorOf(nat(marshal.Float), 3), []byte{}, nil, false},
		{"vector<text,2>", vectorOf(nat(marshal.Text), 2), vvec([]byte("ab"), []byte("")), []any{"ab", ""}, false},
		{"vector<text,2> long text", vectorOf(nat(marshal.Text), 2), vvec([]byte(strings.Repeat("z", 300)), []byte("q")), []any{strings.Repeat("z", 300), "q"}, false},
		{"vector<text,2> truncated", vectorOf(nat(marshal.Text), 2), vvec([]byte("ab"), []byte("cd"))[:5], nil, true},
		{"vector<text,2> trailing", vectorOf(nat(marshal.Text), 2), append(vvec([]byte("a"), []byte("b")), 0), nil, true},
		{"vector<varint,2>", vectorOf(nat(marshal.VarInt), 2), vvec([]byte{0x80}, []byte{}), []any{"-128", nil}, false},
		{"vector<vector<int,2>,2>", vectorOf(vectorOf(nat(marshal.Int), 2), 2), append(append(be32(1), be32(2)...), append(be32(3), be32(4)...)...),
			[]any{[]any{1, 2}, []any{3, 4}}, false},
		{"vector<smallint,2>", vectorOf(nat(marshal.SmallInt), 2), vvec(be16(-1), be16(2)), []any{-1, 2}, false},
		{"list<vector<float,2>>", listOf(vectorOf(nat(marshal.Float), 2)), coll(append(f32(1), f32(2)...), nil), []any{[]any{num("1"), num("2")}, nil}, false},
	}
}

// TestAppendValues appends every case into one builder per case (and the
// valid ones twice, between nulls), then reads the Arrow values back.
func TestAppendValues(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	for _, c := range valueCases() {
		t.Run(c.name, func(t *testing.T) {
			b, a := newAppender(t, mem, c.typ)
			defer b.Release()
			if err := a.Append(nil); err != nil {
				t.Fatal(err)
			}
			err := a.Append(c.in)
			if c.err {
				if err == nil {
					t.Fatalf("%x: no error", c.in)
				}
				if !errors.Is(err, arrowenc.ErrMalformed) {
					t.Errorf("error %v does not wrap ErrMalformed", err)
				}
				if msg := err.Error(); !strings.Contains(msg, c.typ.String()) || !strings.Contains(msg, " "+itoa(len(c.in))+" bytes") {
					t.Errorf("error %q names neither the type %s nor the length %d", msg, c.typ, len(c.in))
				}
				if b.Len() != 1 {
					t.Fatalf("failed append left %d values, want 1", b.Len())
				}
				arr := b.NewArray()
				defer arr.Release()
				if err := array.ValidateFull(arr); err != nil {
					t.Fatalf("array after a failed append: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if err := a.Append(c.in); err != nil {
				t.Fatal(err)
			}
			arr := b.NewArray()
			defer arr.Release()
			if err := array.ValidateFull(arr); err != nil {
				t.Fatal(err)
			}
			if arr.Len() != 3 || !arr.IsNull(0) {
				t.Fatalf("array %v: want null then two values", arr)
			}
			for i := 1; i <= 2; i++ {
				if got := canonOf(c.typ, arr, i); !sameCanon(t, got, c.want) {
					t.Errorf("value %d: got %s, want %s", i, jsonString(got), jsonString(c.want))
				}
			}
		})
	}
}

func itoa(n int) string { return big.NewInt(int64(n)).String() }

// TestNativeValues checks what the canonical rendering cannot show: the
// raw Arrow values (date range ends, NaN bits, uuid bytes, interval parts).
func TestNativeValues(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	build := func(typ *marshal.Type, vals ...[]byte) arrow.Array {
		t.Helper()
		b, a := newAppender(t, mem, typ)
		defer b.Release()
		for _, v := range vals {
			if err := a.Append(v); err != nil {
				t.Fatal(err)
			}
		}
		return b.NewArray()
	}

	d := build(nat(marshal.Date), []byte{0, 0, 0, 0}, []byte{0xff, 0xff, 0xff, 0xff}, date(0), date(-719162))
	defer d.Release()
	for i, want := range []arrow.Date32{math.MinInt32, math.MaxInt32, 0, -719162} {
		if got := d.(*array.Date32).Value(i); got != want {
			t.Errorf("date %d: %d, want %d", i, got, want)
		}
	}

	nanBits := uint32(0x7fc00001) // a NaN with a payload
	f := build(nat(marshal.Float), be32(int32(nanBits)))
	defer f.Release()
	if got := math.Float32bits(f.(*array.Float32).Value(0)); got != nanBits {
		t.Errorf("float NaN bits %#x, want %#x", got, nanBits)
	}

	uuid := unhex("00112233445566778899aabbccddeeff")
	u := build(nat(marshal.UUID), uuid)
	defer u.Release()
	if u.DataType().(arrow.ExtensionType).ExtensionName() != "arrow.uuid" {
		t.Errorf("uuid type %s", u.DataType())
	}
	if got := u.(array.ExtensionArray).Storage().(*array.FixedSizeBinary).Value(0); string(got) != string(uuid) {
		t.Errorf("uuid bytes %x, want %x", got, uuid)
	}

	iv := build(nat(marshal.Duration), duration(-5, -6, -7))
	defer iv.Release()
	if got := iv.(*array.MonthDayNanoInterval).Value(0); got != (arrow.MonthDayNanoInterval{Months: -5, Days: -6, Nanoseconds: -7}) {
		t.Errorf("duration %+v", got)
	}

	ts := build(nat(marshal.Timestamp), be64(math.MinInt64), be64(math.MaxInt64))
	defer ts.Release()
	if got := ts.(*array.Timestamp).Values(); got[0] != math.MinInt64 || got[1] != math.MaxInt64 {
		t.Errorf("timestamps %v", got)
	}
	if tt := ts.DataType().(*arrow.TimestampType); tt.Unit != arrow.Millisecond || tt.TimeZone != "UTC" {
		t.Errorf("timestamp type %s", tt)
	}

	e := build(nat(marshal.Empty), nil, []byte{})
	defer e.Release()
	if e.Len() != 2 || e.NullN() != 2 {
		t.Errorf("empty type: %d values, %d nulls", e.Len(), e.NullN())
	}
}

// TestFailedAppendLeavesNoTrace appends a malformed nested value whose
// damage comes after valid children, then a good one: the result must
// hold only the good value, every child builder untouched by the bad one.
func TestFailedAppendLeavesNoTrace(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	typ := listOf(person())
	good := coll(lp([]byte("ann"), lp([]byte("A"), be32(1), lp(f64(1), f64(2))), coll([]byte("t"))))
	bad := coll(
		lp([]byte("bob"), lp([]byte("B"), be32(2), lp(f64(1), f64(2))), coll([]byte("u"))),
		lp([]byte("cid"), lp([]byte("C"), be32(3), lp(f64(1), be32(2)))), // double of 4 bytes
	)
	b, a := newAppender(t, mem, typ)
	defer b.Release()
	if err := a.Append(bad); err == nil {
		t.Fatal("no error for a malformed nested double")
	} else if !strings.Contains(err.Error(), "element 1") || !strings.Contains(err.Error(), "field home") {
		t.Errorf("error %q does not say where", err)
	}
	if err := a.Append(good); err != nil {
		t.Fatal(err)
	}
	arr := b.NewArray()
	defer arr.Release()
	if err := array.ValidateFull(arr); err != nil {
		t.Fatal(err)
	}
	if n := arr.(*array.List).ListValues().Len(); n != 1 {
		t.Fatalf("list children: %d, want 1", n)
	}
	want := []any{map[string]any{"name": "ann", "home": map[string]any{"street": "A", "zip": 1, "loc": []any{num("1"), num("2")}}, "tags": []any{"t"}}}
	if arr.Len() != 1 || !sameCanon(t, canonOf(typ, arr, 0), want) {
		t.Errorf("got %s", jsonString(canonOf(typ, arr, 0)))
	}
}

// TestAppendAllocatesNothing: with capacity reserved, appending a value
// of a native type allocates nothing (nested types only reserve the top
// builder here, so they are left to the benchmark).
func TestAppendAllocatesNothing(t *testing.T) {
	cases := []valueCase{
		{typ: nat(marshal.Int), in: be32(7)},
		{typ: nat(marshal.BigInt), in: be64(7)},
		{typ: nat(marshal.Text), in: []byte("some text")},
		{typ: nat(marshal.Blob), in: []byte{1, 2, 3}},
		{typ: nat(marshal.Double), in: f64(1.5)},
		{typ: nat(marshal.Boolean), in: []byte{1}},
		{typ: nat(marshal.Date), in: date(5)},
		{typ: nat(marshal.Timestamp), in: be64(5)},
		{typ: nat(marshal.UUID), in: unhex("00112233445566778899aabbccddeeff")},
		{typ: nat(marshal.Duration), in: duration(1, 2, 3)},
		{typ: nat(marshal.Inet), in: unhex("20010db8000000000000ff0000428329")},
		{typ: nat(marshal.VarInt), in: []byte{0x80, 1, 2}},
		{typ: nat(marshal.Decimal), in: append(be32(2), 0x30, 0x39)},
		{typ: nat(marshal.Int), in: []byte{}},
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	for _, c := range cases {
		b, a := newAppender(t, mem, c.typ)
		const runs = 100
		b.Reserve(runs + 10)
		if bb, ok := b.(interface{ ReserveData(int) }); ok {
			bb.ReserveData(64 * (runs + 10))
		}
		if err := a.Append(c.in); err != nil { // warm the scratch buffers
			t.Fatal(err)
		}
		allocs := testing.AllocsPerRun(runs, func() {
			if err := a.Append(c.in); err != nil {
				t.Fatal(err)
			}
		})
		if allocs != 0 {
			t.Errorf("%s: %.1f allocations per value", c.typ, allocs)
		}
		b.Release()
	}
}
