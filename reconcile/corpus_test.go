package reconcile_test

import (
	"encoding/json"
	"fmt"
	"strconv"
	"testing"

	"github.com/sstable-flight/sstable-flight/internal/testkit/canon"
	"github.com/sstable-flight/sstable-flight/internal/testkit/corpus"
	"github.com/sstable-flight/sstable-flight/reconcile"
	"github.com/sstable-flight/sstable-flight/reconcile/reconciletest"
	"github.com/sstable-flight/sstable-flight/sstable"
	"github.com/sstable-flight/sstable-flight/sstable/marshal"
)

func corpusRoot() string { return corpus.Root() }

// TestMatchesCQL is the reconciler's differential test: for every corpus
// table in every mode, merging all its SSTables (up to three overlapping
// generations, every deletion kind, TTLs read at the corpus' read time)
// gives exactly the rows of SELECT * over CQL, value for value, in the
// same order.
func TestMatchesCQL(t *testing.T) {
	tables := corpus.NewCases(t).Tables(corpusRoot(), func(t *testing.T, _ string, tbl *corpus.CorpusTable) {
		got := reconciled(t, tbl)
		want := tbl.Expected.Rows
		if len(got) != len(want) {
			t.Errorf("%d rows, CQL returned %d", len(got), len(want))
		}
		for i := 0; i < len(got) && i < len(want); i++ {
			w, _ := json.Marshal(want[i])
			g, _ := json.Marshal(got[i])
			if !sameJSON(t, w, g) {
				t.Errorf("row %d:\n got %s\nwant %s", i, g, w)
				break
			}
		}
	})
	if tables < 3*16 {
		t.Errorf("checked %d tables", tables)
	}
}

func reconciled(t *testing.T, tbl *corpus.CorpusTable) []corpus.Row {
	t.Helper()
	return reconciledWith(t, tbl, func(table *reconcile.Table, readers []*sstable.Reader, opts reconcile.Options) (*reconcile.Merger, error) {
		return reconcile.New(table, readers, opts)
	})
}

type newMerger func(*reconcile.Table, []*sstable.Reader, reconcile.Options) (*reconcile.Merger, error)

func reconciledWith(t *testing.T, tbl *corpus.CorpusTable, open newMerger) []corpus.Row {
	t.Helper()
	readers, table := reconciletest.OpenTable(t, tbl)
	m, err := open(table, readers, reconcile.Options{Now: tbl.Expected.ReadAt})
	if err != nil {
		t.Fatal(err)
	}
	keyType := readers[0].Schema.Key
	var out []corpus.Row
	for m.Next() {
		r := m.Row()
		row := corpus.Row{Token: strconv.FormatInt(int64(r.Token()), 10), Values: map[string]any{}}
		keys, err := marshal.SplitKey(keyType, r.Key)
		if err != nil {
			t.Fatalf("split partition key %x: %v", r.Key, err)
		}
		ci := 0
		for _, col := range tbl.Expected.Columns {
			var v any
			var err error
			switch col.Kind {
			case "partition_key":
				v, err = canon.Value(marshal.KeyTypes(keyType)[col.Position], keys[col.Position])
			case "clustering":
				if r.Clustering != nil {
					v, err = canon.Value(table.Clustering[col.Position], r.Clustering[col.Position])
				}
				ci++
			default:
				for i, c := range table.Columns {
					if c.Name == col.Name {
						v, err = canon.Value(c.Type, r.Values[i].Bytes)
					}
				}
			}
			if err != nil {
				t.Fatalf("column %s: %v", col.Name, err)
			}
			row.Values[col.Name] = v
		}
		out = append(out, row)
	}
	if err := m.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func sameJSON(t *testing.T, a, b []byte) bool {
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprint(x) == fmt.Sprint(y)
}
