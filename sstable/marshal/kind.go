package marshal

import "strconv"

// Kind is the type a Type node denotes: one constant per Cassandra native
// type, then the parameterised ones.
type Kind int

const (
	Invalid Kind = iota // the zero Kind; Parse never returns it

	Ascii     // AsciiType
	BigInt    // LongType
	Blob      // BytesType
	Boolean   // BooleanType
	Counter   // CounterColumnType
	Date      // SimpleDateType
	Decimal   // DecimalType
	Double    // DoubleType
	Duration  // DurationType
	Float     // FloatType
	Inet      // InetAddressType
	Int       // Int32Type
	SmallInt  // ShortType
	Text      // UTF8Type (CQL text and varchar)
	Time      // TimeType
	Timestamp // TimestampType, and legacy DateType
	TimeUUID  // TimeUUIDType
	TinyInt   // ByteType
	UUID      // UUIDType
	VarInt    // IntegerType
	Empty     // EmptyType

	List             // ListType: Elems[0] is the element
	Set              // SetType: Elems[0] is the element
	Map              // MapType: Elems[0] key, Elems[1] value
	Tuple            // TupleType: Elems are the components
	UDT              // UserType: Keyspace, Name, FieldNames and Elems
	Vector           // VectorType: Elems[0] element, Dim dimension
	Composite        // CompositeType: Elems are the components
	DynamicComposite // DynamicCompositeType: Aliases[i] names Elems[i]
	PartitionerOrder // PartitionerDefinedOrder: Partitioner, optional Elems[0] key type

	numKinds
)

const pkg = "org.apache.cassandra.db.marshal."

// nativeInfo describes a parameterless Cassandra type: the one home of
// these facts for every package that reads values or CQL types.
type nativeInfo struct {
	class string // class name without the package
	cql   string // CQL name
	// fixed is AbstractType.valueLengthIfFixed() as Cassandra 5.0 defines
	// it, -1 for variable. It decides cell framing, so each value was
	// checked against the class's source: only types that override
	// valueLengthIfFixed are fixed. Notably SimpleDateType, TimeType,
	// ShortType, ByteType and CounterColumnType do not override it, so their
	// values carry a vint length prefix although their payload size never
	// varies (Cassandra keeps that framing for compatibility).
	fixed int
}

var natives = [...]nativeInfo{
	Ascii:     {"AsciiType", "ascii", -1},
	BigInt:    {"LongType", "bigint", 8},
	Blob:      {"BytesType", "blob", -1},
	Boolean:   {"BooleanType", "boolean", 1},
	Counter:   {"CounterColumnType", "counter", -1},
	Date:      {"SimpleDateType", "date", -1},
	Decimal:   {"DecimalType", "decimal", -1},
	Double:    {"DoubleType", "double", 8},
	Duration:  {"DurationType", "duration", -1},
	Float:     {"FloatType", "float", 4},
	Inet:      {"InetAddressType", "inet", -1},
	Int:       {"Int32Type", "int", 4},
	SmallInt:  {"ShortType", "smallint", -1},
	Text:      {"UTF8Type", "text", -1},
	Time:      {"TimeType", "time", -1},
	Timestamp: {"TimestampType", "timestamp", 8},
	TimeUUID:  {"TimeUUIDType", "timeuuid", 16},
	TinyInt:   {"ByteType", "tinyint", -1},
	UUID:      {"UUIDType", "uuid", 16},
	VarInt:    {"IntegerType", "varint", -1},
	Empty:     {"EmptyType", "empty", 0},
}

// valueWidths is the size of every non-empty value of a native kind as
// its serializer validates it and the native protocol carries it, -1 when
// it varies. It differs from nativeInfo.fixed for the types that keep a
// length prefix: a smallint is 2 bytes behind a length. A counter is a
// long in CQL; its SSTable cell holds a counter context instead, which is
// not a value of this width.
//
// NB: a table of its own rather than a field of nativeInfo: the SSTable
// decoder reads fixed per clustering value, and a larger nativeInfo
// costs that lookup an instruction or two.
var valueWidths = [...]int8{
	Ascii: -1, BigInt: 8, Blob: -1, Boolean: 1, Counter: 8, Date: 4,
	Decimal: -1, Double: 8, Duration: -1, Float: 4, Inet: -1, Int: 4,
	SmallInt: 2, Text: -1, Time: 8, Timestamp: 8, TimeUUID: 16,
	TinyInt: 1, UUID: 16, VarInt: -1, Empty: 0,
}

// Class names of the parameterised kinds, without the package.
var paramClass = [...]string{
	List:             "ListType",
	Set:              "SetType",
	Map:              "MapType",
	Tuple:            "TupleType",
	UDT:              "UserType",
	Vector:           "VectorType",
	Composite:        "CompositeType",
	DynamicComposite: "DynamicCompositeType",
	PartitionerOrder: "PartitionerDefinedOrder",
}

var kindNames = [...]string{
	Invalid:          "invalid",
	List:             "list",
	Set:              "set",
	Map:              "map",
	Tuple:            "tuple",
	UDT:              "udt",
	Vector:           "vector",
	Composite:        "composite",
	DynamicComposite: "dynamiccomposite",
	PartitionerOrder: "partitionerorder",
}

// String returns the CQL name of a native kind ("int", "text", ...) and a
// lower-case name for the others ("list", "udt", ...).
func (k Kind) String() string {
	if k.IsNative() {
		return natives[k].cql
	}
	if k >= 0 && k < numKinds {
		return kindNames[k]
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// ValueWidth returns the size in bytes of every non-empty value of a
// native kind, as its serializer validates it and CQL carries it: 4 for
// an int or a date, 2 for a smallint, 8 for a counter's long, 0 for empty;
// -1 when the size varies (text, blob, inet, varint, decimal, duration)
// and for the parameterised kinds. It is the payload, not the framing
// (Type.FixedLength): a smallint is 2 bytes, written behind a length.
// Cassandra accepts an empty value of most kinds besides these sizes.
func (k Kind) ValueWidth() int {
	if k.IsNative() {
		return int(valueWidths[k])
	}
	return -1
}

// CQLNative returns the native kind a CQL type name denotes: "int",
// "text" and its alias "varchar", and so on, and "empty", as
// system_schema.columns spells an EmptyType column (CQL has no keyword
// for it: a CREATE TABLE names the class as a custom type). ok is false
// for every other name, among them the parameterised types' ("list") and
// user types'. Names are matched as given: CQL lower-cases unquoted
// identifiers before.
func CQLNative(name string) (k Kind, ok bool) {
	k, ok = cqlKinds[name]
	return k, ok
}

// cqlKinds maps the CQL names of the native kinds, and varchar, to them.
var cqlKinds = func() map[string]Kind {
	m := make(map[string]Kind, int(Empty)+1)
	for k := Ascii; k <= Empty; k++ {
		m[natives[k].cql] = k
	}
	m["varchar"] = Text
	return m
}()

// IsNative reports whether k is a parameterless Cassandra type.
func (k Kind) IsNative() bool { return k >= Ascii && k <= Empty }

// IsCollection reports whether k is list, set or map: the kinds that are
// stored as one cell per element unless frozen.
func (k Kind) IsCollection() bool { return k == List || k == Set || k == Map }

// Class returns the Cassandra class name of k with its package, e.g.
// "org.apache.cassandra.db.marshal.Int32Type"; "" for Invalid.
func (k Kind) Class() string {
	if c := k.shortClass(); c != "" {
		return pkg + c
	}
	return ""
}

func (k Kind) shortClass() string {
	switch {
	case k.IsNative():
		return natives[k].class
	case k >= List && k < numKinds:
		return paramClass[k]
	}
	return ""
}

// classKinds maps a class name without its package to its Kind. The
// wrappers FrozenType and ReversedType and the legacy DateType are handled
// by the parser, not here.
var classKinds = func() map[string]Kind {
	m := make(map[string]Kind, int(numKinds))
	for k := Ascii; k < numKinds; k++ {
		m[k.shortClass()] = k
	}
	return m
}()
