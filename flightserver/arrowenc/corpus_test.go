package arrowenc_test

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/sstable-flight/sstable-flight/flightserver/arrowenc"
	"github.com/sstable-flight/sstable-flight/internal/testkit/corpus"
	"github.com/sstable-flight/sstable-flight/reconcile"
	"github.com/sstable-flight/sstable-flight/reconcile/reconciletest"
	"github.com/sstable-flight/sstable-flight/sstable/marshal"
)

func corpusRoot() string { return corpus.Root() }

// corpusBatchRows is small so every table spans several record batches:
// the builders are reused across NewRecordBatch.
const corpusBatchRows = 64

// TestCorpusRoundTrip proves the mapping lossless on real data: for every
// corpus table in every mode, the reconciled rows go through the
// appenders into Arrow record batches, and each Arrow value converted
// back to canonical JSON (from the arrays alone) equals what CQL returned.
// It covers every native type, frozen and non-frozen collections, UDTs,
// tuples, vectors, counters, composite partition keys and DESC clustering.
func TestCorpusRoundTrip(t *testing.T) {
	tables := corpus.NewCases(t).Tables(corpusRoot(), func(t *testing.T, _ string, tbl *corpus.CorpusTable) { roundTrip(t, tbl) })
	if tables < 3*16 {
		t.Errorf("checked %d tables", tables)
	}
}

func roundTrip(t *testing.T, tbl *corpus.CorpusTable) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)

	readers, table := reconciletest.OpenTable(t, tbl)
	keyType := readers[0].Schema.Key

	// One column per expected column, typed from the SSTable headers.
	keyTypes := marshal.KeyTypes(keyType)
	cols := make([]arrowenc.Column, len(tbl.Expected.Columns))
	specs := make([]arrowenc.ColumnSpec, len(cols))
	projection := make([]int, len(cols))
	for i, col := range tbl.Expected.Columns {
		c := arrowenc.Column{Spec: arrowenc.ColumnSpec{Name: col.Name, Kind: col.Kind, Position: col.Position, Desc: col.ClusteringOrder == "desc"},
			Index: col.Position}
		switch col.Kind {
		case "partition_key":
			c.Spec.Type, c.From = keyTypes[col.Position], arrowenc.FromKey
		case "clustering":
			c.Spec.Type, c.From = table.Clustering[col.Position], arrowenc.FromClustering
		default:
			c.From = arrowenc.FromValue
			for j, tc := range table.Columns {
				if tc.Name == col.Name {
					c.Spec.Type, c.Index = tc.Type, j
				}
			}
		}
		if c.Spec.Type == nil {
			t.Fatalf("column %s: no SSTable has its type", col.Name)
		}
		cols[i], specs[i], projection[i] = c, c.Spec, i
	}
	schema, err := arrowenc.Schema(specs)
	if err != nil {
		t.Fatal(err)
	}

	b, err := arrowenc.NewBatcher(mem, schema, cols, projection, len(keyTypes), corpusBatchRows, 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Release()
	for i, col := range tbl.Expected.Columns {
		f := b.Schema().Field(i)
		if got, _ := f.Metadata.GetValue("cql.type"); got != col.Type {
			t.Errorf("column %s: cql.type %q, CQL says %q", col.Name, got, col.Type)
		}
		if col.Kind == "clustering" {
			if got, _ := f.Metadata.GetValue("cql.clustering_order"); got != col.ClusteringOrder {
				t.Errorf("column %s: cql.clustering_order %q, CQL says %q", col.Name, got, col.ClusteringOrder)
			}
		}
	}

	m, err := reconcile.New(table, readers, reconcile.Options{Now: tbl.Expected.ReadAt})
	if err != nil {
		t.Fatal(err)
	}
	want := tbl.Expected.Rows
	row := 0
	flush := func() {
		rec := b.Flush()
		if rec == nil {
			return
		}
		defer rec.Release()
		if err := array.ValidateRecordFull(rec); err != nil {
			t.Fatal(err)
		}
		for r := range int(rec.NumRows()) {
			if row >= len(want) {
				row++
				continue
			}
			for i, col := range specs {
				got := canonOf(col.Type, rec.Column(i), r)
				if w := want[row].Values[col.Name]; !sameCanon(t, got, w) {
					t.Errorf("row %d column %s (%s): got %s, want %s", row, col.Name, col.Type, jsonString(got), jsonString(w))
				}
			}
			row++
		}
	}
	for m.Next() {
		full, err := b.Add(m.Row())
		if err != nil {
			t.Fatal(err)
		}
		if full {
			flush()
		}
	}
	if err := m.Err(); err != nil {
		t.Fatal(err)
	}
	flush()
	if row != len(want) {
		t.Errorf("%d rows, CQL returned %d", row, len(want))
	}
}
