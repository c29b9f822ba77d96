package reconcile_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/sstable-flight/sstable-flight/reconcile"
	"github.com/sstable-flight/sstable-flight/sstable"
)

// benchReaders opens the SSTables of a bench table (SSTF_BENCH_DIR, from
// make bench-data) or, without it, of a committed corpus table.
func benchReaders(b *testing.B, table, corpusTable string) []*sstable.Reader {
	b.Helper()
	pattern := filepath.Join("..", "testdata", "corpus", "oa", "corpus", corpusTable+"-*", "*-Data.db")
	if dir := os.Getenv("SSTF_BENCH_DIR"); dir != "" {
		pattern = filepath.Join(dir, "*", table+"-*", "*-Data.db")
	}
	files, _ := filepath.Glob(pattern)
	if len(files) == 0 {
		b.Fatalf("no SSTables match %s", pattern)
	}
	var rs []*sstable.Reader
	for _, f := range files {
		r, err := sstable.Open(f, sstable.Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { r.Close() })
		rs = append(rs, r)
	}
	return rs
}

func benchmarkMerge(b *testing.B, table, corpusTable string) {
	rs := benchReaders(b, table, corpusTable)
	t, err := reconcile.TableOf(rs)
	if err != nil {
		b.Fatal(err)
	}
	rows := 0
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		m, err := reconcile.New(t, rs, reconcile.Options{Now: 2_000_000_000})
		if err != nil {
			b.Fatal(err)
		}
		for m.Next() {
			rows++
		}
		if err := m.Err(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(float64(rows)/float64(b.N), "rows/op")
	b.ReportMetric(float64(len(rs)), "sstables")
}

// BenchmarkMergeSingle is the single-SSTable path: every rule applied,
// nothing to merge.
func BenchmarkMergeSingle(b *testing.B) { benchmarkMerge(b, "narrow", "many") }

// BenchmarkMergeWide is the single-SSTable path over wide partitions.
func BenchmarkMergeWide(b *testing.B) { benchmarkMerge(b, "wide", "wide") }

// BenchmarkMerge3 merges three overlapping generations of one table.
func BenchmarkMerge3(b *testing.B) { benchmarkMerge(b, "gens", "deletions") }
