package reconcile_test

import (
	"encoding/json"
	"sort"
	"testing"

	"github.com/sstable-flight/sstable-flight/internal/testkit/corpus"
	"github.com/sstable-flight/sstable-flight/reconcile"
	"github.com/sstable-flight/sstable-flight/reconcile/reconciletest"
	"github.com/sstable-flight/sstable-flight/sstable"
	"github.com/sstable-flight/sstable-flight/token"
)

// TestKeyMatchesCQL reads every partition of every corpus table by key
// (NewKey: bloom filter and index per SSTable) and checks the rows equal
// that partition's rows in SELECT * — the full scan's differential test,
// partition by partition, including partitions that only some SSTables
// hold and partitions deleted in a later generation (no rows).
func TestKeyMatchesCQL(t *testing.T) {
	corpus.NewCases(t).Tables(corpusRoot(), func(t *testing.T, _ string, tbl *corpus.CorpusTable) {
		keys := partitionKeys(t, tbl)
		if len(keys) == 0 {
			t.Fatal("no partitions")
		}
		var got []corpus.Row
		for _, k := range keys {
			got = append(got, reconciledWith(t, tbl, func(table *reconcile.Table, rs []*sstable.Reader, opts reconcile.Options) (*reconcile.Merger, error) {
				return reconcile.NewKey(table, rs, opts, k)
			})...)
		}
		want := tbl.Expected.Rows
		if len(got) != len(want) {
			t.Fatalf("%d rows by key, CQL returned %d", len(got), len(want))
		}
		for i := range got {
			w, _ := json.Marshal(want[i])
			g, _ := json.Marshal(got[i])
			if !sameJSON(t, w, g) {
				t.Fatalf("row %d:\n got %s\nwant %s", i, g, w)
			}
		}
	})
}

// partitionKeys lists the distinct partition keys of a table's SSTables in
// token order, including keys of partitions with no live row.
func partitionKeys(t *testing.T, tbl *corpus.CorpusTable) [][]byte {
	t.Helper()
	readers := reconciletest.OpenSSTables(t, tbl)
	type pk struct {
		token token.Token
		key   []byte
	}
	seen := map[string]bool{}
	var keys []pk
	for _, r := range readers {
		s := r.Scan()
		for s.NextPartition() {
			k := s.Partition().Key
			if !seen[string(k)] {
				seen[string(k)] = true
				keys = append(keys, pk{token.Of(k), append([]byte{}, k...)})
			}
		}
		if err := s.Err(); err != nil {
			t.Fatal(err)
		}
	}
	sortKeys := func(i, j int) bool {
		return token.CompareDecorated(keys[i].token, keys[i].key, keys[j].token, keys[j].key) < 0
	}
	sort.Slice(keys, sortKeys)
	out := make([][]byte, len(keys))
	for i, k := range keys {
		out[i] = k.key
	}
	return out
}
