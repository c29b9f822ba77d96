package catalog

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/sstable-flight/sstable-flight/internal/testkit/corpus"
	"github.com/sstable-flight/sstable-flight/reconcile"
	"github.com/sstable-flight/sstable-flight/sstable"
	"github.com/sstable-flight/sstable-flight/sstable/marshal"
)

// corpusTable is one corpus table with its SSTables open.
type corpusTable struct {
	mode    string
	tbl     *corpus.CorpusTable
	id      string // from the directory name
	readers []*sstable.Reader
}

// loadCorpus opens every table of every mode; it fails unless all three
// modes have at least 16 tables, so a lost corpus cannot pass silently.
func loadCorpus(t *testing.T) []corpusTable {
	t.Helper()
	var out []corpusTable
	for _, mode := range corpus.Modes {
		c, err := corpus.Load(filepath.Join("..", "..", "testdata", "corpus", mode))
		if err != nil {
			t.Fatal(err)
		}
		if len(c.Tables) < 16 {
			t.Fatalf("mode %s: %d corpus tables, want at least 16", mode, len(c.Tables))
		}
		for _, tbl := range c.Sorted() {
			n := tbl.Name
			ct := corpusTable{mode: mode, tbl: tbl, id: filepath.Base(tbl.Dir)[len(n)+1:]}
			for _, st := range tbl.SSTables {
				r, err := sstable.Open(filepath.Join(tbl.Dir, st.Prefix+"-Data.db"), sstable.Options{})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { r.Close() })
				ct.readers = append(ct.readers, r)
			}
			if len(ct.readers) == 0 {
				t.Fatalf("%s/%s: no SSTables", mode, n)
			}
			out = append(out, ct)
		}
	}
	return out
}

// headerType is the type the SSTable headers give column c, and whether
// any header has it.
func headerType(readers []*sstable.Reader, c Column) (*marshal.Type, bool) {
	r := readers[0]
	switch c.Kind {
	case PartitionKey:
		if keys := marshal.KeyTypes(r.Schema.Key); c.Position < len(keys) {
			return keys[c.Position], true
		}
		return nil, false
	case Clustering:
		if c.Position < len(r.Schema.Clustering) {
			return r.Schema.Clustering[c.Position], true
		}
		return nil, false
	}
	for _, r := range readers {
		for _, hc := range r.Schema.Columns(c.Kind == Static) {
			if hc.Name == c.Name {
				return hc.Type, true
			}
		}
	}
	return nil, false
}

var dropRE = regexp.MustCompile(`(?m)^ALTER TABLE \S+ DROP (\w+) USING TIMESTAMP (\d+);$`)

// TestParseCQLCorpus parses every corpus schema.cql and checks the table
// against what real Cassandra said: the columns of expected.json (read from
// system_schema.columns: name, CQL type, kind, position, clustering order,
// in SELECT * order) and the types in the SSTables' serialization headers.
func TestParseCQLCorpus(t *testing.T) {
	for _, ct := range loadCorpus(t) {
		t.Run(ct.mode+"/"+ct.tbl.Name, func(t *testing.T) {
			tables, err := ParseCQL(ct.tbl.Schema)
			if err != nil {
				t.Fatal(err)
			}
			if len(tables) != 1 {
				t.Fatalf("%d tables, want 1", len(tables))
			}
			tab := tables[0]
			if tab.Keyspace != "corpus" || tab.Name != ct.tbl.Name || tab.ID != ct.id || tab.Source != SourceSchemaCQL {
				t.Errorf("table %s.%s id %s source %s, want corpus.%s id %s", tab.Keyspace, tab.Name, tab.ID, tab.Source, ct.tbl.Name, ct.id)
			}
			checkAgainstExpected(t, tab, ct)
			// Dropped columns: exactly the DROP statements of the file.
			want := map[string]int64{}
			for _, m := range dropRE.FindAllStringSubmatch(ct.tbl.Schema, -1) {
				want[m[1]], _ = strconv.ParseInt(m[2], 10, 64)
			}
			if !equalDropped(tab.Dropped, want) {
				t.Errorf("dropped %v, want %v", tab.Dropped, want)
			}
			// Every column a header has is in the table or dropped.
			for _, r := range ct.readers {
				for _, hc := range append(r.Schema.Static, r.Schema.Regular...) {
					if _, ok := tab.Column(hc.Name); !ok {
						if _, dropped := tab.Dropped[hc.Name]; !dropped {
							t.Errorf("%s: header column %s is neither a column nor dropped", r.Desc.Prefix(), hc.Name)
						}
					}
				}
			}
		})
	}
}

// checkAgainstExpected compares a table with expected.json's columns and
// with the header types.
func checkAgainstExpected(t *testing.T, tab *Table, ct corpusTable) {
	t.Helper()
	exp := ct.tbl.Expected.Columns
	if len(tab.Columns) != len(exp) {
		t.Fatalf("%d columns %v, expected.json has %d", len(tab.Columns), names(tab.Columns), len(exp))
	}
	for i, c := range tab.Columns {
		e := exp[i]
		order := "none"
		if c.Kind == Clustering {
			order = map[bool]string{false: "asc", true: "desc"}[c.Desc]
		}
		got := [5]string{c.Name, c.Type.String(), c.Kind.String(), strconv.Itoa(c.Position), order}
		want := [5]string{e.Name, e.Type, e.Kind, strconv.Itoa(e.Position), e.ClusteringOrder}
		if got != want {
			t.Errorf("column %d: got %v, expected.json %v", i, got, want)
		}
		if c.Type.Reversed != c.Desc {
			t.Errorf("column %s: Reversed %v, Desc %v", c.Name, c.Type.Reversed, c.Desc)
		}
		ht, ok := headerType(ct.readers, c)
		if !ok {
			continue // a column no SSTable has written
		}
		if !c.Type.Equal(ht) {
			t.Errorf("column %s: type %s (%s), header %s", c.Name, c.Type, c.Type.Marshal(), ht.Marshal())
		}
	}
}

func names(cols []Column) []string {
	var out []string
	for _, c := range cols {
		out = append(out, c.Name)
	}
	return out
}

func equalDropped(a, b map[string]int64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// TestParseCQLDropped pins the dropped table of the oa corpus: m dropped,
// b dropped and added again, with the drop times DESCRIBE printed.
func TestParseCQLDropped(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join("..", "..", "testdata", "corpus", "oa", "corpus", "dropped-*", SchemaFile))
	if err != nil || len(dirs) != 1 {
		t.Fatalf("find oa dropped table: %v %v", dirs, err)
	}
	tables, err := ReadCQLFile(dirs[0])
	if err != nil {
		t.Fatal(err)
	}
	tab := tables[0]
	want := map[string]int64{"m": 1796060506566000, "b": 1796060506373000}
	if !equalDropped(tab.Dropped, want) {
		t.Errorf("dropped %v, want %v", tab.Dropped, want)
	}
	if _, ok := tab.Column("m"); ok {
		t.Error("dropped column m is still a column")
	}
	if c, ok := tab.Column("b"); !ok || c.Kind != Regular || c.Type.Kind != marshal.Text {
		t.Errorf("re-added column b: %+v, %v", c, ok)
	}
	if got := strings.Join(names(tab.Columns), ","); got != "id,a,b,c" {
		t.Errorf("columns %s, want id,a,b,c", got)
	}
	rt := tab.Reconcile()
	if rt.Dropped["b"] != want["b"] || rt.Dropped["m"] != want["m"] {
		t.Errorf("reconcile table dropped %v", rt.Dropped)
	}
}

// TestReconcileCorpus merges every corpus table with the reconcile.Table
// built from schema.cql and checks it yields the rows CQL returned: the
// schema carries what the reconciler needs (clustering order, columns,
// drop times hiding old cells).
func TestReconcileCorpus(t *testing.T) {
	for _, ct := range loadCorpus(t) {
		t.Run(ct.mode+"/"+ct.tbl.Name, func(t *testing.T) {
			tables, err := ParseCQL(ct.tbl.Schema)
			if err != nil {
				t.Fatal(err)
			}
			tab := tables[0]
			rt := tab.Reconcile()
			keys := len(tab.Keys())
			for i, c := range rt.Columns {
				tc := tab.Columns[keys+i]
				if c.Name != tc.Name || c.Static != (tc.Kind == Static) || c.Type != tc.Type {
					t.Errorf("reconcile column %d %+v, table column %+v", i, c, tc)
				}
			}
			m, err := reconcile.New(rt, ct.readers, reconcile.Options{Now: ct.tbl.Expected.ReadAt})
			if err != nil {
				t.Fatal(err)
			}
			rows, nonNull := 0, 0
			for m.Next() {
				rows++
				for _, v := range m.Row().Values {
					if v.Bytes != nil {
						nonNull++
					}
				}
			}
			if err := m.Err(); err != nil {
				t.Fatal(err)
			}
			want, wantNonNull := len(ct.tbl.Expected.Rows), 0
			for _, row := range ct.tbl.Expected.Rows {
				for _, c := range rt.Columns {
					if row.Values[c.Name] != nil {
						wantNonNull++
					}
				}
			}
			if rows != want || nonNull != wantNonNull {
				t.Errorf("%d rows with %d non-null values, CQL returned %d with %d", rows, nonNull, want, wantNonNull)
			}
		})
	}
}

// TestFromHeaderCorpus builds every corpus table from its headers only
// and checks the generated key names, the kinds, the clustering order and
// the types against the table from schema.cql.
func TestFromHeaderCorpus(t *testing.T) {
	for _, ct := range loadCorpus(t) {
		t.Run(ct.mode+"/"+ct.tbl.Name, func(t *testing.T) {
			tables, err := ParseCQL(ct.tbl.Schema)
			if err != nil {
				t.Fatal(err)
			}
			real := tables[0]
			h, err := FromHeader("corpus", ct.tbl.Name, ct.id, ct.readers)
			if err != nil {
				t.Fatal(err)
			}
			if h.Keyspace != "corpus" || h.Name != ct.tbl.Name || h.ID != ct.id || h.Source != SourceHeader || len(h.Dropped) != 0 {
				t.Errorf("table %s.%s id %s source %s dropped %v", h.Keyspace, h.Name, h.ID, h.Source, h.Dropped)
			}
			rk, hk := real.Keys(), h.Keys()
			if len(rk) != len(hk) {
				t.Fatalf("keys %v, schema.cql has %v", names(hk), names(rk))
			}
			parts := 0
			for i, c := range hk {
				want := "column" + strconv.Itoa(c.Position+1)
				if c.Kind == PartitionKey {
					parts++
					want = "key"
					if c.Position > 0 {
						want += strconv.Itoa(c.Position + 1)
					}
				}
				r := rk[i]
				if c.Name != want || c.Kind != r.Kind || c.Position != r.Position || c.Desc != r.Desc || !c.Type.Equal(r.Type) {
					t.Errorf("key column %d: %s %s %d desc=%v %s; want %s, like %s %s %d desc=%v %s", i,
						c.Name, c.Kind, c.Position, c.Desc, c.Type, want, r.Name, r.Kind, r.Position, r.Desc, r.Type)
				}
			}
			if parts == 0 {
				t.Error("no partition key column")
			}
			// Non-key columns: those some header has, with the same
			// kind and type; dropped ones may linger.
			for _, c := range h.Columns[len(hk):] {
				r, ok := real.Column(c.Name)
				if !ok {
					if _, dropped := real.Dropped[c.Name]; !dropped {
						t.Errorf("header column %s is unknown to schema.cql", c.Name)
					}
					continue
				}
				if c.Kind != r.Kind || c.Position != -1 || !c.Type.Equal(r.Type) {
					t.Errorf("column %s: %s %d %s, schema.cql %s %s", c.Name, c.Kind, c.Position, c.Type, r.Kind, r.Type)
				}
			}
			for _, r := range real.Columns[len(rk):] {
				if _, inHeader := headerType(ct.readers, r); inHeader {
					if _, ok := h.Column(r.Name); !ok {
						t.Errorf("column %s is in a header but not in the table", r.Name)
					}
				}
			}
		})
	}
}
