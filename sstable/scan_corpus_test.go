package sstable_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/sstable-flight/sstable-flight/internal/testkit/corpus"
	"github.com/sstable-flight/sstable-flight/sstable"
)

// TestScanMatchesDumpStructure walks every corpus Data.db and checks the
// structure against Cassandra's sstabledump of it: the same partitions in
// the same order, the same number of rows, static rows and markers in
// each, and rows at the same Data.db positions.
func TestScanMatchesDumpStructure(t *testing.T) {
	total := 0
	cases := eachCorpusTable(t, func(t *testing.T, mode string, tbl *corpus.CorpusTable) {
		for _, st := range tbl.SSTables {
			name := fmt.Sprintf("%s/%s/%s", mode, tbl.Name, st.Prefix)
			r, err := sstable.Open(filepath.Join(tbl.Dir, st.Prefix+"-Data.db"), sstable.Options{})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			s := r.Scan()
			i := 0
			for s.NextPartition() {
				if i >= len(st.Dump) {
					t.Errorf("%s: more partitions than the dump's %d", name, len(st.Dump))
					break
				}
				want := st.Dump[i]
				var types []string
				var positions []int64
				for s.NextUnfiltered() {
					u := s.Unfiltered()
					switch {
					case u.Marker && u.Kind.IsBoundary():
						types = append(types, "range_tombstone_boundary")
					case u.Marker:
						types = append(types, "range_tombstone_bound")
					case u.Static:
						types = append(types, "static_block")
					default:
						types = append(types, "row")
						positions = append(positions, u.Position)
					}
					total++
				}
				var wantTypes []string
				var wantPos []int64
				for _, row := range want.Rows {
					typ := fmt.Sprint(row["type"])
					wantTypes = append(wantTypes, typ)
					if typ == "row" {
						var p int64
						fmt.Sscan(fmt.Sprint(row["position"]), &p)
						wantPos = append(wantPos, p)
					}
				}
				if fmt.Sprint(filterStatic(types, wantTypes)) != fmt.Sprint(wantTypes) {
					t.Errorf("%s partition %d (%v): unfiltereds %v, dump %v", name, i, want.Partition.Key, types, wantTypes)
				} else if fmt.Sprint(positions) != fmt.Sprint(wantPos) {
					t.Errorf("%s partition %d: row positions %v, dump %v", name, i, positions, wantPos)
				}
				i++
			}
			if err := s.Err(); err != nil {
				t.Errorf("%s: %v", name, err)
			}
			if i != len(st.Dump) {
				t.Errorf("%s: %d partitions, dump has %d", name, i, len(st.Dump))
			}
			r.Close()
		}
	})
	// A floor on the whole corpus: it holds only when every table ran.
	if cases.All() && total < 10000 {
		t.Errorf("only %d unfiltereds decoded", total)
	}
}

// filterStatic drops an empty static row we decode where the dump shows
// none (Cassandra writes an empty static row whenever the header has
// static columns; sstabledump omits it).
func filterStatic(got, want []string) []string {
	if len(got) > 0 && got[0] == "static_block" && (len(want) == 0 || want[0] != "static_block") {
		return got[1:]
	}
	return got
}
