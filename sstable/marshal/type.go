package marshal

import (
	"encoding/hex"
	"strconv"
	"strings"
)

// Type is one node of a parsed type string.
type Type struct {
	Kind Kind

	// Reversed is set by ReversedType: a clustering column in DESC order.
	// It changes the sort order only, never the value encoding.
	Reversed bool

	// Frozen says a list, set, map or UDT is stored as one cell holding
	// the whole serialized value rather than one cell per element/field.
	// Freezing reaches everything nested in a frozen type, UDT fields and
	// tuple components and vector elements. Tuple and Vector are always
	// frozen. It is false for the other kinds, where freezing is a no-op.
	Frozen bool

	// Elems holds the type parameters: the list/set element, the map key
	// and value, the tuple/composite components, the UDT field types, the
	// vector element, the DynamicComposite alias targets, and the optional
	// partition key type of PartitionerOrder.
	Elems []*Type

	Dim int // Vector dimension, > 0

	Keyspace   string   // UDT keyspace
	Name       string   // UDT name, hex-decoded
	FieldNames []string // UDT field names, hex-decoded, parallel to Elems

	Aliases     []byte // DynamicComposite alias bytes, parallel to Elems
	Partitioner string // PartitionerOrder partitioner class
}

// FixedLength returns AbstractType.valueLengthIfFixed(): the byte width of
// every value of a fixed-width type, or -1 when values are written with an
// unsigned vint length prefix. In SSTable cells and clustering prefixes a
// fixed-width value has no prefix at all (a vector<float, 3> is 12 raw
// bytes), so a reader that gets this wrong loses its place in the file.
// Reversed types have the width of the type they reverse.
func (t *Type) FixedLength() int {
	switch {
	case t.Kind.IsNative():
		return natives[t.Kind].fixed
	case t.Kind == Vector && len(t.Elems) == 1:
		// Parse rejects a product that overflows int32.
		if w := t.Elems[0].FixedLength(); w >= 0 {
			return w * t.Dim
		}
	}
	return -1
}

// IsFixedLength reports whether FixedLength() >= 0.
func (t *Type) IsFixedLength() bool { return t.FixedLength() >= 0 }

// IsMultiCell reports whether values of t are stored as one cell per
// element or field: a collection or UDT that is not frozen.
func (t *Type) IsMultiCell() bool {
	return (t.Kind.IsCollection() || t.Kind == UDT) && !t.Frozen
}

// String renders t as a CQL type the way Cassandra's DESCRIBE and the
// drivers do: "int", "frozen<list<int>>", "map<text, int>",
// "vector<float, 3>", "frozen<tuple<int, text>>", a UDT by its name
// ("address", "frozen<address>"). Reversal is not part of a CQL type and
// is omitted. Kinds with no CQL spelling (Composite, DynamicComposite,
// PartitionerOrder) render as CQL's custom type literal: the quoted
// Marshal() string.
func (t *Type) String() string {
	var b strings.Builder
	t.writeCQL(&b)
	return b.String()
}

func (t *Type) writeCQL(b *strings.Builder) {
	k := t.Kind
	if k.IsNative() {
		b.WriteString(natives[k].cql)
		return
	}
	wrap := t.Frozen && (k.IsCollection() || k == UDT || k == Tuple)
	if wrap {
		b.WriteString("frozen<")
	}
	switch k {
	case List, Set, Map, Tuple:
		b.WriteString(kindNames[k])
		b.WriteByte('<')
		for i, e := range t.Elems {
			if i > 0 {
				b.WriteString(", ")
			}
			e.writeCQL(b)
		}
		b.WriteByte('>')
	case UDT:
		writeIdent(b, t.Name)
	case Vector:
		b.WriteString("vector<")
		if len(t.Elems) == 1 {
			t.Elems[0].writeCQL(b)
		}
		b.WriteString(", ")
		b.WriteString(strconv.Itoa(t.Dim))
		b.WriteByte('>')
	default:
		b.WriteByte('\'')
		t.writeMarshal(b, false)
		b.WriteByte('\'')
	}
	if wrap {
		b.WriteByte('>')
	}
}

// writeIdent writes a CQL identifier, double-quoted unless it is a plain
// lower-case one (Cassandra's ColumnIdentifier.maybeQuote, without its
// reserved-keyword check).
func writeIdent(b *strings.Builder, s string) {
	plain := s != ""
	for i := 0; i < len(s) && plain; i++ {
		c := s[i]
		plain = c >= 'a' && c <= 'z' || c == '_' || i > 0 && c >= '0' && c <= '9'
	}
	if plain {
		b.WriteString(s)
		return
	}
	b.WriteByte('"')
	b.WriteString(strings.ReplaceAll(s, `"`, `""`))
	b.WriteByte('"')
}

// Marshal renders t back as a Cassandra type string, the way Cassandra 5.0
// writes it into a serialization header: Parse(t.Marshal()) equals t, and
// for strings Cassandra wrote, t.Marshal() is the input byte for byte.
// FrozenType appears only where freezing is not already implied by an
// enclosing frozen type, tuple or frozen UDT.
func (t *Type) Marshal() string {
	var b strings.Builder
	t.writeMarshal(&b, false)
	return b.String()
}

// writeMarshal follows AbstractType.toString(ignoreFreezing): inside a
// frozen type nested types are written without FrozenType.
func (t *Type) writeMarshal(b *strings.Builder, ignoreFreezing bool) {
	if t.Reversed {
		// ReversedType.toString() prints its base with toString(), which
		// never ignores freezing.
		b.WriteString(pkg + "ReversedType(")
		u := *t
		u.Reversed = false
		u.writeMarshal(b, false)
		b.WriteByte(')')
		return
	}
	k := t.Kind
	wrap := !ignoreFreezing && t.Frozen && (k.IsCollection() || k == UDT)
	if wrap {
		b.WriteString(pkg + "FrozenType(")
	}
	b.WriteString(k.Class())
	inner := ignoreFreezing || t.Frozen
	switch k {
	case List, Set, Map:
		writeList(b, t.Elems, inner)
	case Tuple:
		// TupleType writes its components with freezing implied.
		writeList(b, t.Elems, true)
	case Composite:
		writeList(b, t.Elems, false)
	case UDT:
		b.WriteByte('(')
		b.WriteString(t.Keyspace)
		b.WriteByte(',')
		b.WriteString(hex.EncodeToString([]byte(t.Name)))
		for i, e := range t.Elems {
			b.WriteByte(',')
			if i < len(t.FieldNames) {
				b.WriteString(hex.EncodeToString([]byte(t.FieldNames[i])))
			}
			b.WriteByte(':')
			e.writeMarshal(b, inner)
		}
		b.WriteByte(')')
	case Vector:
		b.WriteByte('(')
		if len(t.Elems) == 1 {
			t.Elems[0].writeMarshal(b, ignoreFreezing)
		}
		b.WriteString(" , ")
		b.WriteString(strconv.Itoa(t.Dim))
		b.WriteByte(')')
	case DynamicComposite:
		if len(t.Elems) == 0 {
			break
		}
		b.WriteByte('(')
		for i, e := range t.Elems {
			if i > 0 {
				b.WriteByte(',')
			}
			if i < len(t.Aliases) {
				b.WriteByte(t.Aliases[i])
			}
			b.WriteString("=>")
			e.writeMarshal(b, false)
		}
		b.WriteByte(')')
	case PartitionerOrder:
		b.WriteByte('(')
		b.WriteString(t.Partitioner)
		if len(t.Elems) == 1 {
			b.WriteByte(':')
			t.Elems[0].writeMarshal(b, false)
		}
		b.WriteByte(')')
	}
	if wrap {
		b.WriteByte(')')
	}
}

func writeList(b *strings.Builder, elems []*Type, ignoreFreezing bool) {
	b.WriteByte('(')
	for i, e := range elems {
		if i > 0 {
			b.WriteByte(',')
		}
		e.writeMarshal(b, ignoreFreezing)
	}
	b.WriteByte(')')
}

// Equal reports whether t and u are the same type tree.
func (t *Type) Equal(u *Type) bool {
	if t == nil || u == nil {
		return t == u
	}
	if t.Kind != u.Kind || t.Reversed != u.Reversed || t.Frozen != u.Frozen ||
		t.Dim != u.Dim || t.Keyspace != u.Keyspace || t.Name != u.Name ||
		t.Partitioner != u.Partitioner || string(t.Aliases) != string(u.Aliases) ||
		len(t.Elems) != len(u.Elems) || len(t.FieldNames) != len(u.FieldNames) {
		return false
	}
	for i := range t.FieldNames {
		if t.FieldNames[i] != u.FieldNames[i] {
			return false
		}
	}
	for i := range t.Elems {
		if !t.Elems[i].Equal(u.Elems[i]) {
			return false
		}
	}
	return true
}
