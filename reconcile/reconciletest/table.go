package reconciletest

import (
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/sstable-flight/sstable-flight/internal/testkit/corpus"
	"github.com/sstable-flight/sstable-flight/reconcile"
	"github.com/sstable-flight/sstable-flight/sstable"
)

// OpenSSTables opens every SSTable of a corpus table, in the order the
// corpus lists them; they are closed when the test ends.
func OpenSSTables(t testing.TB, tbl *corpus.CorpusTable) []*sstable.Reader {
	t.Helper()
	var readers []*sstable.Reader
	for _, st := range tbl.SSTables {
		r, err := sstable.Open(filepath.Join(tbl.Dir, st.Prefix+"-Data.db"), sstable.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { r.Close() })
		readers = append(readers, r)
	}
	return readers
}

// OpenTable opens a corpus table's SSTables (OpenSSTables) and builds its
// reconcile.Table. The SSTables' headers give the columns and the schema
// decides which stay: dropped ones (DESCRIBE ... WITH INTERNALS lists
// "DROP col USING TIMESTAMP ts") hide their old cells, and columns the
// table no longer has (not in SELECT *) leave the output.
func OpenTable(t testing.TB, tbl *corpus.CorpusTable) ([]*sstable.Reader, *reconcile.Table) {
	t.Helper()
	readers := OpenSSTables(t, tbl)
	table, err := TableOf(readers)
	if err != nil {
		t.Fatal(err)
	}
	table.Dropped = map[string]int64{}
	for _, m := range dropRE.FindAllStringSubmatch(tbl.Schema, -1) {
		ts, _ := strconv.ParseInt(m[2], 10, 64)
		table.Dropped[m[1]] = ts
	}
	current := map[string]bool{}
	for _, c := range tbl.Expected.Columns {
		current[c.Name] = true
	}
	var gone []string
	for _, c := range table.Columns {
		if !current[c.Name] {
			gone = append(gone, c.Name)
		}
	}
	table.Without(gone...)
	return readers, table
}

var dropRE = regexp.MustCompile(`DROP (\w+) USING TIMESTAMP (\d+)`)
