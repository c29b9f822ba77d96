package dump

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/sstable-flight/sstable-flight/internal/testkit/corpus"
	"github.com/sstable-flight/sstable-flight/sstable"
	"github.com/sstable-flight/sstable-flight/sstable/marshal"
)

func mustType(t *testing.T, s string) *marshal.Type {
	t.Helper()
	typ, err := marshal.Parse(s)
	if err != nil {
		t.Fatalf("parse type %q: %v", s, err)
	}
	return typ
}

func unhex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatalf("decode hex %q: %v", s, err)
	}
	return b
}

func be32(v int32) []byte { return binary.BigEndian.AppendUint32(nil, uint32(v)) }
func be64(v int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(v)) }

// elems serializes collection/tuple elements with int32 lengths; nil is null.
func elems(vs ...[]byte) []byte {
	var b []byte
	for _, v := range vs {
		if v == nil {
			b = append(b, be32(-1)...)
			continue
		}
		b = append(b, be32(int32(len(v)))...)
		b = append(b, v...)
	}
	return b
}

func collection(n int, vs ...[]byte) []byte {
	return append(be32(int32(n)), elems(vs...)...)
}

const pkg = "org.apache.cassandra.db.marshal."

// TestValueKnown checks values whose Cassandra output is known from
// SELECT JSON and sstabledump on Cassandra 5.0.
func TestValueKnown(t *testing.T) {
	udt := "UserType(ks,61646472,737472656574:" + pkg + "UTF8Type,6e:" + pkg + "Int32Type,5a6970:" + pkg + "Int32Type)"
	cases := []struct {
		typ      string
		val      []byte
		json, st string
	}{
		{"UTF8Type", []byte("a"), `"a"`, "a"},
		{"UTF8Type", []byte("q\"\\\n\x01é"), `"q\"\\\n\u0001é"`, "q\"\\\n\x01é"},
		{"AsciiType", []byte(""), `""`, ""},
		{"Int32Type", be32(1), `1`, "1"},
		{"Int32Type", nil, `""`, ""},
		{"LongType", be64(math.MinInt64), `-9223372036854775808`, "-9223372036854775808"},
		{"IntegerType", unhex(t, "018ee90ff6c373e0ee4e3f0ad2"), `123456789012345678901234567890`, "123456789012345678901234567890"},
		{"IntegerType", unhex(t, "ff"), `-1`, "-1"},
		{"DecimalType", append(be32(2), 0x05, 0xdc), `15.00`, "15.00"},
		{"DecimalType", append(be32(-1), 0x96), `-1.06E+3`, "-1060"},
		{"DecimalType", append(be32(2), 0x00, 0x96), `1.50`, "1.50"},
		{"DecimalType", append(be32(-1), 0x0f), `1.5E+2`, "150"},
		{"DecimalType", append(be32(21), 0xff), `-1E-21`, "-0.000000000000000000001"},
		{"DecimalType", append(be32(7), 0x01), `1E-7`, "0.0000001"},
		{"DecimalType", append(be32(6), 0x01), `0.000001`, "0.000001"},
		{"DoubleType", be64(int64(math.Float64bits(3.5))), `3.5`, "3.5"},
		{"DoubleType", be64(int64(math.Float64bits(1e10))), `1.0E10`, "1.0E10"},
		{"DoubleType", be64(int64(math.Float64bits(1e7))), `1.0E7`, "1.0E7"},
		{"DoubleType", be64(int64(math.Float64bits(9999999))), `9999999.0`, "9999999.0"},
		{"DoubleType", be64(int64(math.Float64bits(0.001))), `0.001`, "0.001"},
		{"DoubleType", be64(int64(math.Float64bits(0.0001))), `1.0E-4`, "1.0E-4"},
		{"DoubleType", be64(int64(math.Float64bits(-0.0 * 1))), `0.0`, "0.0"},
		{"DoubleType", be64(int64(math.Float64bits(math.Copysign(0, -1)))), `-0.0`, "-0.0"},
		{"DoubleType", be64(int64(math.Float64bits(math.NaN()))), `null`, "NaN"},
		{"DoubleType", be64(int64(math.Float64bits(math.Inf(-1)))), `null`, "-Infinity"},
		{"DoubleType", be64(int64(math.Float64bits(4.9e-324))), `4.9E-324`, "4.9E-324"},
		{"FloatType", be32(int32(math.Float32bits(3.4028235e38))), `3.4028235E38`, "3.4028235E38"},
		{"FloatType", be32(int32(math.Float32bits(1.4e-45))), `1.4E-45`, "1.4E-45"},
		{"FloatType", be32(int32(math.Float32bits(float32(math.Inf(1))))), `null`, "Infinity"},
		{"BytesType", unhex(t, "00ff"), `"0x00ff"`, "00ff"},
		{"BytesType", nil, `"0x"`, ""},
		{"BooleanType", []byte{1}, `true`, "true"},
		{"BooleanType", []byte{0}, `false`, "false"},
		{"TimestampType", be64(-315619199999), `"1960-01-01 00:00:00.001Z"`, "1960-01-01T00:00:00.001Z"},
		{"TimestampType", be64(-62135596800000), `"0001-01-01 00:00:00.000Z"`, "0001-01-01T00:00:00.000Z"},
		{"TimestampType", be64(253402300800000), `"+10000-01-01 00:00:00.000Z"`, "+10000-01-01T00:00:00.000Z"},
		{"TimestampType", nil, `""`, ""},
		{"SimpleDateType", be32(int32(uint32(1<<31) - 25534)), `"1900-02-03"`, "1900-02-03"},
		{"SimpleDateType", be32(math.MinInt32), `"1970-01-01"`, "1970-01-01"},
		{"SimpleDateType", be32(0), `"-5877641-06-23"`, "-5877641-06-23"},
		{"TimeType", be64(86399999999999), `"23:59:59.999999999"`, "23:59:59.999999999"},
		{"TimeType", nil, `"null"`, "!error"},
		{"InetAddressType", unhex(t, "00000000000000000000000000000001"), `"0:0:0:0:0:0:0:1"`, "0:0:0:0:0:0:0:1"},
		{"InetAddressType", unhex(t, "7f000001"), `"127.0.0.1"`, "127.0.0.1"},
		{"InetAddressType", unhex(t, "00000000000000000000ffff0a000001"), `"10.0.0.1"`, "10.0.0.1"},
		{"DurationType", []byte{0x01, 0x03, 0x06}, `"-1mo2d3ns"`, "-1mo2d3ns"},
		{"DurationType", []byte{0x00, 0x00, 0x00}, `""`, ""},
		{"DurationType", []byte{0x1c, 0x00, 0x00}, `"1y2mo"`, "1y2mo"},
		{"UUIDType", unhex(t, "d2177dd0eaa211dea572001b779c76e3"), `"d2177dd0-eaa2-11de-a572-001b779c76e3"`, "d2177dd0-eaa2-11de-a572-001b779c76e3"},
		{"TimeUUIDType", nil, `""`, ""},
		{"ShortType", unhex(t, "8000"), `-32768`, "-32768"},
		{"ByteType", unhex(t, "ff"), `-1`, "-1"},
		{"CounterColumnType", unhex(t, "0001800000000000000000000000000000000001"), `422212465065984`, "0001800000000000000000000000000000000001"},
		{"EmptyType", nil, `""`, ""},
		{"ListType(" + pkg + "Int32Type)", collection(2, be32(1), be32(2)), `[1, 2]`, "0000000200000004000000010000000400000002"},
		{"SetType(" + pkg + "UTF8Type)", collection(0), `[]`, "00000000"},
		{"MapType(" + pkg + "Int32Type," + pkg + "UTF8Type)", collection(2, be32(1), []byte("a"), be32(2), []byte("b")), `{"1": "a", "2": "b"}`, ""},
		{"MapType(" + pkg + "UTF8Type," + pkg + "Int32Type)", collection(1, []byte("k\""), be32(7)), `{"k\"": 7}`, ""},
		{"MapType(" + pkg + "FrozenType(" + pkg + "ListType(" + pkg + "Int32Type))," + pkg + "UTF8Type)",
			collection(1, collection(2, be32(1), be32(2)), []byte("x")), `{"[1, 2]": "x"}`, ""},
		{"MapType(" + pkg + "FrozenType(" + pkg + "ListType(" + pkg + "UTF8Type))," + pkg + "Int32Type)",
			collection(1, collection(1, []byte("a")), be32(1)), `{"[\"a\"]": 1}`, ""},
		{"TupleType(" + pkg + "Int32Type," + pkg + "UTF8Type)", elems(be32(1), []byte("q")), `[1, "q"]`, "1:q"},
		{"TupleType(" + pkg + "Int32Type," + pkg + "UTF8Type," + pkg + "UTF8Type)", elems(nil, []byte("a:b@")), `[null, "a:b@", null]`, `@:a\:b\@`},
		{udt, elems([]byte("s")), `{"street": "s", "n": null, "\"Zip\"": null}`, "s"},
		{udt, elems([]byte("s"), nil, be32(5)), `{"street": "s", "n": null, "\"Zip\"": 5}`, "s:@:5"},
		{"VectorType(" + pkg + "FloatType,2)", append(be32(int32(math.Float32bits(1))), be32(int32(math.Float32bits(2)))...), `[1.0, 2.0]`, "3f80000040000000"},
		{"VectorType(" + pkg + "UTF8Type,2)", []byte{1, 'a', 0}, `["a", ""]`, "016100"},
		{"CompositeType(" + pkg + "UTF8Type," + pkg + "Int32Type)", []byte{0, 3, 'a', ':', 'b', 0, 0, 4, 0, 0, 0, 7, 0}, `"a\\:b:7"`, `a\:b:7`},
	}
	for _, c := range cases {
		typ := mustType(t, pkg+c.typ)
		got, err := ValueJSON(typ, c.val)
		if err != nil || got != c.json {
			t.Errorf("ValueJSON(%s, %x) = %s, %v; want %s", c.typ, c.val, got, err, c.json)
		}
		want := c.st
		if typ.Kind == marshal.Map {
			// CollectionType.getString is the bytes in hex.
			want = hex.EncodeToString(c.val)
		}
		got, err = ValueString(typ, c.val)
		if want == "!error" {
			if err == nil {
				t.Errorf("ValueString(%s, %x) = %q, want an error", c.typ, c.val, got)
			}
			continue
		}
		if err != nil || got != want {
			t.Errorf("ValueString(%s, %x) = %q, %v; want %q", c.typ, c.val, got, err, want)
		}
	}
}

// TestValueBadInput feeds truncated and corrupt bytes to every kind: both
// functions must return an error naming the type, never panic.
func TestValueBadInput(t *testing.T) {
	types := []string{
		"Int32Type", "LongType", "ShortType", "ByteType", "FloatType", "DoubleType", "BooleanType",
		"DecimalType", "TimestampType", "SimpleDateType", "TimeType", "UUIDType", "TimeUUIDType",
		"InetAddressType", "DurationType", "CounterColumnType", "AsciiType", "UTF8Type", "EmptyType",
		"ListType(" + pkg + "Int32Type)", "SetType(" + pkg + "UTF8Type)",
		"MapType(" + pkg + "Int32Type," + pkg + "UTF8Type)",
		"TupleType(" + pkg + "Int32Type," + pkg + "UTF8Type)",
		"UserType(ks,61,62:" + pkg + "Int32Type)",
		"VectorType(" + pkg + "FloatType,2)", "VectorType(" + pkg + "UTF8Type,2)",
		"CompositeType(" + pkg + "UTF8Type," + pkg + "Int32Type)",
	}
	inputs := [][]byte{
		{0x01, 0x02, 0x03}, {0xff, 0xff, 0xff, 0xff, 0xff}, {0x7f, 0xff, 0xff, 0xff, 0x00},
		{0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x09, 0x01}, {0xc3, 0x28, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80},
		{0xff}, {0xfe, 0x01}, bytes.Repeat([]byte{0xff}, 17),
	}
	rejected := 0
	for _, ts := range types {
		typ := mustType(t, pkg+ts)
		for _, in := range inputs {
			for _, f := range []func(*marshal.Type, []byte) (string, error){ValueJSON, ValueString} {
				_, err := f(typ, in)
				if err != nil {
					rejected++
					if !strings.Contains(err.Error(), typ.String()) {
						t.Errorf("error for %s %x does not name the type: %v", ts, in, err)
					}
				}
			}
		}
	}
	if rejected == 0 {
		t.Error("no bad input was rejected")
	}
	// Random bytes, and random corruptions of a valid nested value, must
	// come back as a string or an error, never a panic.
	rng := rand.New(rand.NewPCG(1, 2))
	nested := mustType(t, pkg+"MapType("+pkg+"UTF8Type,"+pkg+"FrozenType("+pkg+"ListType("+pkg+"TupleType("+pkg+"Int32Type,"+pkg+"DecimalType,"+pkg+"VectorType("+pkg+"UTF8Type,2)))))")
	valid := collection(1, []byte("k"), collection(1, elems(be32(1), append(be32(1), 5), []byte{1, 'a', 0})))
	if _, err := ValueJSON(nested, valid); err != nil {
		t.Fatalf("valid nested value: %v", err)
	}
	for _, ts := range append(types, nested.Marshal()[len(pkg):]) {
		typ := mustType(t, pkg+ts)
		for i := 0; i < 500; i++ {
			in := make([]byte, rng.IntN(40))
			for j := range in {
				in[j] = byte(rng.UintN(256))
			}
			if i%2 == 0 {
				in = append([]byte{}, valid...)
				in[rng.IntN(len(in))] = byte(rng.UintN(256))
			}
			ValueJSON(typ, in)
			ValueString(typ, in)
		}
	}
	if _, err := ValueJSON(mustType(t, pkg+"Int32Type"), be32(1)[:3]); err == nil {
		t.Error("3-byte int accepted")
	}
	if _, err := ValueJSON(mustType(t, pkg+"UTF8Type"), []byte{0xff}); err == nil {
		t.Error("invalid UTF-8 accepted")
	}
	if _, err := ValueJSON(nil, nil); err == nil {
		t.Error("nil type accepted")
	}
}

// TestValueJavaDouble checks the Java spelling of doubles against strconv
// parsing: every rendering must read back as the same value.
func TestValueJavaDouble(t *testing.T) {
	for _, v := range []float64{1, -1, 0.5, 123456.789, 1e7, 1e-3, 9.999e-4, 1e21, 1.7976931348623157e308, 5e-324, 2.2250738585072014e-308, 100, 1234567.0} {
		s := javaDouble(v, 64)
		back, err := strconv.ParseFloat(s, 64)
		if err != nil || back != v || !strings.Contains(s, ".") {
			t.Errorf("javaDouble(%v) = %s", v, s)
		}
	}
}

// sameNumber compares two JSON numbers by value. Integers and decimals must
// be equal exactly; a float may be spelled with other digits by older
// JDKs' Double/Float.toString, so two spellings that read back as the same
// double or float also match.
func sameNumber(a, b json.Number) bool {
	ra, oka := new(big.Rat).SetString(string(a))
	rb, okb := new(big.Rat).SetString(string(b))
	if oka && okb && ra.Cmp(rb) == 0 {
		return true
	}
	isFloat := func(s json.Number) bool { return strings.ContainsAny(string(s), ".eE") }
	if !isFloat(a) || !isFloat(b) {
		return false
	}
	for _, bits := range []int{64, 32} {
		fa, err1 := strconv.ParseFloat(string(a), bits)
		fb, err2 := strconv.ParseFloat(string(b), bits)
		if err1 == nil && err2 == nil && fa == fb {
			floatRespellings++
			return true
		}
	}
	return false
}

// floatRespellings counts floats that matched only as the same binary
// value, not digit for digit.
var floatRespellings int

func sameJSON(a, b any) bool {
	switch x := a.(type) {
	case json.Number:
		y, ok := b.(json.Number)
		return ok && sameNumber(x, y)
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !sameJSON(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !sameJSON(v, w) {
				return false
			}
		}
		return true
	default:
		return a == b
	}
}

func decodeJSON(s string) (any, error) {
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if d.More() {
		return nil, fmt.Errorf("trailing data after JSON value")
	}
	return v, nil
}

// corpusChecker compares our renderings with one sstabledump file.
type corpusChecker struct {
	t        *testing.T
	name     string
	compared int
	byKind   map[string]int
}

func (c *corpusChecker) failf(format string, args ...any) {
	c.t.Helper()
	c.t.Errorf("%s: %s", c.name, fmt.Sprintf(format, args...))
}

// json checks ValueJSON(typ, b) against the dump's raw value.
func (c *corpusChecker) json(where string, typ *marshal.Type, b []byte, want any) {
	c.t.Helper()
	got, err := ValueJSON(typ, b)
	if err != nil {
		c.failf("%s: ValueJSON(%s, %x): %v", where, typ, b, err)
		return
	}
	v, err := decodeJSON(got)
	if err != nil {
		c.failf("%s: ValueJSON(%s, %x) = %s is not JSON: %v", where, typ, b, got, err)
		return
	}
	if !sameJSON(v, want) {
		wantText, _ := json.Marshal(want)
		c.failf("%s: ValueJSON(%s, %x) = %s, dump has %s", where, typ, b, got, wantText)
		return
	}
	c.compared++
	c.byKind["json "+typ.Kind.String()]++
}

// str checks ValueString(typ, b) against the dump's string.
func (c *corpusChecker) str(where string, typ *marshal.Type, b []byte, want any) {
	c.t.Helper()
	got, err := ValueString(typ, b)
	if err != nil {
		c.failf("%s: ValueString(%s, %x): %v", where, typ, b, err)
		return
	}
	if got != want {
		c.failf("%s: ValueString(%s, %x) = %q, dump has %q", where, typ, b, got, want)
		return
	}
	c.compared++
	c.byKind["string "+typ.Kind.String()]++
}

// unquoteName undoes ColumnIdentifier.toCQLString's quoting of a column
// name in the dump.
func unquoteName(s string) string {
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		return strings.ReplaceAll(s[1:len(s)-1], `""`, `"`)
	}
	return s
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

func asObject(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

// TestValueCorpus renders every partition key, clustering value, cell path
// and cell value of every corpus SSTable (three formats) and compares each
// with Cassandra 5.0's sstabledump of the same SSTable.
func TestValueCorpus(t *testing.T) {
	dataFiles, err := filepath.Glob(filepath.Join("..", "..", "testdata", "corpus", "*", "corpus", "*", "*-Data.db"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(dataFiles)
	c := &corpusChecker{t: t, byKind: map[string]int{}}
	checked := 0
	cases := corpus.NewCases(t)
	for _, data := range dataFiles {
		prefix := strings.TrimSuffix(filepath.Base(data), "-Data.db")
		dumpPath := filepath.Join(filepath.Dir(data), "sstabledump", prefix+".json")
		raw, err := os.ReadFile(dumpPath)
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		cases.Run(corpus.SSTableCase(data), func(t *testing.T) {
			dump, err := decodeJSON(string(raw))
			if err != nil {
				t.Fatalf("decode %s: %v", dumpPath, err)
			}
			rel, _ := filepath.Rel(filepath.Join("..", "..", "testdata", "corpus"), data)
			c.t, c.name = t, rel
			checkSSTable(c, data, asList(dump))
			checked++
		})
	}
	if cases.All() && checked == 0 {
		t.Fatal("no corpus SSTable with a dump found")
	}
	kinds := make([]string, 0, len(c.byKind))
	for k := range c.byKind {
		kinds = append(kinds, fmt.Sprintf("%s=%d", k, c.byKind[k]))
	}
	sort.Strings(kinds)
	t.Logf("compared %d values from %d SSTables with sstabledump (%d floats spelled with other digits): %s",
		c.compared, checked, floatRespellings, strings.Join(kinds, " "))
	// A floor on the whole corpus: it holds only when every SSTable ran.
	if cases.All() && c.compared <= 5000 {
		t.Errorf("compared only %d values, want > 5000", c.compared)
	}
}

func checkSSTable(c *corpusChecker, data string, dump []any) {
	t := c.t
	t.Helper()
	r, err := sstable.Open(data, sstable.Options{})
	if err != nil {
		t.Fatalf("open %s: %v", data, err)
	}
	defer r.Close()
	s := r.Scan()
	pi := 0
	for s.NextPartition() {
		if pi >= len(dump) {
			c.failf("more partitions than the dump's %d", len(dump))
			return
		}
		dp := asObject(dump[pi])
		where := fmt.Sprintf("partition %d", pi)
		checkKey(c, where, r.Schema.Key, s.Partition().Key, asList(asObject(dp["partition"])["key"]))
		rows := asList(dp["rows"])
		ri := 0
		for s.NextUnfiltered() {
			u := s.Unfiltered()
			if u.Static && (ri >= len(rows) || asObject(rows[ri])["type"] != "static_block") {
				continue // an empty static row is not dumped
			}
			if ri >= len(rows) {
				c.failf("%s: more unfiltereds than the dump's %d", where, len(rows))
				break
			}
			checkUnfiltered(c, fmt.Sprintf("%s row %d", where, ri), r.Schema, u, asObject(rows[ri]))
			ri++
		}
		if ri != len(rows) {
			c.failf("%s: %d unfiltereds, dump has %d", where, ri, len(rows))
		}
		pi++
	}
	if err := s.Err(); err != nil {
		c.failf("scan: %v", err)
	}
	if pi != len(dump) {
		c.failf("%d partitions, dump has %d", pi, len(dump))
	}
}

// checkKey compares the partition key: sstabledump writes one getString per
// component of a composite key.
func checkKey(c *corpusChecker, where string, typ *marshal.Type, key []byte, want []any) {
	parts, err := marshal.SplitKey(typ, key)
	if err != nil {
		c.failf("%s: split key: %v", where, err)
		return
	}
	types := marshal.KeyTypes(typ)
	if len(parts) != len(want) {
		c.failf("%s: key has %d components, dump %d", where, len(parts), len(want))
		return
	}
	for i, p := range parts {
		c.str(fmt.Sprintf("%s key %d", where, i), types[i], p, want[i])
	}
}

func checkClustering(c *corpusChecker, where string, schema *sstable.Schema, values [][]byte, want []any) {
	if len(values) > len(want) {
		c.failf("%s: %d clustering values, dump %d", where, len(values), len(want))
		return
	}
	for i, v := range values {
		if v == nil || i >= len(schema.Clustering) {
			continue
		}
		c.json(fmt.Sprintf("%s clustering %d", where, i), schema.Clustering[i], v, want[i])
	}
	for _, w := range want[len(values):] {
		if w != "*" {
			c.failf("%s: dump has clustering %v past our %d values", where, w, len(values))
		}
	}
}

func checkUnfiltered(c *corpusChecker, where string, schema *sstable.Schema, u *sstable.Unfiltered, row map[string]any) {
	if u.Marker {
		bound := asObject(row["start"])
		if bound == nil {
			bound = asObject(row["end"])
		}
		checkClustering(c, where, schema, u.Clustering, asList(bound["clustering"]))
		return
	}
	if !u.Static {
		checkClustering(c, where, schema, u.Clustering, asList(row["clustering"]))
	}
	cols := schema.Columns(u.Static)
	complexByName := map[string]bool{}
	for _, col := range cols {
		complexByName[col.Name] = col.Complex
	}
	// Complex deletions are extra dump entries with a deletion and no
	// path; everything else lines up with our cells one to one.
	var cells []map[string]any
	for _, dc := range asList(row["cells"]) {
		m := asObject(dc)
		name := unquoteName(fmt.Sprint(m["name"]))
		if _, hasPath := m["path"]; complexByName[name] && !hasPath && m["deletion_info"] != nil {
			continue
		}
		cells = append(cells, m)
	}
	if len(cells) != len(u.Cells) {
		c.failf("%s: %d cells, dump has %d", where, len(u.Cells), len(cells))
		return
	}
	for i := range u.Cells {
		cell := &u.Cells[i]
		dc := cells[i]
		if cell.Column < 0 || cell.Column >= len(cols) {
			c.failf("%s: cell %d column %d out of range", where, i, cell.Column)
			continue
		}
		col := cols[cell.Column]
		cw := fmt.Sprintf("%s cell %s", where, col.Name)
		if name := unquoteName(fmt.Sprint(dc["name"])); name != col.Name {
			c.failf("%s: dump cell %d is column %q", cw, i, name)
			continue
		}
		valueType := col.Type
		if col.Complex {
			path := asList(dc["path"])
			if len(path) != 1 {
				c.failf("%s: dump path %v", cw, dc["path"])
				continue
			}
			switch col.Type.Kind {
			case marshal.List:
				c.str(cw+" path", &marshal.Type{Kind: marshal.TimeUUID}, cell.Path, path[0])
				valueType = col.Type.Elems[0]
			case marshal.Set:
				c.str(cw+" path", col.Type.Elems[0], cell.Path, path[0])
				valueType = &marshal.Type{Kind: marshal.Empty}
			case marshal.Map:
				c.str(cw+" path", col.Type.Elems[0], cell.Path, path[0])
				valueType = col.Type.Elems[1]
			case marshal.UDT:
				if len(cell.Path) != 2 {
					c.failf("%s: UDT path %x is not a short", cw, cell.Path)
					continue
				}
				fi := int(int16(binary.BigEndian.Uint16(cell.Path)))
				if fi < 0 || fi >= len(col.Type.Elems) {
					c.failf("%s: UDT field %d out of range", cw, fi)
					continue
				}
				if path[0] != col.Type.FieldNames[fi] {
					c.failf("%s: UDT field %d is %q, dump %q", cw, fi, col.Type.FieldNames[fi], path[0])
				} else {
					c.compared++
				}
				valueType = col.Type.Elems[fi]
			}
		}
		if cell.IsTombstone() {
			if _, ok := dc["value"]; ok {
				c.failf("%s: tombstone, dump has a value", cw)
			}
			continue
		}
		want, ok := dc["value"]
		if !ok {
			c.failf("%s: dump cell has no value", cw)
			continue
		}
		c.json(cw, valueType, cell.Value, want)
	}
}

// TestValueFramingErrors: a collection, tuple, UDT or vector whose framing
// does not fit its bytes is refused with an error that names the type,
// the element being read and what did not fit, and wraps
// marshal.ErrMalformed.
func TestValueFramingErrors(t *testing.T) {
	const p = "org.apache.cassandra.db.marshal."
	cases := []struct {
		name, typ string
		val       []byte
		want      string // the JSON error
	}{
		{"count", "ListType(" + p + "Int32Type)", collection(3, be32(1)),
			"render list<int> value: element count 3 does not fit in 12 bytes"},
		{"element overruns", "ListType(" + p + "Int32Type)", append(be32(1), be32(9)...),
			"render list<int> value: element 0: length 9 at byte 4 overruns the 8 bytes of the value"},
		{"map value truncated", "MapType(" + p + "Int32Type," + p + "Int32Type)", append(collection(1, be32(1)), 0, 0),
			"render map<int, int> value: value 0: length truncated at byte 12 of 14"},
		{"bytes after", "ListType(" + p + "Int32Type)", append(collection(1, be32(1)), 7),
			"render list<int> value: 1 bytes left after the last element"},
		{"tuple bytes after", "TupleType(" + p + "Int32Type)", append(elems(be32(1)), 0),
			"render frozen<tuple<int>> value: 1 bytes left after the last element"},
		{"udt field overruns", "UserType(ks,61,62:" + p + "Int32Type)", be32(5),
			"render a value: field b: length 5 at byte 0 overruns the 4 bytes of the value"},
		{"fixed vector", "VectorType(" + p + "FloatType,2)", be32(1),
			"render vector<float, 2> value: 4 bytes, want 8: 2 elements of 4 bytes"},
		{"vint vector", "VectorType(" + p + "UTF8Type,2)", []byte{1, 'a', 3, 'b'},
			"render vector<text, 2> value: element 1: length 3 at byte 2 overruns the 4 bytes of the value"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ValueJSON(mustType(t, p+c.typ), c.val)
			if err == nil || err.Error() != c.want {
				t.Fatalf("ValueJSON error %v, want %q", err, c.want)
			}
			if !errors.Is(err, marshal.ErrMalformed) {
				t.Errorf("error %v does not wrap marshal.ErrMalformed", err)
			}
		})
	}
}
