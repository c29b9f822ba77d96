package catalog

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/sstable-flight/sstable-flight/sstable/marshal"
)

// fuzzTypes is the user type registry of FuzzParseType: ks.point,
// ks."MyType" and ks.outer from typeSchema.
func fuzzTypes(t testing.TB) map[typeKey]*userType {
	toks, serr := lex(typeSchema)
	if serr != nil {
		t.Fatal(serr)
	}
	r := &cqlReader{text: typeSchema, types: map[typeKey]*userType{}, tables: map[typeKey]*tableDef{}}
	for len(toks) > 1 {
		n := 0
		for !toks[n].isSym(';') {
			n++
		}
		if err := r.statement(newParser(typeSchema, append(toks[:n:n], token{kind: tEOF, pos: toks[n].pos}))); err != nil {
			t.Fatal(err)
		}
		toks = toks[n+1:]
	}
	return r.types
}

// FuzzParseType: the CQL type parser never panics, fails only with a
// SyntaxError, and what it accepts survives two round trips: through the
// serialization header string (Marshal, marshal.Parse) and, for types CQL
// can spell, through CQL (String, parse again).
func FuzzParseType(f *testing.F) {
	for _, s := range []string{
		"int", "varchar", "counter", "vector<float, 3>", "frozen<list<int>>", "list<frozen<point>>",
		`frozen<"MyType">`, `"MyType"`, "map<text, frozen<tuple<int, boolean>>>", "frozen<outer>",
		"tuple<int, list<int>>", "vector<point, 2>", "'org.apache.cassandra.db.marshal.LongType'",
		"set<'org.apache.cassandra.db.marshal.ReversedType(org.apache.cassandra.db.marshal.Int32Type)'>",
		"frozen<ks.point>", "LIST<INT>", "vector<vector<int, 2>, 3>",
	} {
		f.Add(s)
	}
	types := fuzzTypes(f)
	f.Fuzz(func(t *testing.T, s string) {
		rt, err := parseTypeString(s, "fuzz")
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("%q: error %T %v, want *SyntaxError", s, err, err)
			}
			return
		}
		typ, err := newResolver(types).column(rt, "ks")
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("%q: resolve error %T %v, want *SyntaxError", s, err, err)
			}
			return
		}
		back, err := marshal.Parse(typ.Marshal())
		if err != nil {
			t.Fatalf("%q: marshal.Parse(%q): %v", s, typ.Marshal(), err)
		}
		if !back.Equal(typ) {
			t.Fatalf("%q: header round trip\n got %s\nwant %s", s, back.Marshal(), typ.Marshal())
		}
		if !cqlSpellable(typ) {
			return
		}
		rt2, err := parseTypeString(typ.String(), "fuzz round trip")
		if err != nil {
			t.Fatalf("%q: reparse %q: %v", s, typ.String(), err)
		}
		typ2, err := newResolver(types).column(rt2, "ks")
		if err != nil {
			t.Fatalf("%q: resolve %q: %v", s, typ.String(), err)
		}
		if !typ2.Equal(typ) {
			t.Fatalf("%q: CQL round trip through %q\n got %s\nwant %s", s, typ.String(), typ2.Marshal(), typ.Marshal())
		}
	})
}

// cqlSpellable reports whether String() renders t as CQL this parser
// reads back as t: no reversal and no kind without a CQL name.
func cqlSpellable(t *marshal.Type) bool {
	switch t.Kind {
	case marshal.Empty, marshal.Composite, marshal.DynamicComposite, marshal.PartitionerOrder:
		return false
	}
	if t.Reversed {
		return false
	}
	for _, e := range t.Elems {
		if !cqlSpellable(e) {
			return false
		}
	}
	return true
}

// FuzzParseCQL: whole schema texts never panic the parser, fail only with
// a SyntaxError, and what parses has well-formed tables.
func FuzzParseCQL(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "corpus", "oa", "corpus", "*", SchemaFile))
	for _, p := range seeds {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Add(typeSchema + "CREATE TABLE ks.t (k int, c text, s int static, v frozen<outer>, PRIMARY KEY ((k), c)) WITH CLUSTERING ORDER BY (c DESC);\nALTER TABLE ks.t DROP s USING TIMESTAMP 1;")
	f.Fuzz(func(t *testing.T, text string) {
		tables, err := ParseCQL(text)
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("error %T %v, want *SyntaxError", err, err)
			}
			return
		}
		for _, tab := range tables {
			parts, clust := 0, 0
			for _, c := range tab.Columns {
				if c.Type == nil {
					t.Fatalf("%s.%s column %s has no type", tab.Keyspace, tab.Name, c.Name)
				}
				switch c.Kind {
				case PartitionKey:
					if c.Position != parts {
						t.Fatalf("partition key column %s at position %d, want %d", c.Name, c.Position, parts)
					}
					parts++
				case Clustering:
					if c.Position != clust {
						t.Fatalf("clustering column %s at position %d, want %d", c.Name, c.Position, clust)
					}
					clust++
				default:
					if c.Position != -1 {
						t.Fatalf("column %s at position %d", c.Name, c.Position)
					}
				}
			}
			if parts == 0 {
				t.Fatalf("%s.%s has no partition key", tab.Keyspace, tab.Name)
			}
			if rt := tab.Reconcile(); len(rt.Clustering) != clust {
				t.Fatalf("reconcile clustering %d, want %d", len(rt.Clustering), clust)
			}
		}
	})
}
