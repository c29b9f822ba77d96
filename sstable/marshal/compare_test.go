package marshal_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"math/rand"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sstable-flight/sstable-flight/internal/testkit/corpus"
	"github.com/sstable-flight/sstable-flight/sstable"
	"github.com/sstable-flight/sstable-flight/sstable/marshal"
)

func mustParse(t *testing.T, s string) *marshal.Type {
	t.Helper()
	typ, err := marshal.Parse(s)
	if err != nil {
		t.Fatalf("Parse(%q): %v", s, err)
	}
	return typ
}

func i32(v int32) []byte { return binary.BigEndian.AppendUint32(nil, uint32(v)) }
func i64(v int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(v)) }
func i16(v int16) []byte { return binary.BigEndian.AppendUint16(nil, uint16(v)) }
func f32(v float32) []byte {
	return binary.BigEndian.AppendUint32(nil, math.Float32bits(v))
}
func f64(v float64) []byte {
	return binary.BigEndian.AppendUint64(nil, math.Float64bits(v))
}

// twos is the minimal big-endian two's complement encoding of v
// (BigInteger.toByteArray).
func twos(v *big.Int) []byte { return marshal.AppendVarInt(nil, v) }

func bigInt(s string) *big.Int {
	v, ok := new(big.Int).SetString(s, 10)
	if !ok {
		panic(s)
	}
	return v
}

func decimal(scale int32, unscaled string) []byte {
	return append(i32(scale), twos(bigInt(unscaled))...)
}

// date is SimpleDateType: days since the epoch, shifted by 2^31.
func date(days int64) []byte { return binary.BigEndian.AppendUint32(nil, uint32(days+1<<31)) }

// timeUUID builds a version 1 UUID from a 60-bit timestamp and the 8 clock
// sequence / node bytes.
func timeUUID(ts uint64, rest [8]byte) []byte {
	b := make([]byte, 16)
	binary.BigEndian.PutUint32(b[0:], uint32(ts))            // time_low
	binary.BigEndian.PutUint16(b[4:], uint16(ts>>32))        // time_mid
	binary.BigEndian.PutUint16(b[6:], uint16(ts>>48)|0x1000) // version 1
	copy(b[8:], rest[:])
	return b
}

func uuidV(version int, hi uint64, lo uint64) []byte {
	b := make([]byte, 16)
	binary.BigEndian.PutUint64(b, hi&^0xf000|uint64(version)<<12)
	binary.BigEndian.PutUint64(b[8:], lo)
	return b
}

// collection encodes a frozen list/set/map body: int32 count and int32
// length-prefixed values (nil for null); count is len(vals)/per.
func collection(per int, vals ...[]byte) []byte {
	return append(i32(int32(len(vals)/per)), tuple(vals...)...)
}

// tuple encodes int32 length-prefixed values (nil for null), the body of
// a tuple or UDT and of a collection after its count.
func tuple(vals ...[]byte) []byte {
	var b []byte
	for _, v := range vals {
		if v == nil {
			b = append(b, i32(-1)...)
			continue
		}
		b = append(b, i32(int32(len(v)))...)
		b = append(b, v...)
	}
	return b
}

// composite encodes CompositeType components with an end-of-component
// byte after each.
func composite(static bool, comps ...any) []byte {
	var b []byte
	if static {
		b = append(b, 0xff, 0xff)
	}
	for i := 0; i < len(comps); i += 2 {
		v := comps[i].([]byte)
		b = append(b, i16(int16(len(v)))...)
		b = append(b, v...)
		b = append(b, byte(comps[i+1].(int)))
	}
	return b
}

func sign(c int) int {
	switch {
	case c < 0:
		return -1
	case c > 0:
		return 1
	}
	return 0
}

// checkOrder checks that vals are in strictly increasing order under
// Compare, every pair both ways, and that each value equals itself.
func checkOrder(t *testing.T, typ *marshal.Type, vals [][]byte) {
	t.Helper()
	for i := range vals {
		for j := range vals {
			want := sign(i - j)
			if got := sign(marshal.Compare(typ, vals[i], vals[j])); got != want {
				t.Errorf("%s: Compare(%x, %x) = %d, want %d", typ.Marshal(), vals[i], vals[j], got, want)
			}
		}
	}
}

// checkEqual checks that every pair of vals compares equal.
func checkEqual(t *testing.T, typ *marshal.Type, vals ...[]byte) {
	t.Helper()
	for i := range vals {
		for j := range vals {
			if c := marshal.Compare(typ, vals[i], vals[j]); c != 0 {
				t.Errorf("%s: Compare(%x, %x) = %d, want 0", typ.Marshal(), vals[i], vals[j], c)
			}
		}
	}
}

const pkg = "org.apache.cassandra.db.marshal."

func TestCompareOrders(t *testing.T) {
	empty := []byte{}
	tests := []struct {
		typ  string
		vals [][]byte
	}{
		{"Int32Type", [][]byte{empty, i32(math.MinInt32), i32(-256), i32(-1), i32(0), i32(1), i32(255), i32(256), i32(math.MaxInt32)}},
		{"LongType", [][]byte{empty, i64(math.MinInt64), i64(-1 << 40), i64(-1), i64(0), i64(1), i64(1 << 40), i64(math.MaxInt64)}},
		{"CounterColumnType", [][]byte{empty, i64(-5), i64(0), i64(7)}},
		{"ShortType", [][]byte{empty, i16(math.MinInt16), i16(-1), i16(0), i16(1), i16(math.MaxInt16)}},
		{"ByteType", [][]byte{empty, {0x80}, {0xff}, {0x00}, {0x01}, {0x7f}}},
		// Timestamps before 1970 are negative and sort first.
		{"TimestampType", [][]byte{empty, i64(-86400000 * 365 * 100), i64(-1), i64(0), i64(1), i64(1700000000000)}},
		{"BooleanType", [][]byte{empty, {0}, {1}}},
		{"FloatType", [][]byte{empty, f32(float32(math.Inf(-1))), f32(-math.MaxFloat32), f32(-1), f32(-math.SmallestNonzeroFloat32),
			f32(float32(math.Copysign(0, -1))), f32(0), f32(math.SmallestNonzeroFloat32), f32(1), f32(math.MaxFloat32),
			f32(float32(math.Inf(1))), f32(float32(math.NaN()))}},
		{"DoubleType", [][]byte{empty, f64(math.Inf(-1)), f64(-math.MaxFloat64), f64(-1.5), f64(-math.SmallestNonzeroFloat64),
			f64(math.Copysign(0, -1)), f64(0), f64(math.SmallestNonzeroFloat64), f64(1.5), f64(math.MaxFloat64),
			f64(math.Inf(1)), f64(math.NaN())}},
		// Dates: days since the epoch shifted by 2^31, before and after 1970.
		{"SimpleDateType", [][]byte{empty, date(-1 << 31), date(-100000), date(-1), date(0), date(1), date(20000), date(1<<31 - 1)}},
		{"TimeType", [][]byte{empty, i64(0), i64(1), i64(1_000_000_000), i64(86399999999999)}},
		{"UTF8Type", [][]byte{empty, []byte("A"), []byte("a"), []byte("ab"), []byte("b"), []byte("é"), []byte("\U0001F600")}},
		{"AsciiType", [][]byte{empty, []byte("a"), []byte("aa"), []byte("b")}},
		{"BytesType", [][]byte{empty, {0x00}, {0x00, 0x00}, {0x01}, {0x7f}, {0x80}, {0xff}, {0xff, 0x00}}},
		{"InetAddressType", [][]byte{empty, {10, 0, 0, 1}, {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}, {127, 0, 0, 1}, {192, 168, 0, 1}}},
		{"IntegerType", [][]byte{empty,
			twos(bigInt("-1180591620717411303424")), // -2^70
			twos(bigInt("-65536")), twos(bigInt("-257")), twos(bigInt("-256")), twos(bigInt("-129")), twos(bigInt("-128")),
			twos(bigInt("-1")), twos(bigInt("0")), twos(bigInt("1")), twos(bigInt("127")), twos(bigInt("128")),
			twos(bigInt("255")), twos(bigInt("256")), twos(bigInt("65535")),
			twos(bigInt("1180591620717411303424"))}},
		{"DecimalType", [][]byte{empty,
			decimal(-10, "-1"), // -1e10
			decimal(0, "-5"), decimal(1, "-5"), decimal(3, "-1"),
			decimal(0, "0"),
			decimal(2000000000, "1"), // 1e-2000000000: a tiny positive number
			decimal(3, "1"), decimal(1, "5"), decimal(0, "1"), decimal(1, "15"), decimal(0, "2"),
			decimal(-10, "1"), decimal(0, "123456789012345678901234567890"),
			decimal(-2000000000, "1")}},
		{"UUIDType", [][]byte{empty,
			uuidV(0, 0xffffffffffffffff, 0),
			// Version 1: timestamp order, then unsigned bytes.
			timeUUID(0x000_0000_ffffffff, [8]byte{}),
			timeUUID(0x000_0001_00000000, [8]byte{0x7f}),
			timeUUID(0x000_0001_00000000, [8]byte{0x80}),
			timeUUID(0xfff_0000_00000000, [8]byte{}),
			// Version 4: unsigned msb then unsigned lsb.
			uuidV(4, 0x0000000000000000, 0x7fffffffffffffff),
			uuidV(4, 0x0000000000000000, 0x8000000000000000),
			uuidV(4, 0x8000000000000000, 0),
			uuidV(5, 0, 0)}},
		// Timestamp order disagrees with byte order (time_low comes first
		// in the bytes), and the last 8 bytes compare signed.
		{"TimeUUIDType", [][]byte{empty,
			timeUUID(0x000_0000_ffffffff, [8]byte{}),
			timeUUID(0x000_0001_00000000, [8]byte{0x80}),
			timeUUID(0x000_0001_00000000, [8]byte{0xff}),
			timeUUID(0x000_0001_00000000, [8]byte{0x00, 0x80}),
			timeUUID(0x000_0001_00000000, [8]byte{0x00}),
			timeUUID(0x000_0001_00000000, [8]byte{0x00, 0x7f}),
			timeUUID(0x000_0001_00000001, [8]byte{}),
			timeUUID(0x001_0000_00000000, [8]byte{}),
			timeUUID(0xfff_0000_00000000, [8]byte{})}},
		// Reversed: the inner order inverted, the empty value last.
		{"ReversedType(" + pkg + "Int32Type)", [][]byte{i32(10), i32(1), i32(0), i32(-1), empty}},
		{"ReversedType(" + pkg + "UTF8Type)", [][]byte{[]byte("b"), []byte("ab"), []byte("a"), empty}},
		{"ReversedType(" + pkg + "TimestampType)", [][]byte{i64(1), i64(0), i64(-1)}},
		{"ListType(" + pkg + "Int32Type)", [][]byte{empty,
			collection(1), collection(1, i32(-5)), collection(1, i32(1)), collection(1, i32(1), i32(-3)),
			collection(1, i32(1), i32(2)), collection(1, i32(2))}},
		{"SetType(" + pkg + "UTF8Type)", [][]byte{empty,
			collection(1), collection(1, []byte("a")), collection(1, []byte("a"), []byte("b")), collection(1, []byte("b"))}},
		{"MapType(" + pkg + "Int32Type," + pkg + "UTF8Type)", [][]byte{empty,
			collection(2), collection(2, i32(-1), []byte("z")), collection(2, i32(1), []byte("a")),
			collection(2, i32(1), []byte("a"), i32(2), []byte("a")), collection(2, i32(1), []byte("b")),
			collection(2, i32(2), []byte("a"))}},
		{"TupleType(" + pkg + "Int32Type," + pkg + "UTF8Type)", [][]byte{empty,
			tuple(nil, []byte("z")), tuple(i32(-1)), tuple(i32(1), nil), tuple(i32(1), []byte("a")),
			tuple(i32(1), []byte("b")), tuple(i32(2), nil)}},
		{"VectorType(" + pkg + "FloatType , 2)", [][]byte{empty,
			append(f32(-1), f32(5)...), append(f32(0), f32(-1)...), append(f32(0), f32(1)...), append(f32(2), f32(0)...)}},
		{"VectorType(" + pkg + "UTF8Type , 2)", [][]byte{empty,
			{1, 'a', 0}, {1, 'a', 1, 'a'}, {2, 'a', 'a', 0}, {1, 'b', 0}}},
		{"CompositeType(" + pkg + "Int32Type," + pkg + "ReversedType(" + pkg + "UTF8Type))", [][]byte{empty,
			composite(true, i32(5), 0),
			composite(false, i32(-1), 0),
			composite(false, i32(1), -1),
			composite(false, i32(1), 0),
			composite(false, i32(1), 0, []byte("b"), 0),
			composite(false, i32(1), 0, []byte("a"), 0),
			composite(false, i32(1), 1),
			composite(false, i32(2), 0)}},
	}
	for _, tc := range tests {
		checkOrder(t, mustParse(t, pkg+tc.typ), tc.vals)
	}
}

func TestCompareEquivalences(t *testing.T) {
	p := func(s string) *marshal.Type { return mustParse(t, pkg+s) }
	// Non-minimal varints equal minimal ones.
	checkEqual(t, p("IntegerType"), []byte{0x01}, []byte{0x00, 0x01}, []byte{0x00, 0x00, 0x01})
	checkEqual(t, p("IntegerType"), []byte{0xff}, []byte{0xff, 0xff}, []byte{0xff, 0xff, 0xff})
	checkEqual(t, p("IntegerType"), []byte{0x80}, []byte{0xff, 0x80})
	// Decimal ignores the scale: 1.0 = 1.00 = 1, 0 = 0.000.
	checkEqual(t, p("DecimalType"), decimal(0, "1"), decimal(1, "10"), decimal(2, "100"))
	checkEqual(t, p("DecimalType"), decimal(0, "0"), decimal(5, "0"), decimal(-5, "0"))
	checkEqual(t, p("DecimalType"), decimal(-2, "-3"), decimal(0, "-300"))
	// All NaNs are equal (Double.compare uses doubleToLongBits).
	checkEqual(t, p("DoubleType"), f64(math.NaN()), binary.BigEndian.AppendUint64(nil, 0xfff8000000000001), binary.BigEndian.AppendUint64(nil, 0x7ff0000000000001))
	checkEqual(t, p("FloatType"), f32(float32(math.NaN())), binary.BigEndian.AppendUint32(nil, 0xffc00001))
	// Every true byte is the same true.
	checkEqual(t, p("BooleanType"), []byte{1}, []byte{2}, []byte{0xff})
	// A tuple's missing trailing components equal null ones.
	tt := p("TupleType(" + pkg + "Int32Type," + pkg + "UTF8Type," + pkg + "Int32Type)")
	checkEqual(t, tt, tuple(i32(1)), tuple(i32(1), nil), tuple(i32(1), nil, nil))
	// EmptyType values are all equal.
	checkEqual(t, p("EmptyType"), nil, []byte{}, []byte{1})
	// -0.0 and 0.0 differ, both ways.
	if c := marshal.Compare(p("DoubleType"), f64(math.Copysign(0, -1)), f64(0)); c >= 0 {
		t.Errorf("Compare(-0.0, 0.0) = %d, want < 0", c)
	}
}

// TestCompareTimeUUIDNotByteOrder pins the reason TimeUUIDType exists:
// two timeuuids whose byte order disagrees with their time order.
func TestCompareTimeUUIDNotByteOrder(t *testing.T) {
	typ := mustParse(t, pkg+"TimeUUIDType")
	early := timeUUID(0x1d0000000000000|0xffffffff, [8]byte{}) // large time_low
	late := timeUUID(0x1d0000100000000, [8]byte{})             // time_mid one higher
	if bytes.Compare(early, late) <= 0 {
		t.Fatalf("test values are in byte order already")
	}
	if c := marshal.Compare(typ, early, late); c >= 0 {
		t.Errorf("Compare(early, late) = %d, want < 0", c)
	}
	// UUIDType orders the same two by time as well.
	if c := marshal.Compare(mustParse(t, pkg+"UUIDType"), early, late); c >= 0 {
		t.Errorf("UUIDType Compare(early, late) = %d, want < 0", c)
	}
}

// TestCompareMalformedTotal feeds random and truncated values of every
// kind: Compare must not panic, must be antisymmetric and reflexive.
func TestCompareMalformedTotal(t *testing.T) {
	types := []string{
		"AsciiType", "LongType", "BytesType", "BooleanType", "CounterColumnType", "SimpleDateType",
		"DecimalType", "DoubleType", "DurationType", "FloatType", "InetAddressType", "Int32Type",
		"ShortType", "UTF8Type", "TimeType", "TimestampType", "TimeUUIDType", "ByteType", "UUIDType",
		"IntegerType", "EmptyType", "DateType",
		"ListType(" + pkg + "Int32Type)", "SetType(" + pkg + "DoubleType)",
		"MapType(" + pkg + "UTF8Type," + pkg + "DecimalType)",
		"TupleType(" + pkg + "Int32Type," + pkg + "UUIDType)",
		"UserType(ks,61,6b:" + pkg + "Int32Type,76:" + pkg + "UTF8Type)",
		"VectorType(" + pkg + "FloatType , 3)", "VectorType(" + pkg + "IntegerType , 2)",
		"CompositeType(" + pkg + "Int32Type," + pkg + "UTF8Type)",
		"DynamicCompositeType(a=>" + pkg + "AsciiType,i=>" + pkg + "Int32Type)",
		"ReversedType(" + pkg + "DecimalType)",
	}
	rng := rand.New(rand.NewSource(1))
	var samples [][]byte
	samples = append(samples, nil, []byte{}, []byte{0}, []byte{0xff},
		i32(2), i32(-1), append(i32(1), 0, 0, 0, 9, 1),
		append(i32(1), 0, 0),
		[]byte{0x80, 0x05, 0, 1, 'x', 0}, []byte{0, 3, 'I', 'n', 't'},
		[]byte{0xff, 0xff, 0, 4, 0, 0, 0, 1, 0})
	for i := 0; i < 300; i++ {
		b := make([]byte, rng.Intn(24))
		rng.Read(b)
		samples = append(samples, b)
	}
	for _, ts := range types {
		typ := mustParse(t, pkg+ts)
		for _, a := range samples {
			for _, b := range samples {
				ab, ba := marshal.Compare(typ, a, b), marshal.Compare(typ, b, a)
				if sign(ab) != -sign(ba) {
					t.Fatalf("%s: Compare(%x, %x) = %d but Compare(%x, %x) = %d", ts, a, b, ab, b, a, ba)
				}
			}
			if c := marshal.Compare(typ, a, a); c != 0 {
				t.Fatalf("%s: Compare(%x, itself) = %d", ts, a, c)
			}
		}
	}
	if c := marshal.Compare(nil, []byte{1}, []byte{2}); c >= 0 {
		t.Errorf("nil type: Compare = %d, want byte order", c)
	}
}

// compareClustering compares two row clusterings prefix-wise: column by
// column, a null before any value, then the shorter prefix first. decided
// is the index of the column that decided, -1 when equal or by length.
func compareClustering(types []*marshal.Type, a, b [][]byte) (c, decided int) {
	for i := 0; i < len(a) && i < len(b) && i < len(types); i++ {
		switch {
		case a[i] == nil && b[i] == nil:
			continue
		case a[i] == nil:
			return -1, i
		case b[i] == nil:
			return 1, i
		}
		if c := marshal.Compare(types[i], a[i], b[i]); c != 0 {
			return c, i
		}
	}
	return len(a) - len(b), -1
}

func cloneClustering(cl [][]byte) [][]byte {
	out := make([][]byte, len(cl))
	for i, v := range cl {
		if v != nil {
			out[i] = append([]byte{}, v...)
		}
	}
	return out
}

// TestCompareCorpusOrder checks Compare against the order in which real
// Cassandra wrote the corpus: rows within each partition strictly
// increase under the clustering comparator, and the cells of each
// non-frozen collection or UDT within a row strictly increase under the
// cell path type (set element, map key, list timeuuid, UDT field index).
func TestCompareCorpusOrder(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "testdata", "corpus", "*", "corpus", "*", "*-Data.db"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Skip("no corpus Data.db files")
	}
	var (
		rowCmps, cellCmps   int
		reversedDecided     int // row comparisons decided by a DESC column
		byteOrderWouldFail  int // comparisons plain byte order gets wrong
		pathKinds           = map[string]int{}
		clusteringTypeNames = map[string]bool{}
	)
	cases := corpus.NewCases(t)
	for _, f := range files {
		cases.Run(corpus.SSTableCase(f), func(t *testing.T) {
			rel, _ := filepath.Rel(filepath.Join("..", "..", "testdata", "corpus"), f)
			r, err := sstable.Open(f, sstable.Options{})
			if err != nil {
				t.Fatalf("%s: %v", rel, err)
			}
			types := r.Schema.Clustering
			for _, ct := range types {
				clusteringTypeNames[ct.Marshal()] = true
			}
			s := r.Scan()
			for s.NextPartition() {
				var prev [][]byte
				havePrev := false
				for s.NextUnfiltered() {
					u := s.Unfiltered()
					if u.Marker {
						continue
					}
					if !u.Static {
						if havePrev {
							c, col := compareClustering(types, prev, u.Clustering)
							rowCmps++
							if c >= 0 {
								t.Errorf("%s: partition %x: row %s not after %s (Compare = %d)",
									rel, s.Partition().Key, fmtClustering(u.Clustering), fmtClustering(prev), c)
							}
							if col >= 0 {
								if types[col].Reversed {
									reversedDecided++
								}
								if bytes.Compare(prev[col], u.Clustering[col]) >= 0 {
									byteOrderWouldFail++
								}
							}
						}
						prev, havePrev = cloneClustering(u.Clustering), true
					}
					cols := r.Schema.Columns(u.Static)
					for i := 1; i < len(u.Cells); i++ {
						a, b := &u.Cells[i-1], &u.Cells[i]
						if a.Column != b.Column || a.Column >= len(cols) {
							continue
						}
						col := cols[a.Column]
						if !col.Complex || col.PathType == nil {
							continue
						}
						pt := col.PathType
						if col.Type.Kind == marshal.Set || col.Type.Kind == marshal.Map {
							pt = col.Type.Elems[0]
						}
						cellCmps++
						pathKinds[col.Type.String()]++
						if c := marshal.Compare(pt, a.Path, b.Path); c >= 0 {
							t.Errorf("%s: partition %x column %s (%s): cell path %x not after %x (Compare = %d)",
								rel, s.Partition().Key, col.Name, col.Type, b.Path, a.Path, c)
						}
						if bytes.Compare(a.Path, b.Path) >= 0 {
							byteOrderWouldFail++
						}
					}
				}
			}
			if err := s.Err(); err != nil {
				t.Errorf("%s: scan: %v", rel, err)
			}
			r.Close()
		})
	}
	t.Logf("checked %d comparisons: %d between rows, %d between cell paths, over %d Data.db files",
		rowCmps+cellCmps, rowCmps, cellCmps, len(files))
	t.Logf("%d row comparisons decided by a DESC column; %d comparisons unsigned byte order would get wrong",
		reversedDecided, byteOrderWouldFail)
	t.Logf("cell path comparisons per column type: %v", pathKinds)
	// Floors on the whole corpus: they hold only when every SSTable ran.
	if !cases.All() {
		return
	}
	if rowCmps+cellCmps <= 1000 {
		t.Errorf("only %d comparisons checked, want > 1000", rowCmps+cellCmps)
	}
	if reversedDecided == 0 {
		t.Errorf("no row comparison exercised a reversed (DESC) clustering column")
	}
	if byteOrderWouldFail == 0 {
		t.Errorf("no comparison distinguished Compare from byte order; the corpus check has no teeth")
	}
	for _, want := range []string{"set<text>", "map<text, int>", "map<blob, double>", "set<timestamp>", "map<int, frozen<set<text>>>", "list<int>"} {
		if pathKinds[want] == 0 {
			t.Errorf("no cell path comparison for a %s column", want)
		}
	}
}

func fmtClustering(cl [][]byte) string {
	parts := make([]string, len(cl))
	for i, v := range cl {
		if v == nil {
			parts[i] = "null"
		} else {
			parts[i] = fmt.Sprintf("%x", v)
		}
	}
	return "(" + strings.Join(parts, ", ") + ")"
}
