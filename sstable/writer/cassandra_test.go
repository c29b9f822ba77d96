package writer_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/sstable-flight/sstable-flight/internal/testkit/cassandratest"
	"github.com/sstable-flight/sstable-flight/internal/testkit/corpus"
	"github.com/sstable-flight/sstable-flight/sstable"
	"github.com/sstable-flight/sstable-flight/sstable/writer"
)

// TestMain stops the Cassandra node the oracle tests started, if any.
func TestMain(m *testing.M) { os.Exit(cassandratest.RunMain(m)) }

// oracleAll runs TestCassandraReadsRewrite on every oa corpus table;
// by default it runs on oracleTables, as each SSTable costs two JVM runs
// of Cassandra's tools (about 3 s each on two cores) inside make test.
var oracleAll = flag.Bool("oracle-all", false, "TestCassandraReadsRewrite: every oa corpus table, not only oracleTables")

// oracleTables are the tables whose SSTables hold what the writer has
// to get right apart from the rest: every type, complex columns,
// deletions of every kind and markers, a promoted index. (Counters and
// TTLs, in -oracle-all's run, are also in TestCorpusRoundTrip's.)
var oracleTables = map[string]bool{
	"all_types": true, "collections": true, "deletions": true, "wide": true,
}

// TestCassandraReadsRewrite rewrites the oa corpus SSTables into a
// directory and has Cassandra 5.0 read them: its sstabledump and
// sstablemetadata of each rewrite equal those of the original (committed
// with the corpus), and for the tables of importTables, `nodetool import`
// of the rewrites into a fresh table (which verifies them) gives the
// same SELECT * as importing the originals into another. Every table
// with -oracle-all; oracleTables by default.
func TestCassandraReadsRewrite(t *testing.T) {
	n := cassandratest.Shared(t)
	mc, err := corpus.Load(filepath.Join(corpus.Root(), "oa"))
	must(t, err)
	for _, tbl := range mc.Sorted() {
		if !*oracleAll && !oracleTables[tbl.Name] {
			continue
		}
		t.Run(tbl.Name, func(t *testing.T) {
			dir := t.TempDir()
			for i, st := range tbl.SSTables {
				src, err := sstable.Open(filepath.Join(tbl.Dir, st.Prefix+"-Data.db"), sstable.Options{})
				must(t, err)
				w := rewrite(t, src, writer.Dir(dir), writer.Options{ID: fmt.Sprint(i + 1)})
				src.Close()
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
				out, err := n.SSTableDump(ctx, filepath.Join(dir, w.DataFile()))
				cancel()
				must(t, err)
				want, err := os.ReadFile(filepath.Join(tbl.Dir, "sstabledump", st.Prefix+".json"))
				must(t, err)
				equal(t, decodeJSON(t, want), decodeJSON(t, out), "sstabledump of the rewrite of "+st.Prefix)
				ctx, cancel = context.WithTimeout(context.Background(), 2*time.Minute)
				meta, err := n.SSTableMetadata(ctx, filepath.Join(dir, w.DataFile()))
				cancel()
				must(t, err)
				wantMeta, err := os.ReadFile(filepath.Join(tbl.Dir, "sstablemetadata", st.Prefix+".txt"))
				must(t, err)
				equal(t, metadataLines(string(wantMeta)), metadataLines(string(meta)), "sstablemetadata of the rewrite of "+st.Prefix)
			}
			if importTables[tbl.Name] {
				compareImports(t, n, tbl, dir)
			}
		})
	}
}

// importTables are the corpus tables whose schema a fresh table can take
// as is (not the one with dropped columns, whose SSTables hold columns
// the schema no longer has).
var importTables = map[string]bool{
	"all_types": true, "clustered": true, "collections": true, "deletions": true,
	"timestamps": true, "ttls": true, "udts": true, "wide": true, "counters": true,
}

// metadataLines are the lines of sstablemetadata's report that the
// rewrite must share with the original's: all but where the data came
// from (file, host, commit log), its compression, and what depends on
// the time of the run (droppable tombstones).
func metadataLines(report string) []string {
	skip := []string{"SSTable:", "Compressor:", "Compression ratio:", "Originating host id:", "Replay positions covered:",
		"Estimated droppable tombstones:"}
	var out []string
	for _, l := range strings.Split(report, "\n") {
		if !slices.ContainsFunc(skip, func(p string) bool { return strings.HasPrefix(l, p) }) {
			out = append(out, l)
		}
	}
	return out
}

func decodeJSON(t *testing.T, b []byte) any {
	t.Helper()
	var v any
	must(t, json.Unmarshal(b, &v))
	return v
}

var tableID = regexp.MustCompile(`\) WITH ID = [0-9a-f-]+\s+AND `)

// compareImports imports the original SSTables into one fresh table and
// the rewrites (in dir) into another, and compares SELECT * of both.
func compareImports(t *testing.T, n *cassandratest.Node, tbl *corpus.CorpusTable, dir string) {
	ddl := func(ks string) []string {
		schema := tableID.ReplaceAllString(tbl.Schema, ") WITH ")
		schema = strings.ReplaceAll(schema, "corpus.", ks+".")
		var out []string
		for _, s := range strings.Split(schema, ";") {
			if s = strings.TrimSpace(s); s != "" && !strings.HasPrefix(s, "CREATE KEYSPACE") {
				out = append(out, s)
			}
		}
		return out
	}
	orig := t.TempDir()
	for _, st := range tbl.SSTables {
		for c := range st.Components {
			corpus.CopyFiles(t, orig, filepath.Join(tbl.Dir, st.Prefix+"-"+c))
		}
	}
	var rows [2][]string
	for i, src := range []string{orig, dir} {
		ks := fmt.Sprintf("writer_import_%d", i)
		s := n.FreshKeyspace(t, ks, ddl(ks)...)
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		out, err := n.NodeTool(ctx, "import", ks, tbl.Name, src)
		cancel()
		if err != nil {
			t.Fatalf("import %s: %v\n%s", src, err, out)
		}
		it := s.Query("SELECT JSON * FROM " + ks + "." + tbl.Name).Iter()
		var row string
		for it.Scan(&row) {
			rows[i] = append(rows[i], row)
		}
		must(t, it.Close())
		sort.Strings(rows[i])
	}
	check(t, len(rows[0]) > 0, "no rows imported from the originals")
	equal(t, rows[0], rows[1], "SELECT * after importing the originals vs the rewrites")
}
