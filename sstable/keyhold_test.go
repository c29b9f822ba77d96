package sstable_test

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/sstable-flight/sstable-flight/internal/testkit/corpus"
	"github.com/sstable-flight/sstable-flight/sstable"
)

// TestPartitionKeyHolds pins PartitionHeader.Key's contract: the slice
// Partition returns stays intact while the partition's rows are read,
// through the stream's refills and a slice's seeks, until the next
// NextPartition. The reconciler keeps it without a copy. The wide
// table's partitions are larger than a scan's buffer and far larger than
// a point read's, so both refill mid-partition.
func TestPartitionKeyHolds(t *testing.T) {
	check := func(t *testing.T, what string, s *sstable.Scanner) int {
		t.Helper()
		n := 0
		for s.NextPartition() {
			key := s.Partition().Key
			want := bytes.Clone(key)
			for s.NextUnfiltered() {
				n++
			}
			if !bytes.Equal(key, want) {
				t.Fatalf("%s: key %x became %x while its rows were read", what, want, key)
			}
		}
		if err := s.Err(); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		return n
	}
	eachCorpusTable(t, func(t *testing.T, mode string, tbl *corpus.CorpusTable) {
		name := tbl.Name
		for _, st := range tbl.SSTables {
			r, err := sstable.Open(filepath.Join(tbl.Dir, st.Prefix+"-Data.db"), sstable.Options{})
			if err != nil {
				t.Fatal(err)
			}
			where := mode + "/" + name + "/" + st.Prefix
			check(t, where+" scan", r.Scan())
			for _, p := range fullScan(t, r) {
				if !r.Murmur3() {
					break
				}
				g, err := r.Get(p.key)
				if err != nil {
					t.Fatal(err)
				}
				if n := check(t, where+" get", g); n != p.rows {
					t.Fatalf("%s: get %x read %d unfiltereds, the scan %d", where, p.key, n, p.rows)
				}
				g.Release()
				if len(r.Schema.Clustering) == 1 && p.rows > 2 {
					// A start bound makes the slice seek by the row index.
					sl := sstable.Slice{Start: sstable.Bound{Values: [][]byte{{0, 0, 0, 150}}, Inclusive: true}}
					gs, err := r.GetSlice(p.key, sl)
					if err != nil {
						t.Fatal(err)
					}
					check(t, where+" slice", gs)
					gs.Release()
				}
			}
			r.Close()
		}
	})
}
