package marshal

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

const P = pkg

func TestRealTypes(t *testing.T) {
	for _, tc := range realTypes {
		ty, err := Parse(tc.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.in, err)
			continue
		}
		if got := ty.String(); got != tc.cql {
			t.Errorf("Parse(%q).String() = %q, want %q", tc.in, got, tc.cql)
		}
		if got := ty.FixedLength(); got != tc.fixed {
			t.Errorf("Parse(%q).FixedLength() = %d, want %d", tc.in, got, tc.fixed)
		}
		// Strings Cassandra wrote must come back byte for byte.
		if got := ty.Marshal(); got != tc.in {
			t.Errorf("Parse(%q).Marshal() = %q", tc.in, got)
		}
	}
}

// TestFixedLength pins valueLengthIfFixed for every native type, as read in
// Cassandra's sources: only the types that override it are fixed.
func TestFixedLength(t *testing.T) {
	want := map[Kind]int{
		Ascii: -1, BigInt: 8, Blob: -1, Boolean: 1, Counter: -1, Date: -1,
		Decimal: -1, Double: 8, Duration: -1, Float: 4, Inet: -1, Int: 4,
		SmallInt: -1, Text: -1, Time: -1, Timestamp: 8, TimeUUID: 16,
		TinyInt: -1, UUID: 16, VarInt: -1, Empty: 0,
	}
	for k := Ascii; k <= Empty; k++ {
		w, ok := want[k]
		if !ok {
			t.Fatalf("no expectation for %v", k)
		}
		for _, in := range []string{k.Class(), k.shortClass(), P + "ReversedType(" + k.Class() + ")"} {
			ty, err := Parse(in)
			if err != nil {
				t.Fatalf("Parse(%q): %v", in, err)
			}
			if ty.Kind != k || ty.FixedLength() != w || ty.IsFixedLength() != (w >= 0) {
				t.Errorf("Parse(%q) = kind %v fixed %d, want %v %d", in, ty.Kind, ty.FixedLength(), k, w)
			}
		}
	}
}

func TestParseExamples(t *testing.T) {
	tests := []struct {
		in, cql, marshal string // marshal "" means: same as in
		fixed            int
		check            func(*Type) bool
	}{
		{in: "Int32Type", cql: "int", marshal: P + "Int32Type", fixed: 4},
		{in: "  " + P + "UTF8Type \n", cql: "text", marshal: P + "UTF8Type", fixed: -1},
		{in: P + "DateType", cql: "timestamp", marshal: P + "TimestampType", fixed: 8},
		{in: P + "EmptyType", cql: "empty", fixed: 0},
		{in: P + "ReversedType(" + P + "LongType)", cql: "bigint", fixed: 8,
			check: func(t *Type) bool { return t.Reversed && t.Kind == BigInt }},
		// Legacy "reversed" parameter on a native type.
		{in: P + "Int32Type(reversed=true)", cql: "int", marshal: P + "ReversedType(" + P + "Int32Type)", fixed: 4,
			check: func(t *Type) bool { return t.Reversed }},
		{in: P + "Int32Type(reversed=false)", cql: "int", marshal: P + "Int32Type", fixed: 4,
			check: func(t *Type) bool { return !t.Reversed }},
		{in: P + "VectorType(" + P + "FloatType,3)", cql: "vector<float, 3>",
			marshal: P + "VectorType(" + P + "FloatType , 3)", fixed: 12,
			check: func(t *Type) bool { return t.Kind == Vector && t.Dim == 3 && t.Frozen && t.Elems[0].Kind == Float }},
		{in: P + "VectorType(" + P + "DoubleType , 1536)", cql: "vector<double, 1536>", fixed: 8 * 1536},
		{in: P + "VectorType(" + P + "UUIDType , 2)", cql: "vector<uuid, 2>", fixed: 32},
		// Variable-width elements make the vector variable-width.
		{in: P + "VectorType(" + P + "UTF8Type , 2)", cql: "vector<text, 2>", fixed: -1},
		{in: P + "VectorType(" + P + "ShortType , 2)", cql: "vector<smallint, 2>", fixed: -1},
		// VectorType freezes its element.
		{in: P + "VectorType(" + P + "ListType(" + P + "Int32Type) , 2)", cql: "vector<frozen<list<int>>, 2>",
			marshal: P + "VectorType(" + P + "FrozenType(" + P + "ListType(" + P + "Int32Type)) , 2)", fixed: -1},
		{in: P + "ReversedType(" + P + "VectorType(" + P + "FloatType , 2))", cql: "vector<float, 2>", fixed: 8},
		{in: P + "FrozenType(" + P + "ListType(" + P + "Int32Type))", cql: "frozen<list<int>>", fixed: -1,
			check: func(t *Type) bool { return t.Frozen && !t.IsMultiCell() }},
		{in: P + "ListType(" + P + "Int32Type)", cql: "list<int>", fixed: -1,
			check: func(t *Type) bool { return !t.Frozen && t.IsMultiCell() }},
		{in: P + "MapType(" + P + "UTF8Type," + P + "Int32Type)", cql: "map<text, int>", fixed: -1},
		{in: P + "MapType( " + P + "UTF8Type , " + P + "Int32Type )", cql: "map<text, int>",
			marshal: P + "MapType(" + P + "UTF8Type," + P + "Int32Type)", fixed: -1},
		// A frozen type written inside a frozen one: the inner FrozenType
		// is implied and Cassandra omits it.
		{in: P + "FrozenType(" + P + "ListType(" + P + "FrozenType(" + P + "SetType(" + P + "Int32Type))))",
			cql: "frozen<list<frozen<set<int>>>>", marshal: P + "FrozenType(" + P + "ListType(" + P + "SetType(" + P + "Int32Type)))", fixed: -1},
		{in: P + "ReversedType(" + P + "FrozenType(" + P + "ListType(" + P + "Int32Type)))", cql: "frozen<list<int>>", fixed: -1,
			check: func(t *Type) bool { return t.Reversed && t.Frozen }},
		{in: P + "FrozenType(" + P + "ReversedType(" + P + "ListType(" + P + "Int32Type)))", cql: "frozen<list<int>>",
			marshal: P + "ReversedType(" + P + "FrozenType(" + P + "ListType(" + P + "Int32Type)))", fixed: -1},
		// Pre-5.0 non-frozen UDT: field types are written without
		// FrozenType but are frozen all the same.
		{in: P + "UserType(ks,4d7954797065,6c:" + P + "ListType(" + P + "Int32Type))", cql: `"MyType"`,
			marshal: P + "UserType(ks,4d7954797065,6c:" + P + "FrozenType(" + P + "ListType(" + P + "Int32Type)))", fixed: -1,
			check: func(t *Type) bool {
				return t.Kind == UDT && !t.Frozen && t.IsMultiCell() && t.Keyspace == "ks" && t.Name == "MyType" &&
					len(t.FieldNames) == 1 && t.FieldNames[0] == "l" && t.Elems[0].Frozen
			}},
		{in: P + "UserType(ks,6e6f6669656c6473)", cql: "nofields", fixed: -1},
		{in: P + "TupleType(" + P + "Int32Type)", cql: "frozen<tuple<int>>", fixed: -1},
		{in: P + "CompositeType(" + P + "Int32Type," + P + "ReversedType(" + P + "UTF8Type))",
			cql: "'" + P + "CompositeType(" + P + "Int32Type," + P + "ReversedType(" + P + "UTF8Type))'", fixed: -1,
			check: func(t *Type) bool { return t.Kind == Composite && t.Elems[1].Reversed }},
		// Cassandra writes an empty component list as "()".
		{in: P + "CompositeType", cql: "'" + P + "CompositeType()'", marshal: P + "CompositeType()", fixed: -1},
		{in: P + "DynamicCompositeType(a=>" + P + "AsciiType,b=>" + P + "BytesType)",
			cql: "'" + P + "DynamicCompositeType(a=>" + P + "AsciiType,b=>" + P + "BytesType)'", fixed: -1,
			check: func(t *Type) bool { return string(t.Aliases) == "ab" && t.Elems[1].Kind == Blob }},
		{in: P + "DynamicCompositeType", cql: "'" + P + "DynamicCompositeType'", fixed: -1},
		{in: P + "PartitionerDefinedOrder(org.apache.cassandra.dht.Murmur3Partitioner:" + P + "Int32Type)",
			cql: "'" + P + "PartitionerDefinedOrder(org.apache.cassandra.dht.Murmur3Partitioner:" + P + "Int32Type)'", fixed: -1,
			check: func(t *Type) bool {
				return t.Partitioner == "org.apache.cassandra.dht.Murmur3Partitioner" && t.Elems[0].Kind == Int
			}},
	}
	for _, tc := range tests {
		ty, err := Parse(tc.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.in, err)
			continue
		}
		want := tc.marshal
		if want == "" {
			want = tc.in
		}
		if got := ty.Marshal(); got != want {
			t.Errorf("Parse(%q).Marshal() = %q, want %q", tc.in, got, want)
		}
		if got := ty.String(); got != tc.cql {
			t.Errorf("Parse(%q).String() = %q, want %q", tc.in, got, tc.cql)
		}
		if got := ty.FixedLength(); got != tc.fixed {
			t.Errorf("Parse(%q).FixedLength() = %d, want %d", tc.in, got, tc.fixed)
		}
		if tc.check != nil && !tc.check(ty) {
			t.Errorf("Parse(%q) = %+v: check failed", tc.in, ty)
		}
		checkReparse(t, tc.in, ty)
	}
}

func TestParseErrors(t *testing.T) {
	deep := strings.Repeat(P+"FrozenType(", maxDepth+1) + P + "Int32Type" + strings.Repeat(")", maxDepth+1)
	tests := []struct {
		in      string
		unknown bool
		msg     string // substring of the error
	}{
		{in: P + "Foo", unknown: true, msg: "unknown marshal type " + P + "Foo"},
		{in: P + "ListType(" + P + "Foo)", unknown: true, msg: "unknown marshal type " + P + "Foo at char 41"},
		{in: "org.apache.cassandra.dht.Murmur3Partitioner", unknown: true, msg: "unknown marshal type org.apache.cassandra.dht.Murmur3Partitioner"},
		{in: P + "LexicalUUIDType", unknown: true, msg: "unknown marshal type"},
		{in: "", msg: "expected a type name, found end of string at char 0"},
		{in: "(", msg: "expected a type name"},
		{in: P + "Int32Type)", msg: "after the type"},
		{in: P + "Int32Type " + P + "UTF8Type", msg: "after the type"},
		{in: P + "ListType", msg: "needs type parameters"},
		{in: P + "ListType(", msg: "expected a type name, found end of string"},
		{in: P + "ListType(" + P + "Int32Type", msg: "unexpected end of string"},
		{in: P + "ListType(" + P + "Int32Type;", msg: "unexpected ';'"},
		{in: P + "ListType()", msg: "takes exactly 1 type parameters, got 0"},
		{in: P + "ListType(" + P + "Int32Type," + P + "Int32Type)", msg: "takes exactly 1"},
		{in: P + "MapType(" + P + "Int32Type)", msg: "takes exactly 2"},
		{in: P + "ListType(," + P + "Int32Type)", msg: "expected a type name"},
		{in: P + "FrozenType", msg: "needs one type parameter"},
		{in: P + "FrozenType(" + P + "Int32Type," + P + "Int32Type)", msg: "takes exactly 1"},
		{in: P + "ReversedType(" + P + "ReversedType(" + P + "Int32Type))", msg: "ReversedType of a reversed type"},
		{in: P + "VectorType(" + P + "FloatType , 0)", msg: `bad vector dimension "0"`},
		{in: P + "VectorType(" + P + "FloatType , -2)", msg: "bad vector dimension"},
		{in: P + "VectorType(" + P + "FloatType , x)", msg: "bad vector dimension"},
		{in: P + "VectorType(" + P + "FloatType , 99999999999)", msg: "bad vector dimension"},
		{in: P + "VectorType(" + P + "DoubleType , 2147483647)", msg: "too large"},
		{in: P + "VectorType(" + P + "FloatType)", msg: "expected ','"},
		{in: P + "VectorType(" + P + "FloatType , 3", msg: "expected ')'"},
		{in: P + "UserType(ks,6162)x", msg: "after the type"},
		{in: P + "UserType(ks,616)", msg: "bad hex type name"},
		{in: P + "UserType(ks,zz)", msg: "bad hex type name"},
		{in: P + "UserType(ks,6162,6c" + P + "Int32Type)", msg: "bad hex field name"},
		{in: P + "UserType(ks,6162,6c:)", msg: "expected a type name"},
		{in: P + "UserType(ks,6162,6c6c)", msg: "expected ':'"},
		{in: P + "UserType(,6162)", msg: "expected a keyspace name"},
		{in: P + "DynamicCompositeType(ab=>" + P + "Int32Type)", msg: "not a single character"},
		{in: P + "DynamicCompositeType(a=" + P + "Int32Type)", msg: `expected "=>"`},
		{in: P + "PartitionerDefinedOrder()", msg: "expected a partitioner class"},
		{in: P + "Int32Type(reversed", msg: "unexpected end of string"},
		{in: deep, msg: "nested deeper than 100 levels"},
	}
	for _, tc := range tests {
		ty, err := Parse(tc.in)
		if err == nil {
			t.Errorf("Parse(%q) = %v, want error", tc.in, ty.Marshal())
			continue
		}
		var pe *Error
		if !errors.As(err, &pe) || pe.Input != tc.in {
			t.Errorf("Parse(%q): error %T %v does not name the input", tc.in, err, err)
		}
		if !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("Parse(%q): error %q does not contain %q", tc.in, err, tc.msg)
		}
		// The message shows the input, or for a long one the part around
		// the position and the length (it may be anything from a file).
		shown := tc.in
		if len(tc.in) > maxShown {
			shown = fmt.Sprintf("(%d bytes)", len(tc.in))
		}
		if !strings.Contains(err.Error(), "at char ") || !strings.Contains(err.Error(), shown) || len(err.Error()) > 3*maxShown {
			t.Errorf("Parse(%q): error %q lacks position or input", tc.in, err)
		}
		if got := errors.Is(err, ErrUnknownType); got != tc.unknown {
			t.Errorf("Parse(%q): errors.Is(ErrUnknownType) = %v", tc.in, got)
		}
		if got := errors.Is(err, ErrSyntax); got == tc.unknown {
			t.Errorf("Parse(%q): errors.Is(ErrSyntax) = %v", tc.in, got)
		}
	}
}

func TestKindString(t *testing.T) {
	for k, want := range map[Kind]string{Int: "int", Text: "text", TinyInt: "tinyint", UDT: "udt", Vector: "vector", Kind(99): "Kind(99)", Invalid: "invalid"} {
		if got := k.String(); got != want {
			t.Errorf("Kind(%d).String() = %q, want %q", int(k), got, want)
		}
	}
	if got := Text.Class(); got != P+"UTF8Type" {
		t.Errorf("Text.Class() = %q", got)
	}
	if Invalid.Class() != "" || Kind(-1).Class() != "" {
		t.Error("Class of an invalid kind is not empty")
	}
}

// checkReparse asserts that a parsed type survives Marshal and Parse
// unchanged, and renders the same way afterwards.
func checkReparse(t *testing.T, in string, ty *Type) {
	t.Helper()
	m := ty.Marshal()
	ty2, err := Parse(m)
	if err != nil {
		t.Fatalf("Parse(%q) ok, but re-parsing its Marshal() %q: %v", in, m, err)
	}
	if !ty.Equal(ty2) {
		t.Fatalf("Parse(%q) = %+v, re-parsed from %q = %+v", in, ty, m, ty2)
	}
	if m2 := ty2.Marshal(); m2 != m {
		t.Fatalf("Marshal not stable for %q: %q then %q", in, m, m2)
	}
	if s, s2 := ty.String(), ty2.String(); s != s2 {
		t.Fatalf("String not stable for %q: %q then %q", in, s, s2)
	}
	if ty.FixedLength() != ty2.FixedLength() {
		t.Fatalf("FixedLength not stable for %q", in)
	}
}

func FuzzParse(f *testing.F) {
	for _, tc := range realTypes {
		f.Add(tc.in)
	}
	for _, s := range []string{
		"Int32Type", P + "VectorType(" + P + "ListType(" + P + "Int32Type) , 2)",
		P + "DynamicCompositeType(a=>" + P + "AsciiType,b=>" + P + "BytesType)",
		P + "PartitionerDefinedOrder(org.apache.cassandra.dht.Murmur3Partitioner:" + P + "Int32Type)",
		P + "Int32Type(reversed=true)", P + "UserType(ks,4d7954797065,6c:" + P + "ListType(" + P + "Int32Type))",
		P + "CompositeType(" + P + "Int32Type," + P + "ReversedType(" + P + "UTF8Type))",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 4096 {
			return
		}
		ty, err := Parse(s)
		if err != nil {
			var pe *Error
			if !errors.As(err, &pe) || pe.Pos < 0 || pe.Pos > len(s) {
				t.Fatalf("Parse(%q): bad error %v", s, err)
			}
			return
		}
		_ = ty.String()
		checkReparse(t, s, ty)
	})
}
