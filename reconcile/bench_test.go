package reconcile_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sstable-flight/sstable-flight/reconcile"
	"github.com/sstable-flight/sstable-flight/reconcile/reconciletest"
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
	t, err := reconciletest.TableOf(rs)
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

// BenchmarkRawSingle and BenchmarkRawWide are the raw-decode arms of
// BenchmarkFastVsRaw alone, for deploy/local/callgrind-fastpath.sh, which
// counts each arm's instructions: a measure free of the shared machine's
// noise.
func BenchmarkRawSingle(b *testing.B) { benchmarkRaw(b, "narrow", "many") }

func BenchmarkRawWide(b *testing.B) { benchmarkRaw(b, "wide", "wide") }

func benchmarkRaw(b *testing.B, table, corpusTable string) {
	rs := benchReaders(b, table, corpusTable)
	rows := 0
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		rows += countRaw(b, rs)
	}
	b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
}

// countRaw decodes every unfiltered of the readers, as sstable's scan
// benchmark does: the floor the merge is measured against.
func countRaw(b *testing.B, rs []*sstable.Reader) int {
	n := 0
	for _, r := range rs {
		s := r.Scan()
		for s.NextPartition() {
			for s.NextUnfiltered() {
				n++
			}
		}
		if err := s.Err(); err != nil {
			b.Fatal(err)
		}
	}
	return n
}

// countMerged returns the live rows a merge over the readers yields.
func countMerged(b *testing.B, t *reconcile.Table, rs []*sstable.Reader) int {
	m, err := reconcile.New(t, rs, reconcile.Options{Now: 2_000_000_000})
	if err != nil {
		b.Fatal(err)
	}
	n := 0
	for m.Next() {
		n++
	}
	if err := m.Err(); err != nil {
		b.Fatal(err)
	}
	return n
}

// benchmarkPaired runs arm a and arm b alternately in every iteration and
// reports their rates and the ratio b/a. Alternating puts the noise of a
// shared machine on both arms alike, so the ratio is steadier than one of
// two benchmarks run minutes apart.
func benchmarkPaired(b *testing.B, a, c func() int, unitA, unitC string) {
	var ta, tc time.Duration
	var na, nc int
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		na += a()
		ta += time.Since(start)
		start = time.Now()
		nc += c()
		tc += time.Since(start)
	}
	ra, rc := float64(na)/ta.Seconds(), float64(nc)/tc.Seconds()
	b.ReportMetric(ra, unitA)
	b.ReportMetric(rc, unitC)
	b.ReportMetric(rc/ra, "ratio")
}

// BenchmarkFastVsRaw is the issue's "fast path loses at most 10% against
// raw decode": one SSTable read raw and through the merge, alternately.
// ratio = merged rows/s ÷ raw rows/s.
func BenchmarkFastVsRaw(b *testing.B) {
	for _, tc := range []struct{ name, table, corpus string }{
		{"narrow", "narrow", "many"},
		{"wide", "wide", "wide"},
	} {
		b.Run(tc.name, func(b *testing.B) {
			rs := benchReaders(b, tc.table, tc.corpus)
			t, err := reconciletest.TableOf(rs)
			if err != nil {
				b.Fatal(err)
			}
			benchmarkPaired(b,
				func() int { return countRaw(b, rs) },
				func() int { return countMerged(b, t, rs) },
				"raw-rows/s", "merged-rows/s")
		})
	}
}

// BenchmarkMerge3VsFast is the issue's "3 overlapping generations at
// ≥ 50% of the single-SSTable fast path": the merge of all generations
// against the fast path over one of them, alternately, both counted in
// rows decoded from the SSTables (every partition of bench.gens is in all
// three, so the merge returns a third of what it reads). ratio = merge
// input rows/s ÷ fast-path rows/s.
func BenchmarkMerge3VsFast(b *testing.B) {
	rs := benchReaders(b, "gens", "deletions")
	t, err := reconciletest.TableOf(rs)
	if err != nil {
		b.Fatal(err)
	}
	one := rs[:1]
	input := countRaw(b, rs)
	var out int
	benchmarkPaired(b,
		func() int { return countMerged(b, t, one) },
		func() int { out = countMerged(b, t, rs); return input },
		"fast-rows/s", "merge-input-rows/s")
	b.ReportMetric(float64(out), "merge-output-rows/op")
}
