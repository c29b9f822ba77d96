package catalog

import (
	"fmt"
	"math"
	"strconv"

	"github.com/sstable-flight/sstable-flight/sstable/marshal"
)

// maxTypeDepth bounds type nesting and maxTypeNodes the size of one
// resolved type, so hostile input (deep nesting, or user types that each
// use the previous one twice) cannot exhaust the stack or memory. Real
// schemas nest a handful of levels and have tens of nodes.
const (
	maxTypeDepth = 100
	maxTypeNodes = 100_000
)

// rawType is a CQL type as written, before user types are resolved: user
// types may be defined after the tables that use them, so resolution
// waits until the whole text is read.
type rawType struct {
	src    *source
	pos    int
	kind   marshal.Kind // marshal.Invalid for a user type reference or a custom literal
	frozen bool         // written inside frozen<...>
	elems  []*rawType
	dim    int
	ks     string // user type reference: keyspace, "" for the table's own
	name   string // user type reference: type name
	custom string // custom type literal: a marshal class string
}

// source is the text a rawType was read from, for error positions.
type source struct {
	text, stmt string
}

func (s *source) errAt(pos int, format string, args ...any) *SyntaxError {
	return synErr(s.text, pos, s.stmt, format, args...)
}

// parseType reads one CQL type:
//
//	type := 'custom marshal class' | native | [ks .] user_type
//	      | frozen<type> | list<type> | set<type> | map<type, type>
//	      | tuple<type, ...> | vector<type, dimension>
func (p *parser) parseType(depth int) (*rawType, error) {
	t := p.peek()
	if depth > maxTypeDepth {
		return nil, p.errAt(t, "types nested deeper than %d levels", maxTypeDepth)
	}
	src := &source{p.text, p.stmt}
	rt := &rawType{src: src, pos: t.pos}
	switch t.kind {
	case tString:
		p.next()
		rt.custom = t.text
		return rt, nil
	case tIdent, tQIdent:
	default:
		return nil, p.errAt(t, "expected a type, found %s", t.describe())
	}
	if t.kind == tIdent && p.peekAt(1).isSym('<') {
		name := t.name()
		var want int // parameter count, -1 for one or more
		switch name {
		case "frozen", "list", "set":
			want = 1
		case "map":
			want = 2
		case "tuple":
			want = -1
		case "vector":
			return p.parseVector(rt, depth)
		default:
			return nil, p.errAt(t, "type %s takes no parameters", name)
		}
		p.i += 2
		for {
			e, err := p.parseType(depth + 1)
			if err != nil {
				return nil, err
			}
			rt.elems = append(rt.elems, e)
			if !p.acceptSym(',') {
				break
			}
		}
		if err := p.expectSym('>'); err != nil {
			return nil, err
		}
		if want > 0 && len(rt.elems) != want {
			return nil, p.errAt(t, "%s takes %d type parameters, got %d", name, want, len(rt.elems))
		}
		switch name {
		case "frozen":
			e := rt.elems[0]
			e.frozen = true
			return e, nil
		case "list":
			rt.kind = marshal.List
		case "set":
			rt.kind = marshal.Set
		case "map":
			rt.kind = marshal.Map
		case "tuple":
			rt.kind = marshal.Tuple
		}
		return rt, nil
	}
	// Native names come before user types', as in Cassandra's
	// CQLTypeParser; "empty" is how system_schema.columns spells an
	// EmptyType column.
	if k, ok := marshal.CQLNative(t.name()); ok && t.kind == tIdent {
		p.next()
		rt.kind = k
		return rt, nil
	}
	ks, name, _, err := p.qualifiedName("a type")
	if err != nil {
		return nil, err
	}
	rt.ks, rt.name = ks, name
	return rt, nil
}

// parseVector reads vector<type, dimension> (the "vector" token is next).
func (p *parser) parseVector(rt *rawType, depth int) (*rawType, error) {
	p.i += 2
	e, err := p.parseType(depth + 1)
	if err != nil {
		return nil, err
	}
	if err := p.expectSym(','); err != nil {
		return nil, err
	}
	d := p.next()
	n, perr := strconv.Atoi(d.text)
	if d.kind != tNumber || perr != nil || n <= 0 || n > math.MaxInt32 {
		return nil, p.errAt(d, "bad vector dimension %s: want a positive 32-bit integer", d.describe())
	}
	if err := p.expectSym('>'); err != nil {
		return nil, err
	}
	rt.kind, rt.elems, rt.dim = marshal.Vector, []*rawType{e}, n
	return rt, nil
}

// typeKey names a user type.
type typeKey struct{ ks, name string }

// userType is a CREATE TYPE (or a system_schema.types row) awaiting
// resolution.
type userType struct {
	fieldNames []string
	fieldTypes []*rawType
	// err says why the type's definition could not be read; a column
	// using it then fails with it, and only that column's table.
	err error
}

// resolver turns rawTypes into marshal.Types against a set of user types.
type resolver struct {
	types  map[typeKey]*userType
	active map[typeKey]bool // user types being resolved: a cycle is an error
	budget int
}

func newResolver(types map[typeKey]*userType) *resolver {
	return &resolver{types: types, active: map[typeKey]bool{}}
}

// column resolves the type of a column of a table in keyspace ks.
//
// Freezing follows Cassandra: frozen<...> freezes a collection or user
// type and everything inside it; tuples and vectors are always frozen;
// what a collection, tuple, vector or user type holds is a single cell and
// so always frozen, written frozen<...> or not (CQL requires the word for
// nested collections and user types, and Cassandra before 5.0 omitted it
// inside user type fields). Only a collection or user type at the top of a
// column's type, not written frozen, is multi-cell. This matches what
// marshal.Parse gives for the same column's serialization header string.
func (r *resolver) column(rt *rawType, ks string) (*marshal.Type, error) {
	r.budget = maxTypeNodes
	return r.resolve(rt, ks, 0)
}

func (r *resolver) resolve(rt *rawType, ks string, depth int) (*marshal.Type, error) {
	if r.budget--; r.budget < 0 {
		return nil, rt.src.errAt(rt.pos, "type has more than %d nodes once user types are expanded", maxTypeNodes)
	}
	if depth > maxTypeDepth {
		return nil, rt.src.errAt(rt.pos, "types nested deeper than %d levels once user types are expanded", maxTypeDepth)
	}
	switch {
	case rt.custom != "":
		t, err := marshal.Parse(rt.custom)
		if err != nil {
			return nil, rt.src.errAt(rt.pos, "bad custom type: %v", err)
		}
		if rt.frozen {
			freeze(t)
		}
		return t, nil
	case rt.kind.IsNative():
		return &marshal.Type{Kind: rt.kind}, nil
	case rt.kind == marshal.Invalid:
		return r.userType(rt, ks, depth)
	}
	t := &marshal.Type{Kind: rt.kind, Dim: rt.dim, Frozen: rt.frozen || rt.kind == marshal.Tuple || rt.kind == marshal.Vector}
	for _, re := range rt.elems {
		e, err := r.resolve(re, ks, depth+1)
		if err != nil {
			return nil, err
		}
		freeze(e)
		t.Elems = append(t.Elems, e)
	}
	if t.Kind == marshal.Vector {
		if w := t.Elems[0].FixedLength(); w > 0 && int64(w)*int64(t.Dim) > math.MaxInt32 {
			return nil, rt.src.errAt(rt.pos, "vector of %d %d-byte elements is too large", t.Dim, w)
		}
	}
	return t, nil
}

// userType expands a reference to a user type: the keyspace and name, the
// field names, and the field types, frozen.
func (r *resolver) userType(rt *rawType, ks string, depth int) (*marshal.Type, error) {
	key := typeKey{rt.ks, rt.name}
	if key.ks == "" {
		key.ks = ks
	}
	def, ok := r.types[key]
	if !ok {
		return nil, rt.src.errAt(rt.pos, "unknown type %s.%s", key.ks, key.name)
	}
	if r.active[key] {
		return nil, rt.src.errAt(rt.pos, "type %s.%s contains itself", key.ks, key.name)
	}
	if def.err != nil {
		return nil, def.err
	}
	r.active[key] = true
	defer delete(r.active, key)
	t := &marshal.Type{Kind: marshal.UDT, Keyspace: key.ks, Name: key.name, Frozen: rt.frozen}
	for i, ft := range def.fieldTypes {
		e, err := r.resolve(ft, key.ks, depth+1)
		if err != nil {
			return nil, fmt.Errorf("resolve field %s of type %s.%s: %w", def.fieldNames[i], key.ks, key.name, err)
		}
		freeze(e)
		t.FieldNames = append(t.FieldNames, def.fieldNames[i])
		t.Elems = append(t.Elems, e)
	}
	return t, nil
}

// freeze marks t and everything in it frozen, as marshal.Parse does for
// FrozenType: a frozen value is one serialized blob, so nothing inside it
// can be multi-cell.
func freeze(t *marshal.Type) {
	switch t.Kind {
	case marshal.List, marshal.Set, marshal.Map, marshal.UDT, marshal.Tuple, marshal.Vector:
		t.Frozen = true
	default:
		return
	}
	for _, e := range t.Elems {
		freeze(e)
	}
}

// parseTypeString parses a standalone CQL type, such as a
// system_schema.columns type, into a rawType. what names the string's
// origin for errors.
func parseTypeString(s, what string) (*rawType, error) {
	toks, lerr := lex(s)
	if lerr != nil {
		lerr.Statement = what
		return nil, lerr
	}
	p := &parser{text: s, toks: toks, stmt: what}
	rt, err := p.parseType(0)
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != tEOF {
		return nil, p.errAt(t, "unexpected %s after the type", t.describe())
	}
	return rt, nil
}
