package catalog

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sstable-flight/sstable-flight/internal/safefile"

	"github.com/sstable-flight/sstable-flight/sstable/marshal"
)

const m = "org.apache.cassandra.db.marshal."

// typeSchema defines the user types the type tests refer to.
const typeSchema = `
CREATE TYPE ks.point (x double, y double);
CREATE TYPE ks."MyType" ("Name" text, p frozen<point>, tags list<text>);
CREATE TYPE ks.outer (inner frozen<"MyType">, n int);
`

// pointM is ks.point in a serialization header, not frozen.
const pointM = m + "UserType(ks,706f696e74,78:" + m + "DoubleType,79:" + m + "DoubleType)"

// myTypeM is ks."MyType": its fields are frozen whether or not CQL says so.
const myTypeM = m + "UserType(ks,4d7954797065,4e616d65:" + m + "UTF8Type,70:" + m + "FrozenType(" + pointM + "),74616773:" + m + "FrozenType(" + m + "ListType(" + m + "UTF8Type)))"

// columnType parses a one-column table of type typ in keyspace ks.
func columnType(typ string) (*marshal.Type, error) {
	tables, err := ParseCQL(typeSchema + "CREATE TABLE ks.t (k int PRIMARY KEY, v " + typ + ");")
	if err != nil {
		return nil, err
	}
	c, _ := tables[0].Column("v")
	return c.Type, nil
}

// TestCQLTypes checks CQL type text against the serialization header
// string Cassandra writes for the same column (parsed by marshal.Parse).
func TestCQLTypes(t *testing.T) {
	for _, tc := range []struct{ cql, header string }{
		{"int", m + "Int32Type"},
		{"INT", m + "Int32Type"},
		{"varchar", m + "UTF8Type"},
		{"text", m + "UTF8Type"},
		{"counter", m + "CounterColumnType"},
		{"duration", m + "DurationType"},
		{"timeuuid", m + "TimeUUIDType"},
		{"vector<float, 3>", m + "VectorType(" + m + "FloatType,3)"},
		{"vector<text, 2>", m + "VectorType(" + m + "UTF8Type,2)"},
		{"vector<frozen<point>, 2>", m + "VectorType(" + pointM + ",2)"},
		{"vector<point, 2>", m + "VectorType(" + pointM + ",2)"},
		{"list<int>", m + "ListType(" + m + "Int32Type)"},
		{"LIST<INT>", m + "ListType(" + m + "Int32Type)"},
		{"frozen<list<int>>", m + "FrozenType(" + m + "ListType(" + m + "Int32Type))"},
		{"set<frozen<tuple<int, text>>>", m + "SetType(" + m + "TupleType(" + m + "Int32Type," + m + "UTF8Type))"},
		{"map<text, frozen<list<int>>>", m + "MapType(" + m + "UTF8Type," + m + "FrozenType(" + m + "ListType(" + m + "Int32Type)))"},
		{"frozen<map<text, frozen<list<int>>>>", m + "FrozenType(" + m + "MapType(" + m + "UTF8Type," + m + "ListType(" + m + "Int32Type)))"},
		{"tuple<int, list<int>>", m + "TupleType(" + m + "Int32Type," + m + "ListType(" + m + "Int32Type))"},
		{"frozen<tuple<int, frozen<tuple<text, double>>>>", m + "TupleType(" + m + "Int32Type," + m + "TupleType(" + m + "UTF8Type," + m + "DoubleType))"},
		{"point", pointM},
		{"frozen<point>", m + "FrozenType(" + pointM + ")"},
		{"frozen<ks.point>", m + "FrozenType(" + pointM + ")"},
		{`"MyType"`, myTypeM},
		{`frozen<"MyType">`, m + "FrozenType(" + myTypeM + ")"},
		{"list<frozen<point>>", m + "ListType(" + m + "FrozenType(" + pointM + "))"},
		{"frozen<outer>", m + "FrozenType(" + m + "UserType(ks,6f75746572,696e6e6572:" + myTypeM + ",6e:" + m + "Int32Type))"},
		{"'org.apache.cassandra.db.marshal.LongType'", m + "LongType"},
		{"'org.apache.cassandra.db.marshal.DateType'", m + "TimestampType"},
	} {
		t.Run(tc.cql, func(t *testing.T) {
			got, err := columnType(tc.cql)
			if err != nil {
				t.Errorf("%s: %v", tc.cql, err)
				return
			}
			want, err := marshal.Parse(tc.header)
			if err != nil {
				t.Fatalf("%s: bad test header string: %v", tc.cql, err)
			}
			if !got.Equal(want) {
				t.Errorf("%s:\n got %s\nwant %s", tc.cql, got.Marshal(), want.Marshal())
			}
		})
	}
}

// TestParseCQLTableFeatures covers what the corpus does not: quoted
// mixed-case names, USE, comments, column masks, ALTER TABLE ADD of
// several columns and of a static one, RENAME, DROP of a list, ALTER TYPE,
// string ids, and IF NOT EXISTS.
func TestParseCQLTableFeatures(t *testing.T) {
	text := `
USE "Ks";
-- a comment; with a semicolon
/* a block
   comment */
CREATE TYPE "Addr" (street text);
CREATE TABLE IF NOT EXISTS "Mixed" (
    "Id" int, "Part2" text, c1 int, "C2" text,
    s1 int STATIC,
    v text MASKED WITH system.mask_inner(1, 2),
    "Zed" list<int>,
    a "Addr",
    PRIMARY KEY (("Id", "Part2"), c1, "C2")
) WITH CLUSTERING ORDER BY (c1 ASC, "C2" DESC)
    AND comment = 'semi;colon ''quoted'''
    AND compaction = {'class': 'SizeTieredCompactionStrategy'}
    AND ID = '0123abcd-0000-1111-2222-333344445555';
CREATE TABLE IF NOT EXISTS "Mixed" (k int PRIMARY KEY);
CREATE INDEX ON "Ks"."Mixed" (v);
ALTER TABLE "Mixed" ADD (w int, s2 text static);
ALTER TABLE "Ks"."Mixed" RENAME c1 TO c_one;
ALTER TABLE "Mixed" DROP (w, "Zed") USING TIMESTAMP 5;
ALTER TYPE "Addr" ADD zip int;
ALTER TABLE "Mixed" WITH comment = 'x';
`
	tables, err := ParseCQL(text)
	if err != nil {
		t.Fatal(err)
	}
	if len(tables) != 1 {
		t.Fatalf("%d tables", len(tables))
	}
	tab := tables[0]
	if tab.Keyspace != "Ks" || tab.Name != "Mixed" || tab.ID != "0123abcd000011112222333344445555" {
		t.Errorf("table %q.%q id %s", tab.Keyspace, tab.Name, tab.ID)
	}
	var got []string
	for _, c := range tab.Columns {
		s := c.Name + ":" + c.Kind.String()
		if c.Position >= 0 {
			s += string(rune('0' + c.Position))
		}
		if c.Desc {
			s += ":desc"
		}
		got = append(got, s)
	}
	want := "Id:partition_key0 Part2:partition_key1 c_one:clustering0 C2:clustering1:desc s1:static s2:static a:regular v:regular"
	if strings.Join(got, " ") != want {
		t.Errorf("columns\n got %s\nwant %s", strings.Join(got, " "), want)
	}
	if tab.Dropped["w"] != 5 || tab.Dropped["Zed"] != 5 || len(tab.Dropped) != 2 {
		t.Errorf("dropped %v", tab.Dropped)
	}
	a, _ := tab.Column("a")
	if a.Type.Kind != marshal.UDT || a.Type.Frozen || a.Type.Keyspace != "Ks" || a.Type.Name != "Addr" ||
		strings.Join(a.Type.FieldNames, ",") != "street,zip" {
		t.Errorf("column a: %+v", a.Type)
	}
	if c2, _ := tab.Column("C2"); !c2.Type.Reversed {
		t.Error("C2 DESC but its type is not reversed")
	}
	rt := tab.Reconcile()
	if len(rt.Clustering) != 2 || rt.Clustering[0].Reversed || !rt.Clustering[1].Reversed {
		t.Errorf("reconcile clustering %v", rt.Clustering)
	}
	if len(rt.Columns) != 4 || !rt.Columns[0].Static || !rt.Columns[1].Static || rt.Columns[2].Static {
		t.Errorf("reconcile columns %+v", rt.Columns)
	}
}

// TestSelectOrder checks Cassandra's select order of non-key columns,
// simple and complex lists merged by signed byte comparison.
func TestSelectOrder(t *testing.T) {
	simple := &marshal.Type{Kind: marshal.Int}
	complex := &marshal.Type{Kind: marshal.List, Elems: []*marshal.Type{simple}}
	cols := []Column{
		{Name: "b", Type: complex, Kind: Regular},
		{Name: "ü", Type: complex, Kind: Regular},
		{Name: "é", Type: simple, Kind: Regular},
		{Name: "a", Type: simple, Kind: Regular},
		{Name: "Z", Type: simple, Kind: Regular},
		{Name: "s1", Type: simple, Kind: Static},
		{Name: "A_static", Type: complex, Kind: Static},
		{Name: "c", Type: simple, Kind: Clustering, Position: 0},
		{Name: "k2", Type: simple, Kind: PartitionKey, Position: 1},
		{Name: "k1", Type: simple, Kind: PartitionKey, Position: 0},
	}
	sortColumns(cols)
	// Cassandra sorts names with the first byte's top bit flipped (é,
	// 0xC3 0xA9, before Z), counts a complex column whose name starts
	// with a byte >= 0x80 (ü) among the simple ones, and merges the
	// simple and complex lists by signed bytes: checked against a live
	// node by TestCassandra's SELECT * test.
	if got, want := strings.Join(names(cols), " "), "k1 k2 c A_static s1 é Z a ü b"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

// TestSchemaFileReadIsCapped is issue #15's finding 6 for schema.cql: a
// huge one (sparse, 64 GiB) fails at once without being read. Before,
// os.ReadFile allocated its size: "fatal error: runtime: out of memory".
func TestSchemaFileReadIsCapped(t *testing.T) {
	path := filepath.Join(t.TempDir(), SchemaFile)
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, 64<<30); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadCQLFile(path); !errors.Is(err, safefile.ErrTooLarge) {
		t.Fatalf("64 GiB schema.cql: %v", err)
	}
}
