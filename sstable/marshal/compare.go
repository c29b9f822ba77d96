package marshal

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"math"
	"math/big"
)

// Compare orders two serialized values of type t the way Cassandra 5.0's
// AbstractType.compare does: it returns a negative number when a sorts
// before b, zero when they are equal and a positive number otherwise.
// Clustering prefixes, row index blocks and the cell paths of non-frozen
// sets and maps (their element / key type) are sorted by it.
//
// The rules, per kind (each checked against the type's compareCustom, or
// its ComparisonType.BYTE_ORDER):
//
//   - ascii, text, blob, inet, date, time, duration: unsigned byte order,
//     a prefix first (date is an unsigned int with the epoch at 2^31 and
//     time a non-negative long, so byte order is numeric order).
//   - int, bigint, smallint, timestamp, counter: two's complement numeric
//     order (signed first byte, then unsigned bytes).
//   - tinyint: the signed byte.
//   - varint: numeric order, whatever the number of sign-extension bytes.
//   - decimal: numeric order, the scale is ignored (1.0 equals 1.00), as
//     BigDecimal.compareTo.
//   - float, double: Java's Float.compare / Double.compare: -0.0 sorts
//     before 0.0, every NaN equals every other NaN and sorts after +Inf.
//   - boolean: false (0x00) before true (any other byte).
//   - uuid (UUIDType): by version, then for version 1 by timestamp,
//     otherwise by the unsigned most significant 8 bytes, then by the
//     unsigned least significant 8 bytes.
//   - timeuuid: by timestamp (time_hi, time_mid, time_low), then by the
//     last 8 bytes compared as signed bytes (Cassandra keeps this
//     CASSANDRA-8730 quirk for compatibility).
//   - frozen list and set: element by element, then the shorter first;
//     frozen map: key then value, entry by entry, then the smaller first.
//   - tuple and frozen UDT: component by component, a null component
//     before any value; missing trailing components equal null ones.
//   - vector: element by element.
//   - CompositeType: component by component with the end-of-component
//     byte, static composites first; DynamicCompositeType: likewise, with
//     components of different types ordered by their class names.
//   - empty: every value equals every other.
//   - a Reversed type reverses the order of the type it wraps (including
//     where the empty value goes: last).
//
// The empty value (zero bytes) sorts before every other value of every
// type, except under Reversed, where it sorts after.
//
// Compare never panics. Where Cassandra would throw on a malformed value
// (a uuid that is not 16 bytes, a float shorter than 4 bytes, a truncated
// collection, tuple, vector or composite), the value is ordered
// deterministically instead: after the empty value, before every value
// that decodes, and two undecodable values by unsigned byte order. A
// timeuuid whose version is not 1 is compared as if it were one.
// Known approximations: PartitionerDefinedOrder values (internal index
// tables) are compared by unsigned bytes rather than by token, and the
// legacy DateType, which the parser folds into Timestamp, is compared as
// TimestampType (they differ only for dates before 1970, where DateType
// used byte order). A nil t compares by unsigned bytes.
func Compare(t *Type, a, b []byte) int {
	if t == nil {
		return bytes.Compare(a, b)
	}
	if t.Reversed {
		return compareBase(t, b, a)
	}
	return compareBase(t, a, b)
}

// compareEmpty handles the empty value for the types whose compareCustom
// starts with "empty sorts first". done is false when neither is empty.
func compareEmpty(a, b []byte) (c int, done bool) {
	switch {
	case len(a) == 0 && len(b) == 0:
		return 0, true
	case len(a) == 0:
		return -1, true
	case len(b) == 0:
		return 1, true
	}
	return 0, false
}

// compareMalformed orders values when at least one cannot be decoded:
// undecodable before decodable, two undecodable by bytes. Both a and b are
// non-empty here.
func compareMalformed(a []byte, okA bool, b []byte, okB bool) int {
	switch {
	case okA && !okB:
		return 1
	case !okA && okB:
		return -1
	}
	return bytes.Compare(a, b)
}

func compareBase(t *Type, a, b []byte) int {
	switch t.Kind {
	case Ascii, Text, Blob, Inet, Date, Time, Duration:
		return bytes.Compare(a, b)
	case Empty:
		return 0
	case Int, BigInt, SmallInt, Timestamp, Counter:
		if c, done := compareEmpty(a, b); done {
			return c
		}
		return compareSignedFirst(a, b)
	case TinyInt:
		if c, done := compareEmpty(a, b); done {
			return c
		}
		return cmp.Compare(int(int8(a[0])), int(int8(b[0])))
	case Boolean:
		if c, done := compareEmpty(a, b); done {
			return c
		}
		return cmpBool(a[0] != 0, b[0] != 0)
	case Float:
		if c, done := compareEmpty(a, b); done {
			return c
		}
		if len(a) < 4 || len(b) < 4 {
			return compareMalformed(a, len(a) >= 4, b, len(b) >= 4)
		}
		return compareJavaFloat(
			float64(math.Float32frombits(binary.BigEndian.Uint32(a))),
			float64(math.Float32frombits(binary.BigEndian.Uint32(b))))
	case Double:
		if c, done := compareEmpty(a, b); done {
			return c
		}
		if len(a) < 8 || len(b) < 8 {
			return compareMalformed(a, len(a) >= 8, b, len(b) >= 8)
		}
		return compareJavaFloat(
			math.Float64frombits(binary.BigEndian.Uint64(a)),
			math.Float64frombits(binary.BigEndian.Uint64(b)))
	case VarInt:
		if c, done := compareEmpty(a, b); done {
			return c
		}
		return compareVarInt(a, b)
	case Decimal:
		if c, done := compareEmpty(a, b); done {
			return c
		}
		if len(a) < 4 || len(b) < 4 {
			return compareMalformed(a, len(a) >= 4, b, len(b) >= 4)
		}
		return compareDecimal(a, b)
	case UUID:
		return compareUUID(a, b)
	case TimeUUID:
		return compareTimeUUID(a, b)
	case List, Set:
		if c, done := compareEmpty(a, b); done {
			return c
		}
		return compareListOrSet(elem(t, 0), a, b)
	case Map:
		if c, done := compareEmpty(a, b); done {
			return c
		}
		return compareMap(elem(t, 0), elem(t, 1), a, b)
	case Tuple, UDT:
		if c, done := compareEmpty(a, b); done {
			return c
		}
		return compareTuple(t.Elems, a, b)
	case Vector:
		if c, done := compareEmpty(a, b); done {
			return c
		}
		return compareVector(t, a, b)
	case Composite:
		if c, done := compareEmpty(a, b); done {
			return c
		}
		return compareComposite(t, a, b)
	case DynamicComposite:
		if c, done := compareEmpty(a, b); done {
			return c
		}
		return compareComposite(t, a, b)
	}
	// PartitionerOrder and anything unknown.
	return bytes.Compare(a, b)
}

// elem returns t.Elems[i], or nil (byte order) when the type is incomplete.
func elem(t *Type, i int) *Type {
	if i < len(t.Elems) {
		return t.Elems[i]
	}
	return nil
}

func cmpBool(x, y bool) int {
	switch {
	case x == y:
		return 0
	case x:
		return 1
	}
	return -1
}

// compareSignedFirst is LongType.compareLongs / Int32Type: the first byte
// signed, then the whole values as unsigned bytes. a and b are non-empty.
func compareSignedFirst(a, b []byte) int {
	if c := cmp.Compare(int(int8(a[0])), int(int8(b[0]))); c != 0 {
		return c
	}
	return bytes.Compare(a, b)
}

// compareJavaFloat is Java's Double.compare (Float.compare widened, which
// preserves its order): numeric, except -0.0 < 0.0 and NaN equal to
// itself and greater than everything else.
func compareJavaFloat(x, y float64) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	xn, yn := math.IsNaN(x), math.IsNaN(y)
	switch {
	case xn || yn:
		return cmpBool(xn, yn)
	case x == 0 && y == 0:
		return cmpBool(!math.Signbit(x), !math.Signbit(y))
	}
	return 0
}

// significant strips the sign-extension bytes of a big-endian two's
// complement number: the minimal encoding of the same value.
func significant(v []byte) []byte {
	for len(v) > 1 {
		if v[0] == 0x00 && v[1]&0x80 == 0 || v[0] == 0xff && v[1]&0x80 != 0 {
			v = v[1:]
			continue
		}
		break
	}
	return v
}

// compareVarInt orders two non-empty big-endian two's complement numbers
// of any length numerically (IntegerType.compareIntegers).
func compareVarInt(a, b []byte) int {
	a, b = significant(a), significant(b)
	negA, negB := a[0]&0x80 != 0, b[0]&0x80 != 0
	if negA != negB {
		return cmpBool(!negA, !negB)
	}
	if len(a) != len(b) {
		// Same sign, minimal encodings: more bytes, larger magnitude.
		c := cmp.Compare(len(a), len(b))
		if negA {
			c = -c
		}
		return c
	}
	return compareSignedFirst(a, b)
}

// compareDecimal orders two DecimalType values (int32 scale, varint
// unscaled value; value = unscaled * 10^-scale) numerically.
func compareDecimal(a, b []byte) int {
	sa := int64(int32(binary.BigEndian.Uint32(a)))
	sb := int64(int32(binary.BigEndian.Uint32(b)))
	ua, ub := DecodeVarInt(a[4:]), DecodeVarInt(b[4:])
	if c := cmp.Compare(ua.Sign(), ub.Sign()); c != 0 || ua.Sign() == 0 {
		return c
	}
	neg := ua.Sign() < 0
	ma, mb := new(big.Int).Abs(ua), new(big.Int).Abs(ub)
	// Compare the adjusted exponents (position of the leading digit)
	// first, so a huge scale difference never needs 10^scale.
	da, db := int64(len(ma.String())), int64(len(mb.String()))
	c := cmp.Compare(da-sa, db-sb)
	if c == 0 {
		// Same leading-digit position: |sa - sb| = |da - db|, bounded by
		// the digit counts, so rescaling is cheap.
		if sa < sb {
			ma.Mul(ma, new(big.Int).Exp(big.NewInt(10), big.NewInt(sb-sa), nil))
		} else if sb < sa {
			mb.Mul(mb, new(big.Int).Exp(big.NewInt(10), big.NewInt(sa-sb), nil))
		}
		c = ma.Cmp(mb)
	}
	if neg {
		c = -c
	}
	return c
}

// reorderTimestamp moves a version 1 UUID's most significant long into
// timestamp order: time_hi_and_version, time_mid, time_low.
func reorderTimestamp(msb uint64) uint64 {
	return msb<<48 | (msb<<16)&0xffff00000000 | msb>>32
}

// compareUUID is UUIDType.compareCustom.
func compareUUID(a, b []byte) int {
	okA, okB := len(a) == 16, len(b) == 16
	if !okA || !okB {
		if c, done := compareEmpty(a, b); done {
			return c
		}
		return compareMalformed(a, okA, b, okB)
	}
	msbA, msbB := binary.BigEndian.Uint64(a), binary.BigEndian.Uint64(b)
	va, vb := int(msbA>>12&0xf), int(msbB>>12&0xf)
	if va != vb {
		return cmp.Compare(va, vb)
	}
	var c int
	if va == 1 {
		c = cmp.Compare(int64(reorderTimestamp(msbA)), int64(reorderTimestamp(msbB)))
	} else {
		c = cmp.Compare(msbA, msbB)
	}
	if c != 0 {
		return c
	}
	return cmp.Compare(binary.BigEndian.Uint64(a[8:]), binary.BigEndian.Uint64(b[8:]))
}

// compareTimeUUID is TimeUUIDType's compareCustom: timestamp order, then
// the last 8 bytes as signed bytes.
func compareTimeUUID(a, b []byte) int {
	okA, okB := len(a) == 16, len(b) == 16
	if !okA || !okB {
		if c, done := compareEmpty(a, b); done {
			return c
		}
		return compareMalformed(a, okA, b, okB)
	}
	ta := int64(reorderTimestamp(binary.BigEndian.Uint64(a)))
	tb := int64(reorderTimestamp(binary.BigEndian.Uint64(b)))
	if c := cmp.Compare(ta, tb); c != 0 {
		return c
	}
	for i := 8; i < 16; i++ {
		if c := cmp.Compare(int(int8(a[i])), int(int8(b[i]))); c != 0 {
			return c
		}
	}
	return 0
}

// compareNullable orders two optional element values: null (nil) before
// any value, two nulls equal. Cassandra never writes nulls inside frozen
// collections; this keeps the order total if one appears.
func compareNullable(t *Type, a, b []byte) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return -1
	case b == nil:
		return 1
	}
	return Compare(t, a, b)
}

// wellFramed reports whether e reads to its end without a fault. It walks
// a copy: the caller's e is still unread.
func wellFramed(e Elements) bool {
	for e.More() {
		if _, ok := e.Next(); !ok {
			return false
		}
	}
	return e.End()
}

// compareListOrSet is CollectionType.compareListOrSet for frozen lists
// and sets: element-wise, then the smaller collection first.
func compareListOrSet(et *Type, a, b []byte) int {
	ea, eb := CollectionElements(a, 1), CollectionElements(b, 1)
	okA, okB := wellFramed(ea), wellFramed(eb)
	if !okA || !okB {
		return compareMalformed(a, okA, b, okB)
	}
	for ea.More() && eb.More() {
		x, _ := ea.Next()
		y, _ := eb.Next()
		if c := compareNullable(et, x, y); c != 0 {
			return c
		}
	}
	return cmp.Compare(ea.Len(), eb.Len())
}

// compareMap is MapType.compareMaps for frozen maps: key, then value,
// entry by entry, then the smaller map first.
func compareMap(kt, vt *Type, a, b []byte) int {
	ea, eb := CollectionElements(a, 2), CollectionElements(b, 2)
	okA, okB := wellFramed(ea), wellFramed(eb)
	if !okA || !okB {
		return compareMalformed(a, okA, b, okB)
	}
	for ea.More() && eb.More() {
		xk, _ := ea.Next()
		yk, _ := eb.Next()
		if c := compareNullable(kt, xk, yk); c != 0 {
			return c
		}
		xv, _ := ea.Next()
		yv, _ := eb.Next()
		if c := compareNullable(vt, xv, yv); c != 0 {
			return c
		}
	}
	return cmp.Compare(ea.Len(), eb.Len())
}

// restNull reports whether every value e has left is null; true when none
// is left.
func restNull(e *Elements) bool {
	for e.More() {
		if v, _ := e.Next(); v != nil {
			return false
		}
	}
	return true
}

// compareTuple is TupleType.compareCustom (UserType inherits it): the
// declared components in order, a null before any value; then, when one
// value ran out of components, it equals the other if all the other's
// remaining components are null and sorts first otherwise.
func compareTuple(types []*Type, a, b []byte) int {
	ea, eb := FieldElements(a), FieldElements(b)
	okA, okB := wellFramed(ea), wellFramed(eb)
	if !okA || !okB {
		return compareMalformed(a, okA, b, okB)
	}
	for i := 0; ea.More() && eb.More() && i < len(types); i++ {
		x, _ := ea.Next()
		y, _ := eb.Next()
		switch {
		case x == nil && y == nil:
			continue
		case x == nil:
			return -1
		case y == nil:
			return 1
		}
		if c := Compare(types[i], x, y); c != 0 {
			return c
		}
	}
	restA, restB := restNull(&ea), restNull(&eb)
	switch {
	case restA && restB:
		return 0
	case restA: // includes a having run out of components
		return -1
	case restB:
		return 1
	}
	// Both carry non-null components beyond the declared types: invalid
	// values (Cassandra's split rejects them); order them by bytes.
	return bytes.Compare(a, b)
}

// compareVector is VectorType's serializer compareCustom: element-wise
// over the dimension.
func compareVector(t *Type, a, b []byte) int {
	et := elem(t, 0)
	if et == nil {
		return compareMalformed(a, false, b, false)
	}
	w := et.FixedLength()
	ea, eb := VectorElements(a, t.Dim, w), VectorElements(b, t.Dim, w)
	okA, okB := wellFramed(ea), wellFramed(eb)
	if !okA || !okB {
		return compareMalformed(a, okA, b, okB)
	}
	for ea.More() {
		x, _ := ea.Next()
		y, _ := eb.Next()
		if c := Compare(et, x, y); c != 0 {
			return c
		}
	}
	return 0
}

// compositeComponent is one component of a (Dynamic)CompositeType value.
type compositeComponent struct {
	typ   *Type
	name  string // class name of typ, for DynamicCompositeType
	value []byte
	eoc   int8 // end-of-component byte
}

// compositeComponents splits a composite value: per component, for
// DynamicCompositeType a u16 header (alias byte when its top bit is set,
// else the length of a class name that follows), then u16 length, value
// and the end-of-component byte.
func compositeComponents(t *Type, v []byte) (static bool, comps []compositeComponent, ok bool) {
	dynamic := t.Kind == DynamicComposite
	if !dynamic && len(v) >= 2 && v[0] == 0xff && v[1] == 0xff {
		static, v = true, v[2:]
	}
	for i := 0; len(v) > 0; i++ {
		var c compositeComponent
		if dynamic {
			if len(v) < 2 {
				return false, nil, false
			}
			h := int(binary.BigEndian.Uint16(v))
			v = v[2:]
			if h&0x8000 != 0 {
				c.typ = aliasType(t, byte(h))
			} else {
				if h > len(v) {
					return false, nil, false
				}
				c.typ = dynamicType(string(v[:h]))
				if c.typ == nil {
					c.name = string(v[:h])
				}
				v = v[h:]
			}
		} else {
			c.typ = elem(t, i)
		}
		value, eoc, rest, err := ReadComponent(v)
		if err != nil {
			return false, nil, false
		}
		c.value, c.eoc, v = value, int8(eoc), rest
		comps = append(comps, c)
	}
	return static, comps, true
}

// aliasType resolves a DynamicCompositeType alias byte; nil (byte order)
// when the type declares no such alias.
func aliasType(t *Type, alias byte) *Type {
	for i, a := range t.Aliases {
		if a == alias && i < len(t.Elems) {
			return t.Elems[i]
		}
	}
	return nil
}

// dynamicType parses a class name found in a DynamicCompositeType value,
// with or without the package; nil when it does not parse.
func dynamicType(name string) *Type {
	if t, err := Parse(name); err == nil {
		return t
	}
	if t, err := Parse(pkg + name); err == nil {
		return t
	}
	return nil
}

// className is the class of a component's comparator: ReversedType for a
// reversed one, the unparsed name for an unknown one.
func (c *compositeComponent) className(unwrapReversed bool) string {
	switch {
	case c.typ == nil && c.name != "":
		return c.name
	case c.typ == nil:
		return pkg + natives[Blob].class
	case c.typ.Reversed && !unwrapReversed:
		return pkg + "ReversedType"
	}
	return c.typ.Kind.Class()
}

func simpleName(class string) string {
	for i := len(class) - 1; i >= 0; i-- {
		if class[i] == '.' {
			return class[i+1:]
		}
	}
	return class
}

// compareComposite is AbstractCompositeType.compareCustom: a static
// composite first, then component by component (for DynamicCompositeType,
// components of different comparator classes by class name), then the
// end-of-component bytes, then the one with fewer components first.
// Cassandra's loop tests the right value's remaining bytes at the left
// value's offset; this compares each value's own remainder.
func compareComposite(t *Type, a, b []byte) int {
	sa, ca, okA := compositeComponents(t, a)
	sb, cb, okB := compositeComponents(t, b)
	if !okA || !okB {
		return compareMalformed(a, okA, b, okB)
	}
	if sa != sb {
		return cmpBool(!sa, !sb)
	}
	for i := 0; i < len(ca) && i < len(cb); i++ {
		x, y := &ca[i], &cb[i]
		if t.Kind == DynamicComposite {
			both := x.typ != nil && y.typ != nil && x.typ.Reversed && y.typ.Reversed
			nx, ny := x.className(both), y.className(both)
			if nx != ny {
				if c := cmpString(simpleName(nx), simpleName(ny)); c != 0 {
					return c
				}
				if c := cmpString(nx, ny); c != 0 {
					return c
				}
			}
		}
		if c := Compare(x.typ, x.value, y.value); c != 0 {
			return c
		}
		if x.eoc != y.eoc {
			return cmp.Compare(int(x.eoc), int(y.eoc))
		}
	}
	return cmp.Compare(len(ca), len(cb))
}

// cmpString is Java's String.compareTo for the ASCII class names here.
func cmpString(x, y string) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}
