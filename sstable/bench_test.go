package sstable_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/sstable-flight/sstable-flight/sstable"
)

// benchData names the Data.db a benchmark reads: the generated bench
// dataset when SSTF_BENCH_DIR points at it (make bench), else a committed
// corpus table, so the benchmarks always run.
func benchData(b *testing.B, table, corpusTable string) string {
	b.Helper()
	if dir := os.Getenv("SSTF_BENCH_DIR"); dir != "" {
		files, _ := filepath.Glob(filepath.Join(dir, "*", table+"-*", "*-Data.db"))
		if len(files) != 1 {
			b.Fatalf("bench dataset %s: want one %s Data.db, found %v", dir, table, files)
		}
		return files[0]
	}
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "corpus", "oa", "corpus", corpusTable+"-*", "*-Data.db"))
	if len(files) == 0 {
		b.Fatalf("no corpus table %s", corpusTable)
	}
	return files[0]
}

// BenchmarkScan decodes every row of one SSTable per iteration and
// reports rows/s; allocations per op divided by rows/op is the per-row
// allocation figure.
func benchmarkScan(b *testing.B, table, corpusTable string) {
	path := benchData(b, table, corpusTable)
	r, err := sstable.Open(path, sstable.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	rows := 0
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		s := r.Scan()
		for s.NextPartition() {
			for s.NextUnfiltered() {
				rows++
			}
		}
		if err := s.Err(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(float64(rows)/float64(b.N), "rows/op")
}

func BenchmarkScanNarrow(b *testing.B) { benchmarkScan(b, "narrow", "many") }
func BenchmarkScanWide(b *testing.B)   { benchmarkScan(b, "wide", "wide") }

// BenchmarkOpen opens the narrow table: TOC, Statistics, CompressionInfo,
// Summary and Filter, never Index.db or Data.db's content.
func BenchmarkOpen(b *testing.B) {
	path := benchData(b, "narrow", "many")
	b.ReportAllocs()
	for range b.N {
		r, err := sstable.Open(path, sstable.Options{})
		if err != nil {
			b.Fatal(err)
		}
		r.Close()
	}
}

// BenchmarkGet reads random existing partitions by key (warm: the files
// are in the page cache after the first pass).
func BenchmarkGet(b *testing.B) { benchmarkGet(b, sstable.Options{}) }

// BenchmarkGetCached is BenchmarkGet through a chunk cache and a key
// cache that hold every chunk and position after the first pass: a warm
// point read's path.
func BenchmarkGetCached(b *testing.B) {
	benchmarkGet(b, sstable.Options{ChunkCache: sstable.NewChunkCache(64 << 20), KeyCache: sstable.NewKeyCache(8 << 20)})
}

func benchmarkGet(b *testing.B, opts sstable.Options) {
	path := benchData(b, "narrow", "many")
	r, err := sstable.Open(path, opts)
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	var keys [][]byte
	s := r.Scan()
	for i := 0; s.NextPartition(); i++ {
		if i%97 == 0 {
			keys = append(keys, append([]byte{}, s.Partition().Key...))
		}
	}
	for _, k := range keys { // warm up the caches, if any
		g, err := r.Get(k)
		if err != nil {
			b.Fatal(err)
		}
		for g.NextPartition() {
			for g.NextUnfiltered() {
			}
		}
		g.Release()
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		g, err := r.Get(keys[i%len(keys)])
		if err != nil {
			b.Fatal(err)
		}
		if !g.NextPartition() {
			b.Fatalf("key %x not found", keys[i%len(keys)])
		}
		for g.NextUnfiltered() {
		}
		g.Release()
	}
}
