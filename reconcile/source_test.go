package reconcile_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/sstable-flight/sstable-flight/internal/testkit/corpus"
	"github.com/sstable-flight/sstable-flight/reconcile"
	"github.com/sstable-flight/sstable-flight/sstable"
)

// readerInput offers an SSTable as an Input, as the commit log's overlay
// will offer its partitions: the merge must read it exactly as it reads
// an SSTable given among the readers.
type readerInput struct{ r *sstable.Reader }

func (in readerInput) Name() string            { return "input " + in.r.Desc.FileName() }
func (in readerInput) Schema() *sstable.Schema { return in.r.Schema }
func (in readerInput) MaxTimestamp() int64     { return in.r.Stats.Stats.MaxTimestamp }

func (in readerInput) ScanRange(ctx context.Context, start, end int64) (*sstable.Scanner, error) {
	return in.r.ScanRangeContext(ctx, start, end)
}

func (in readerInput) Get(ctx context.Context, key []byte) (*sstable.Scanner, error) {
	return in.r.GetContext(ctx, key)
}

func (in readerInput) GetSlice(ctx context.Context, key []byte, sl sstable.Slice) (*sstable.Scanner, error) {
	return in.r.GetSliceContext(ctx, key, sl)
}

// asInputs merges the first SSTable as a reader and the others as
// Inputs (all of them as Inputs when first is 0).
func asInputs(first int, open func(*reconcile.Table, []*sstable.Reader, reconcile.Options) (*reconcile.Merger, error)) newMerger {
	return func(table *reconcile.Table, readers []*sstable.Reader, opts reconcile.Options) (*reconcile.Merger, error) {
		first := min(first, len(readers))
		for _, r := range readers[first:] {
			opts.Inputs = append(opts.Inputs, readerInput{r})
		}
		return open(table, readers[:first], opts)
	}
}

// TestInputsMatchCQL: every corpus table, its SSTables split between
// readers and Inputs (one reader and the rest as Inputs, or all as
// Inputs), merged by a scan and by key, gives exactly CQL's rows: the
// merge applies every rule across the two kinds of source, orders them
// alike, and maps an Input's columns as an SSTable's.
func TestInputsMatchCQL(t *testing.T) {
	scan := func(table *reconcile.Table, rs []*sstable.Reader, opts reconcile.Options) (*reconcile.Merger, error) {
		return reconcile.New(table, rs, opts)
	}
	corpus.NewCases(t).Tables(corpusRoot(), func(t *testing.T, _ string, tbl *corpus.CorpusTable) {
		want := tbl.Expected.Rows
		for _, first := range []int{0, 1} {
			got := reconciledWith(t, tbl, asInputs(first, scan))
			var byKey []corpus.Row
			for _, k := range partitionKeys(t, tbl) {
				byKey = append(byKey, reconciledWith(t, tbl, asInputs(first, func(table *reconcile.Table, rs []*sstable.Reader, opts reconcile.Options) (*reconcile.Merger, error) {
					return reconcile.NewKey(table, rs, opts, k)
				}))...)
			}
			for name, rows := range map[string][]corpus.Row{"scan": got, "by key": byKey} {
				if len(rows) != len(want) {
					t.Fatalf("%d readers first, %s: %d rows, CQL returned %d", first, name, len(rows), len(want))
				}
				for i := range rows {
					w, _ := json.Marshal(want[i])
					g, _ := json.Marshal(rows[i])
					if !sameJSON(t, w, g) {
						t.Fatalf("%d readers first, %s, row %d:\n got %s\nwant %s", first, name, i, g, w)
					}
				}
			}
		}
	})
}
