package reconcile_test

import (
	"fmt"
	"testing"

	"github.com/sstable-flight/sstable-flight/internal/testkit/corpus"
	"github.com/sstable-flight/sstable-flight/reconcile"
	"github.com/sstable-flight/sstable-flight/reconcile/reconciletest"
	"github.com/sstable-flight/sstable-flight/sstable"
	"github.com/sstable-flight/sstable-flight/sstable/marshal"
)

// TestSliceMatchesKeyRead checks NewSlice against the whole partition
// (NewKey, itself checked against CQL): for every partition of every
// corpus table with clustering columns, slices on the first clustering
// column between rows of the partition, inclusive and exclusive, return
// exactly the partition's rows inside the bounds, and a partition with
// static data and no row in the slice returns nothing.
func TestSliceMatchesKeyRead(t *testing.T) {
	checked, staticOnly := 0, 0
	cases := corpus.NewCases(t)
	cases.Tables(corpusRoot(), func(t *testing.T, mode string, tbl *corpus.CorpusTable) {
		rs, table := reconciletest.OpenTable(t, tbl)
		if len(table.Clustering) == 0 {
			return
		}
		ct := table.Clustering[0]
		opts := reconcile.Options{Now: tbl.Expected.ReadAt}
		for _, key := range partitionKeys(t, tbl) {
			full := collect(t, func() (*reconcile.Merger, error) { return reconcile.NewKey(table, rs, opts, key) })
			var cks [][]byte
			for _, r := range full {
				if r.clustering != nil {
					cks = append(cks, r.clustering[0])
				}
			}
			if len(cks) == 0 {
				if len(full) > 0 { // static data only
					got := collect(t, func() (*reconcile.Merger, error) { return reconcile.NewSlice(table, rs, opts, key, sstable.Slice{}) })
					if len(got) != 0 {
						t.Fatalf("%s/%s key %x: static-only partition returned %v in a slice", mode, tbl.Name, key, got)
					}
					staticOnly++
				}
				continue
			}
			for _, b := range []struct{ lo, hi []byte }{
				{cks[0], cks[len(cks)-1]},
				{cks[len(cks)/3], cks[2*len(cks)/3]},
				{cks[len(cks)/2], cks[len(cks)/2]},
			} {
				for _, incl := range []bool{true, false} {
					sl := sstable.Slice{
						Start: sstable.Bound{Values: [][]byte{b.lo}, Inclusive: incl},
						End:   sstable.Bound{Values: [][]byte{b.hi}, Inclusive: incl},
					}
					got := collect(t, func() (*reconcile.Merger, error) { return reconcile.NewSlice(table, rs, opts, key, sl) })
					var want []sliceRow
					for _, r := range full {
						if r.clustering == nil {
							continue // static-only: never in a slice
						}
						lo, hi := marshal.Compare(ct, r.clustering[0], b.lo), marshal.Compare(ct, r.clustering[0], b.hi)
						if (lo > 0 || incl && lo == 0) && (hi < 0 || incl && hi == 0) {
							want = append(want, r)
						}
					}
					if fmt.Sprint(got) != fmt.Sprint(want) {
						t.Fatalf("%s/%s key %x slice %x..%x incl=%v:\n got %v\nwant %v", mode, tbl.Name, key, b.lo, b.hi, incl, got, want)
					}
					checked++
				}
			}
		}
	})
	// Floors on the whole corpus: they hold only when every table ran.
	if !cases.All() {
		return
	}
	if staticOnly == 0 {
		t.Error("no static-only partition checked")
	}
	if checked < 100 {
		t.Errorf("checked only %d slices", checked)
	}
}

// sliceRow is a merged row in comparable form.
type sliceRow struct {
	clustering [][]byte
	values     []string
}

func collect(t *testing.T, open func() (*reconcile.Merger, error)) []sliceRow {
	t.Helper()
	m, err := open()
	if err != nil {
		t.Fatal(err)
	}
	var out []sliceRow
	for m.Next() {
		r := m.Row()
		f := sliceRow{}
		if r.Clustering != nil {
			f.clustering = [][]byte{}
			for _, c := range r.Clustering {
				f.clustering = append(f.clustering, append([]byte{}, c...))
			}
		}
		for _, v := range r.Values {
			f.values = append(f.values, fmt.Sprintf("%x@%d/%d", v.Bytes, v.Timestamp, v.TTL))
		}
		out = append(out, f)
	}
	if err := m.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
