package reconcile_test

import (
	"fmt"
	"testing"

	"github.com/sstable-flight/sstable-flight/internal/testkit/corpus"
	"github.com/sstable-flight/sstable-flight/reconcile"
	"github.com/sstable-flight/sstable-flight/reconcile/reconciletest"
)

// TestProjectionKeepsRows: with Options.Columns, every table of the
// corpus returns exactly the rows of the full merge (a row that only a
// left-out column keeps alive included, as CQL's SELECT a FROM t does),
// the kept column's values unchanged and the others null; for each column
// alone, and for none.
func TestProjectionKeepsRows(t *testing.T) {
	checked := 0
	cases := corpus.NewCases(t)
	cases.Tables(corpusRoot(), func(t *testing.T, mode string, tbl *corpus.CorpusTable) {
		rs, table := reconciletest.OpenTable(t, tbl)
		full := collect(t, func() (*reconcile.Merger, error) {
			return reconcile.New(table, rs, reconcile.Options{Now: tbl.Expected.ReadAt})
		})
		for keep := -1; keep < len(table.Columns); keep++ {
			cols := make([]bool, len(table.Columns))
			if keep >= 0 {
				cols[keep] = true
			}
			got := collect(t, func() (*reconcile.Merger, error) {
				return reconcile.New(table, rs, reconcile.Options{Now: tbl.Expected.ReadAt, Columns: cols})
			})
			if len(got) != len(full) {
				t.Fatalf("%s/%s keeping column %d: %d rows, full merge %d", mode, tbl.Name, keep, len(got), len(full))
			}
			null := fmt.Sprintf("%x@%d/%d", []byte(nil), reconcile.NoTimestamp, 0)
			for i := range full {
				if fmt.Sprint(got[i].clustering) != fmt.Sprint(full[i].clustering) {
					t.Fatalf("%s/%s keeping column %d, row %d: clustering %x, full merge %x", mode, tbl.Name, keep, i, got[i].clustering, full[i].clustering)
				}
				for j := range full[i].values {
					want := null
					if j == keep {
						want = full[i].values[j]
					}
					if got[i].values[j] != want {
						t.Fatalf("%s/%s keeping column %d, row %d, column %d: %s, want %s", mode, tbl.Name, keep, i, j, got[i].values[j], want)
					}
				}
			}
			checked++
		}
	})
	// A floor on the whole corpus: it holds only when every table ran.
	if cases.All() && checked < 50 {
		t.Fatalf("only %d projections checked", checked)
	}
}
