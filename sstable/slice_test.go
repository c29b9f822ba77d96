package sstable_test

import (
	"bytes"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/sstable-flight/sstable-flight/internal/testkit/corpus"
	"github.com/sstable-flight/sstable-flight/sstable"
	"github.com/sstable-flight/sstable-flight/sstable/marshal"
)

type sliceRow struct {
	clustering [][]byte
	covering   sstable.DeletionTime // range deletion covering the row
}

// rowsWithCover reads a partition's rows, tracking the range deletion
// open at each (markers open and close it).
func rowsWithCover(t *testing.T, s *sstable.Scanner) (rows []sliceRow, static bool) {
	t.Helper()
	open := sstable.LiveDeletion
	for s.NextUnfiltered() {
		u := s.Unfiltered()
		switch {
		case u.Static:
			static = true
		case u.Marker && (u.Kind.IsStart() || u.Kind.IsBoundary()):
			open = u.MarkerDel
		case u.Marker:
			open = sstable.LiveDeletion
		default:
			var c [][]byte
			for _, v := range u.Clustering {
				c = append(c, append([]byte{}, v...))
			}
			rows = append(rows, sliceRow{c, open})
		}
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	return rows, static
}

func cmpRow(types []*marshal.Type, a, b [][]byte) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if c := marshal.Compare(types[i], a[i], b[i]); c != 0 {
			return c
		}
	}
	return 0
}

// TestSliceMatchesFullScan: for every partition with clustering columns
// in the corpus (wide partitions with several row-index blocks, range
// deletions across blocks, mixed ASC/DESC clustering), random slices
// (bounds taken from real rows, prefixes of every length, inclusive or
// not, open-ended) return exactly the partition's rows in the slice, each
// under the same covering range deletion as in a full read, plus the
// static row.
func TestSliceMatchesFullScan(t *testing.T) {
	checked := 0
	cases := eachCorpusTable(t, func(t *testing.T, mode string, tbl *corpus.CorpusTable) {
		rng := corpus.Rand(t, 5)
		for _, st := range tbl.SSTables {
			r, err := sstable.Open(filepath.Join(tbl.Dir, st.Prefix+"-Data.db"), sstable.Options{})
			if err != nil {
				t.Fatal(err)
			}
			types := r.Schema.Clustering
			if len(types) == 0 {
				r.Close()
				continue
			}
			var keys [][]byte
			s := r.Scan()
			for s.NextPartition() {
				keys = append(keys, append([]byte(nil), s.Partition().Key...))
			}
			for _, key := range keys {
				g, err := r.Get(key)
				if err != nil || !g.NextPartition() {
					t.Fatalf("get: %v", err)
				}
				all, hasStatic := rowsWithCover(t, g)
				if len(all) == 0 {
					continue
				}
				for range 12 {
					var sl sstable.Slice
					pick := func() sstable.Bound {
						row := all[rng.IntN(len(all))].clustering
						return sstable.Bound{Values: row[:1+rng.IntN(len(row))], Inclusive: rng.IntN(2) == 0}
					}
					if rng.IntN(5) > 0 {
						sl.Start = pick()
					}
					if rng.IntN(5) > 0 {
						sl.End = pick()
					}
					gs, err := r.GetSlice(key, sl)
					if err != nil || !gs.NextPartition() {
						t.Fatalf("get slice: %v", err)
					}
					got, gotStatic := rowsWithCover(t, gs)
					var want []sliceRow
					for _, row := range all {
						if len(sl.Start.Values) > 0 {
							c := cmpRow(types, row.clustering, sl.Start.Values)
							if c < 0 || c == 0 && !sl.Start.Inclusive {
								continue
							}
						}
						if len(sl.End.Values) > 0 {
							c := cmpRow(types, row.clustering, sl.End.Values)
							if c > 0 || c == 0 && !sl.End.Inclusive {
								continue
							}
						}
						want = append(want, row)
					}
					if fmt.Sprint(got) != fmt.Sprint(want) || gotStatic != hasStatic {
						t.Errorf("%s/%s/%s key %x slice %v: got %d rows %v (static %v), want %d %v (static %v)",
							mode, tbl.Name, st.Prefix, key, sl, len(got), got, gotStatic, len(want), want, hasStatic)
						return
					}
					checked++
				}
			}
			r.Close()
		}
	})
	jumps, into := sstable.SliceJumps()
	t.Logf("%d slices, %d used the row index to skip blocks, %d of them into an open range deletion", checked, jumps, into)
	// Floors on the whole corpus: they hold only when every table ran.
	if !cases.All() {
		return
	}
	if checked < 1000 {
		t.Errorf("only %d slices checked", checked)
	}
	if jumps < 20 || into < 1 {
		t.Errorf("row-index jumps %d (into a deletion: %d): the wide partitions should exercise both", jumps, into)
	}
}

// TestSliceExclusiveStartAtAMarker pins a case the randomized test found:
// in nb/wide, partition 2 has a range deletion opening at row 50, just
// before the row. A slice starting exclusively at 50 starts at that
// marker (its deletion covers the rows after 50 too) and must still skip
// row 50 itself.
func TestSliceExclusiveStartAtAMarker(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(corpusRoot(), "nb", "corpus", "wide-*", "nb-1-big-Data.db"))
	if len(files) != 1 {
		t.Fatalf("nb wide: %v", files)
	}
	r, err := sstable.Open(files[0], sstable.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	at50 := [][]byte{{0, 0, 0, 50}}
	for _, incl := range []bool{true, false} {
		t.Run(fmt.Sprintf("inclusive=%t", incl), func(t *testing.T) {
			s, err := r.GetSlice([]byte{0, 0, 0, 2}, sstable.Slice{Start: sstable.Bound{Values: at50, Inclusive: incl}})
			if err != nil || !s.NextPartition() {
				t.Fatalf("get slice: %v", err)
			}
			row50, first := false, true
			for s.NextUnfiltered() {
				u := s.Unfiltered()
				if first && !(u.Marker && bytes.Equal(u.Clustering[0], at50[0])) {
					t.Fatalf("inclusive %v: first unfiltered %+v, want the deletion opening at 50", incl, u)
				}
				first = false
				row50 = row50 || !u.Marker && bytes.Equal(u.Clustering[0], at50[0])
			}
			if err := s.Err(); err != nil {
				t.Fatal(err)
			}
			if row50 != incl {
				t.Errorf("slice from 50, inclusive %v: row 50 returned %v", incl, row50)
			}
		})
	}
}
