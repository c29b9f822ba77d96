package catalog

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/sstable-flight/sstable-flight/internal/testkit/cassandratest"
	"github.com/sstable-flight/sstable-flight/sstable"
)

const liveKs = "catalog_test"

// liveDDL is the schema the live tests create. It is also the hand-written
// model: ParseCQL of this text must equal what Cassandra reports.
var liveDDL = []string{
	`CREATE TYPE catalog_test.point (x double, y double)`,
	`CREATE TYPE catalog_test."Place" (name text, loc frozen<point>, tags frozen<set<text>>)`,
	`CREATE TYPE catalog_test.trip ("Stops" frozen<list<frozen<"Place">>>, start frozen<point>, n int)`,
	`CREATE TABLE catalog_test.wide (
		a int, "B" text, c1 int, c2 text, c3 timeuuid,
		s1 int static, "sZ" list<text> static,
		l list<int>, s set<text>, m map<text, int>,
		fl frozen<list<int>>, fs frozen<set<int>>, fm frozen<map<int, text>>,
		tup tuple<int, text>, ntup tuple<int, tuple<text, double>>,
		vec vector<float, 3>, dur duration, vc varchar,
		place "Place", fplace frozen<"Place">, trip frozen<trip>,
		lp list<frozen<point>>, mm map<text, frozen<list<int>>>,
		PRIMARY KEY ((a, "B"), c1, c2, c3)
	) WITH CLUSTERING ORDER BY (c1 ASC, c2 DESC, c3 DESC)`,
	`CREATE TABLE catalog_test."MixedCase" ("Id" int PRIMARY KEY, "CamelCol" text, plain int)`,
	`CREATE TABLE catalog_test.counts (k text, c int, hits counter, PRIMARY KEY (k, c)) WITH CLUSTERING ORDER BY (c DESC)`,
	`CREATE TABLE catalog_test.ordering (k int, c int, a int, "é" int, b list<int>, "ü" list<int>, "Z" int, "ö" int, "Ωl" list<int>, cl list<int>, d int, s1 int static, "A_static" list<int> static, PRIMARY KEY (k, c))`,
	`CREATE TABLE catalog_test.dropped (k int PRIMARY KEY, a text, b text, m map<text, int>)`,
}

// liveRows fill every column, so that each flushed header lists them all.
var liveRows = []string{
	`INSERT INTO catalog_test.wide (a, "B", c1, c2, c3, s1, "sZ", l, s, m, fl, fs, fm, tup, ntup, vec, dur, vc, place, fplace, trip, lp, mm)
	 VALUES (1, 'x', 1, 'y', now(), 1, ['z'], [1], {'a'}, {'k': 1}, [1], {1}, {1: 'a'}, (1, 'a'), (1, ('b', 2.0)), [1.0, 2.0, 3.0], 1h, 'v',
	 {name: 'p', loc: {x: 1, y: 2}, tags: {'t'}}, {name: 'q', loc: {x: 1, y: 2}, tags: {'t'}},
	 {"Stops": [{name: 'r', loc: {x: 1, y: 2}, tags: {}}], start: {x: 0, y: 0}, n: 3}, [{x: 1, y: 1}], {'k': [1, 2]})`,
	`INSERT INTO catalog_test."MixedCase" ("Id", "CamelCol", plain) VALUES (1, 'a', 2)`,
	`UPDATE catalog_test.counts SET hits = hits + 1 WHERE k = 'a' AND c = 1`,
	`INSERT INTO catalog_test.ordering (k, c, a, "é", b, "ü", "Z", "ö", "Ωl", cl, d, s1, "A_static") VALUES (1, 1, 1, 1, [1], [2], 1, 1, [3], [4], 1, 1, [1])`,
	`INSERT INTO catalog_test.dropped (k, a, b, m) VALUES (1, 'a', 'b', {'x': 1})`,
}

// Drop times: b explicitly, m at the node's clock.
const bDropTime = 1700000000123456

// liveSetup creates the keyspace on the shared node (a fresh one each
// run), flushes an SSTable holding b and m, drops them, adds b back,
// writes again and flushes. It returns the node, a session, and m's drop
// time bounds (µs).
func liveSetup(t *testing.T) (*cassandratest.Node, *gocql.Session, [2]int64) {
	t.Helper()
	n := cassandratest.Shared(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	s, err := n.Session()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	exec := func(q string) {
		t.Helper()
		if err := s.Query(q).WithContext(ctx).Exec(); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	exec("DROP KEYSPACE IF EXISTS " + liveKs)
	exec("CREATE KEYSPACE " + liveKs + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	for _, q := range append(append([]string{}, liveDDL...), liveRows...) {
		exec(q)
	}
	if err := n.Flush(ctx, liveKs); err != nil {
		t.Fatal(err)
	}
	exec("ALTER TABLE catalog_test.dropped DROP b USING TIMESTAMP " + itoa(bDropTime))
	before := time.Now().UnixMicro()
	exec("ALTER TABLE catalog_test.dropped DROP m")
	after := time.Now().UnixMicro()
	exec("ALTER TABLE catalog_test.dropped ADD b text")
	exec("INSERT INTO catalog_test.dropped (k, a, b) VALUES (2, 'a2', 'b2')")
	if err := n.Flush(ctx, liveKs, "dropped"); err != nil {
		t.Fatal(err)
	}
	return n, s, [2]int64{before, after}
}

// TestCassandra checks FromCassandra against a real Cassandra 5.0 node:
// against the DDL parsed by ParseCQL, against hand-written expectations,
// against the node's own DESCRIBE output, against the serialization
// headers of the SSTables it flushed, and against the column order of its
// SELECT *. It fails, never skips, when Cassandra cannot be started.
func TestCassandra(t *testing.T) {
	n, s, mDrop := liveSetup(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	schema, err := FromCassandra(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	if len(schema.Version) != 36 {
		t.Errorf("schema version %q", schema.Version)
	}
	for _, tab := range schema.Tables {
		if strings.HasPrefix(tab.Keyspace, "system") {
			t.Errorf("system table %s.%s listed", tab.Keyspace, tab.Name)
		}
	}
	live := map[string]*Table{}
	for _, name := range []string{"wide", "MixedCase", "counts", "ordering", "dropped"} {
		tab, ok := schema.Lookup(liveKs, name)
		if !ok {
			t.Fatalf("table %s.%s not found", liveKs, name)
		}
		if tab.Source != SourceCassandra || len(tab.ID) != 32 {
			t.Errorf("%s: source %s id %q", name, tab.Source, tab.ID)
		}
		live[name] = tab
	}

	t.Run("hand-written model", func(t *testing.T) {
		want := map[string]string{
			"wide": `a partition_key 0 int|B partition_key 1 text|c1 clustering 0 int|c2 clustering 1 desc text|c3 clustering 2 desc timeuuid|` +
				`s1 static int|sZ static list<text>|` +
				`dur regular duration|fl regular frozen<list<int>>|fm regular frozen<map<int, text>>|fplace regular frozen<"Place">|fs regular frozen<set<int>>|` +
				`l regular list<int>|lp regular list<frozen<point>>|m regular map<text, int>|mm regular map<text, frozen<list<int>>>|` +
				`ntup regular frozen<tuple<int, frozen<tuple<text, double>>>>|place regular "Place"|s regular set<text>|trip regular frozen<trip>|` +
				`tup regular frozen<tuple<int, text>>|vc regular text|vec regular vector<float, 3>`,
			"MixedCase": `Id partition_key 0 int|CamelCol regular text|plain regular int`,
			"counts":    `k partition_key 0 text|c clustering 0 desc int|hits regular counter`,
			"ordering":  `k partition_key 0 int|c clustering 0 int|A_static static list<int>|s1 static int|é regular int|ö regular int|Z regular int|a regular int|b regular list<int>|cl regular list<int>|d regular int|ü regular list<int>|Ωl regular list<int>`,
			"dropped":   `k partition_key 0 int|a regular text|b regular text`,
		}
		for name, w := range want {
			if got := describeColumns(live[name]); got != w {
				t.Errorf("%s:\n got %s\nwant %s", name, got, w)
			}
		}
		trip, _ := live["wide"].Column("trip")
		stops := trip.Type.Elems[0]
		if trip.Type.Name != "trip" || trip.Type.Keyspace != liveKs || trip.Type.FieldNames[0] != "Stops" ||
			!stops.Frozen || stops.Elems[0].Name != "Place" || !stops.Elems[0].Frozen || stops.Elems[0].Elems[1].Name != "point" {
			t.Errorf("trip type %s not fully resolved: %+v", trip.Type.Marshal(), trip.Type)
		}
		place, _ := live["wide"].Column("place")
		if place.Type.Frozen || !place.Type.IsMultiCell() || !place.Type.Elems[1].Frozen {
			t.Errorf("place: want a multi-cell UDT with frozen fields, got %s", place.Type.Marshal())
		}
		d := live["dropped"].Dropped
		if len(d) != 2 || d["b"] != bDropTime/1000*1000 || d["m"] < mDrop[0]/1000*1000 || d["m"] > mDrop[1] || d["m"]%1000 != 0 {
			t.Errorf("dropped %v, want b at %d (ms precision) and m within %v", d, bDropTime/1000*1000, mDrop)
		}
	})

	t.Run("ParseCQL of the DDL", func(t *testing.T) {
		text := ""
		for _, q := range liveDDL {
			text += q + ";\n"
		}
		text += "ALTER TABLE catalog_test.dropped DROP b USING TIMESTAMP 1;\nALTER TABLE catalog_test.dropped DROP m USING TIMESTAMP 1;\nALTER TABLE catalog_test.dropped ADD b text;\n"
		parsed, err := ParseCQL(text)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range parsed {
			compareTables(t, p, live[p.Name], false)
		}
	})

	t.Run("DESCRIBE WITH INTERNALS", func(t *testing.T) {
		iter := s.Query("DESCRIBE KEYSPACE " + liveKs + " WITH INTERNALS").WithContext(ctx).Iter()
		var ks, typ, name, stmt string
		var text strings.Builder
		for iter.Scan(&ks, &typ, &name, &stmt) {
			text.WriteString(stmt + "\n\n")
		}
		if err := iter.Close(); err != nil {
			t.Fatal(err)
		}
		parsed, err := ParseCQL(text.String())
		if err != nil {
			t.Fatalf("%v\n%s", err, text.String())
		}
		if len(parsed) != len(live) {
			t.Errorf("DESCRIBE has %d tables, want %d", len(parsed), len(live))
		}
		for _, p := range parsed {
			compareTables(t, p, live[p.Name], true)
		}
		d, _ := (&Schema{Tables: parsed}).Lookup(liveKs, "dropped")
		// DESCRIBE prints the drop time the node holds in memory, in µs;
		// system_schema keeps milliseconds.
		t.Logf("DESCRIBE drop times %v, system_schema %v", d.Dropped, live["dropped"].Dropped)
		if d.Dropped["b"] != bDropTime {
			t.Errorf("DESCRIBE drop time of b %d, want %d", d.Dropped["b"], bDropTime)
		}
	})

	t.Run("SSTable headers", func(t *testing.T) {
		for name, tab := range live {
			dir := tableDir(t, n, name, tab.ID)
			files, _ := filepath.Glob(filepath.Join(dir, "*-Data.db"))
			if len(files) == 0 {
				t.Fatalf("%s: no SSTables in %s", name, dir)
			}
			var readers []*sstable.Reader
			for _, f := range files {
				r, err := sstable.Open(f, sstable.Options{})
				if err != nil {
					t.Fatal(err)
				}
				defer r.Close()
				readers = append(readers, r)
			}
			checked := 0
			for _, c := range tab.Columns {
				ht, ok := headerType(readers, c)
				if !ok {
					t.Errorf("%s.%s: in no header", name, c.Name)
					continue
				}
				if !c.Type.Equal(ht) {
					t.Errorf("%s.%s: type %s, header %s", name, c.Name, c.Type.Marshal(), ht.Marshal())
				}
				checked++
			}
			for _, r := range readers {
				for _, hc := range append(r.Schema.Static, r.Schema.Regular...) {
					_, isCol := tab.Column(hc.Name)
					_, dropped := tab.Dropped[hc.Name]
					if !isCol && !dropped {
						t.Errorf("%s: header column %s is neither a column nor dropped", name, hc.Name)
					}
				}
			}
			if checked != len(tab.Columns) {
				t.Errorf("%s: checked %d of %d columns", name, checked, len(tab.Columns))
			}
		}
	})

	t.Run("SELECT * order", func(t *testing.T) {
		for name, tab := range live {
			iter := s.Query(`SELECT * FROM ` + liveKs + `."` + name + `" LIMIT 1`).WithContext(ctx).Iter()
			var got []string
			for _, c := range iter.Columns() {
				got = append(got, c.Name)
			}
			if err := iter.Close(); err != nil {
				t.Fatal(err)
			}
			if strings.Join(got, " ") != strings.Join(names(tab.Columns), " ") {
				t.Errorf("%s: SELECT * gives %v, catalog %v", name, got, names(tab.Columns))
			}
		}
	})

	// Last: it changes the schema.
	t.Run("Catalog", func(t *testing.T) { testLiveCatalog(t, n, s) })
}

// testLiveCatalog checks the Catalog against the live node: Cassandra is
// preferred, a schema change is seen once CheckInterval has passed (not
// before) or at once on Refresh, and a directory Cassandra does not
// describe falls back to schema.cql or the headers.
func testLiveCatalog(t *testing.T, n *cassandratest.Node, s *gocql.Session) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	now := time.Unix(1_000_000, 0)
	c := New(Options{Session: s, CheckInterval: time.Minute, Now: func() time.Time { return now }})
	dir := tableDir(t, n, "dropped", liveTableID(t, s, "dropped"))
	get := func() *Table {
		t.Helper()
		tab, err := c.Table(ctx, liveKs, "dropped", dir, noReaders(t))
		if err != nil {
			t.Fatal(err)
		}
		if tab.Source != SourceCassandra || !strings.HasSuffix(dir, "-"+tab.ID) {
			t.Errorf("source %s id %s for %s", tab.Source, tab.ID, dir)
		}
		return tab
	}
	exec := func(q string) {
		t.Helper()
		if err := s.Query(q).WithContext(ctx).Exec(); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	first := get()
	v1 := c.Schema().Version
	exec("ALTER TABLE catalog_test.dropped ADD z int")
	if v, err := SchemaVersion(ctx, s); err != nil || v == v1 {
		t.Errorf("schema version %s after ALTER TABLE ADD, was %s (%v)", v, v1, err)
	}
	now = now.Add(59 * time.Second)
	if got := get(); got != first {
		t.Error("schema read again before CheckInterval passed")
	}
	now = now.Add(time.Second)
	if _, ok := get().Column("z"); !ok {
		t.Error("column z missing once CheckInterval passed")
	}
	if c.Schema().Version == v1 {
		t.Error("catalog still at the old schema version")
	}
	exec("ALTER TABLE catalog_test.dropped ADD z2 int")
	if err := c.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if _, ok := get().Column("z2"); !ok {
		t.Error("column z2 missing after Refresh")
	}
	if err := c.Err(); err != nil {
		t.Errorf("Err() = %v", err)
	}
	// A directory of another incarnation of the table: not Cassandra's.
	other := filepath.Join(t.TempDir(), "dropped-"+strings.Repeat("0", 32))
	if err := os.Mkdir(other, 0o755); err != nil {
		t.Fatal(err)
	}
	tab, err := c.Table(ctx, liveKs, "dropped", other, openDir(t, dir))
	if err != nil || tab.Source != SourceHeader {
		t.Errorf("other incarnation: %+v %v", tab, err)
	}
	// A corpus table: unknown to this node, or known with another id.
	udts, _ := corpusDir(t, "udts")
	tab, err = c.Table(ctx, "corpus", "udts", udts, noReaders(t))
	if err != nil || tab.Source != SourceSchemaCQL {
		t.Errorf("corpus table: %+v %v", tab, err)
	}

	// Cassandra unreachable before the first read: the other sources
	// still answer, and the failure is reported by Err.
	down, err := n.Session()
	if err != nil {
		t.Fatal(err)
	}
	down.Close()
	c = New(Options{Session: down})
	if tab, err := c.Table(ctx, liveKs, "dropped", dir, openDir(t, dir)); err != nil || tab.Source != SourceHeader {
		t.Errorf("cassandra down: %+v %v", tab, err)
	}
	if tab, err := c.Table(ctx, "corpus", "udts", udts, noReaders(t)); err != nil || tab.Source != SourceSchemaCQL {
		t.Errorf("cassandra down, schema.cql: %+v %v", tab, err)
	}
	if c.Err() == nil || c.Refresh(ctx) == nil {
		t.Error("no error from a closed session")
	}
}

// describeColumns renders columns as "name kind [position] [desc] type|...".
func describeColumns(t *Table) string {
	var parts []string
	for _, c := range t.Columns {
		s := c.Name + " " + c.Kind.String()
		if c.Position >= 0 {
			s += " " + itoa(c.Position)
		}
		if c.Desc {
			s += " desc"
		}
		parts = append(parts, s+" "+c.Type.String())
	}
	return strings.Join(parts, "|")
}

// compareTables checks that two schemas of a table agree column for
// column, types Equal; with withID also the id and the drop times (which
// a DESCRIBE text has and hand-written DDL does not).
func compareTables(t *testing.T, got, want *Table, withID bool) {
	t.Helper()
	if want == nil {
		t.Errorf("table %s.%s is not in Cassandra's schema", got.Keyspace, got.Name)
		return
	}
	if got.Keyspace != want.Keyspace || got.Name != want.Name {
		t.Errorf("table %s.%s, want %s.%s", got.Keyspace, got.Name, want.Keyspace, want.Name)
	}
	if describeColumns(got) != describeColumns(want) {
		t.Errorf("%s:\n got %s\nwant %s", got.Name, describeColumns(got), describeColumns(want))
		return
	}
	for i, c := range got.Columns {
		if !c.Type.Equal(want.Columns[i].Type) {
			t.Errorf("%s.%s: type %s, cassandra %s", got.Name, c.Name, c.Type.Marshal(), want.Columns[i].Type.Marshal())
		}
	}
	if len(got.Dropped) != len(want.Dropped) {
		t.Errorf("%s: dropped %v, cassandra %v", got.Name, got.Dropped, want.Dropped)
	}
	if !withID {
		return
	}
	if got.ID != want.ID {
		t.Errorf("%s: id %s, cassandra %s", got.Name, got.ID, want.ID)
	}
	for col, ts := range want.Dropped {
		// system_schema keeps milliseconds, DESCRIBE microseconds.
		if g, ok := got.Dropped[col]; !ok || g/1000*1000 != ts {
			t.Errorf("%s: drop time of %s %d, cassandra %d", got.Name, col, g, ts)
		}
	}
}

// tableDir is the data directory of the table with this id, which must
// exist. Directories of earlier incarnations of the table (a rerun on the
// same node dropped and recreated the keyspace; Cassandra keeps their
// directories) are left alone: the id names the current one.
func tableDir(t *testing.T, n *cassandratest.Node, name, id string) string {
	t.Helper()
	dir := filepath.Join(n.DataDir(), liveKs, name+"-"+id)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		dirs, _ := filepath.Glob(filepath.Join(n.DataDir(), liveKs, name+"-*"))
		t.Fatalf("%s: no directory named for its table id %s (%v); there are %v", name, id, err, dirs)
	}
	return dir
}

// liveTableID is the table's id as system_schema.tables holds it, in a
// directory name's spelling (no dashes).
func liveTableID(t *testing.T, s *gocql.Session, name string) string {
	t.Helper()
	var id gocql.UUID
	if err := s.Query(`SELECT id FROM system_schema.tables WHERE keyspace_name = ? AND table_name = ?`, liveKs, name).Scan(&id); err != nil {
		t.Fatalf("read the id of %s.%s: %v", liveKs, name, err)
	}
	return strings.ReplaceAll(id.String(), "-", "")
}
