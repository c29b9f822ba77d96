package corpus

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/sstable-flight/sstable-flight/internal/testkit/cassandratest"
)

// BenchKeyspace holds the benchmark tables: narrow (text key, ~100-byte
// text value, one row per partition, LZ4) and wide (int key, 1,000 rows
// per partition), each compacted into a single SSTable, and gens (the
// narrow shape with every partition written in three flushed generations).
const BenchKeyspace = "bench"

// GenerateBench writes rows narrow rows and as many wide rows through the
// node and copies both tables to dir/<keyspace>/<table>-<id>/. It is not
// part of the committed corpus: it is sized for benchmarks (make bench).
func GenerateBench(ctx context.Context, n *cassandratest.Node, dir string, rows int, log func(string, ...any)) error {
	s, err := n.Session()
	if err != nil {
		return err
	}
	defer s.Close()
	for _, q := range []string{
		"DROP KEYSPACE IF EXISTS " + BenchKeyspace,
		"CREATE KEYSPACE " + BenchKeyspace + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE bench.narrow (k text PRIMARY KEY, v text) WITH compression = {'class': 'LZ4Compressor'}",
		"CREATE TABLE bench.wide (p int, c int, v text, PRIMARY KEY (p, c)) WITH compression = {'class': 'LZ4Compressor'}",
		"CREATE TABLE bench.gens (k text PRIMARY KEY, v text) WITH compression = {'class': 'LZ4Compressor'}",
	} {
		if err := s.Query(q).Exec(); err != nil {
			return fmt.Errorf("create bench schema: %s: %w", q, err)
		}
	}
	if err := n.DisableAutoCompaction(ctx, BenchKeyspace); err != nil {
		return err
	}
	pad := strings.Repeat("v", 88)
	start := time.Now()
	err = parallel(rows/100, 8, func(i int) error {
		b := s.Batch(gocql.UnloggedBatch)
		for j := range 100 {
			r := i*100 + j
			b.Query("INSERT INTO bench.narrow (k, v) VALUES (?, ?)", fmt.Sprintf("key-%010d", r), fmt.Sprintf("%s%010d", pad, r))
		}
		return s.ExecuteBatch(b)
	})
	if err != nil {
		return fmt.Errorf("write bench.narrow: %w", err)
	}
	log("bench: %d narrow rows in %s", rows, time.Since(start).Round(time.Millisecond))
	start = time.Now()
	err = parallel(rows/100, 8, func(i int) error {
		b := s.Batch(gocql.UnloggedBatch)
		p, c0 := i/10, (i%10)*100
		for c := c0; c < c0+100; c++ {
			b.Query("INSERT INTO bench.wide (p, c, v) VALUES (?, ?, ?)", p, c, fmt.Sprintf("%s%010d", pad, c))
		}
		return s.ExecuteBatch(b)
	})
	if err != nil {
		return fmt.Errorf("write bench.wide: %w", err)
	}
	log("bench: %d wide rows in %s", rows, time.Since(start).Round(time.Millisecond))
	if err := n.Flush(ctx, BenchKeyspace); err != nil {
		return err
	}
	if err := n.Compact(ctx, BenchKeyspace, "narrow", "wide"); err != nil {
		return err
	}
	// bench.gens: rows/3 partitions, every one rewritten in each of three
	// flushed generations: the merge path's workload.
	start = time.Now()
	for gen := range 3 {
		err = parallel(rows/300, 8, func(i int) error {
			b := s.Batch(gocql.UnloggedBatch)
			for j := range 100 {
				r := i*100 + j
				b.Query("INSERT INTO bench.gens (k, v) VALUES (?, ?)", fmt.Sprintf("key-%010d", r), fmt.Sprintf("%s%d-%010d", pad, gen, r))
			}
			return s.ExecuteBatch(b)
		})
		if err != nil {
			return fmt.Errorf("write bench.gens: %w", err)
		}
		if err := n.Flush(ctx, BenchKeyspace, "gens"); err != nil {
			return err
		}
	}
	log("bench: %d gens rows (3 generations) in %s", rows, time.Since(start).Round(time.Millisecond))
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("clear bench dir: %w", err)
	}
	base, err := measureCQL(s, rows)
	if err != nil {
		return err
	}
	log("bench: CQL baseline %+v", base)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create bench dir: %w", err)
	}
	b, _ := json.MarshalIndent(base, "", "  ")
	if err := os.WriteFile(filepath.Join(dir, "cql-baseline.json"), b, 0o644); err != nil {
		return fmt.Errorf("write CQL baseline: %w", err)
	}
	for _, t := range []string{"narrow", "wide", "gens"} {
		var id gocql.UUID
		if err := s.Query("SELECT id FROM system_schema.tables WHERE keyspace_name = ? AND table_name = ?", BenchKeyspace, t).Scan(&id); err != nil {
			return fmt.Errorf("read id of bench.%s: %w", t, err)
		}
		name := t + "-" + strings.ReplaceAll(id.String(), "-", "")
		src := filepath.Join(n.DataDir(), BenchKeyspace, name)
		dst := filepath.Join(dir, BenchKeyspace, name)
		if err := os.MkdirAll(dst, 0o755); err != nil {
			return fmt.Errorf("create bench dir: %w", err)
		}
		entries, err := os.ReadDir(src)
		if err != nil {
			return fmt.Errorf("list bench table: %w", err)
		}
		for _, e := range entries {
			if e.Type().IsRegular() {
				if err := copyFile(filepath.Join(src, e.Name()), filepath.Join(dst, e.Name())); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// parallel runs fn(0..n-1) on workers goroutines; the first error wins.
func parallel(n, workers int, fn func(i int) error) error {
	var wg sync.WaitGroup
	var once sync.Once
	var first error
	next := make(chan int)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if err := fn(i); err != nil {
					once.Do(func() { first = err })
				}
			}
		}()
	}
	for i := range n {
		if first != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	return first
}

// GenerateBenchMode starts a node in the mode, writes the bench tables and
// stops it.
func GenerateBenchMode(ctx context.Context, mode cassandratest.Mode, dir string, rows int, log func(string, ...any)) error {
	n, err := cassandratest.Start(ctx, cassandratest.Options{Mode: mode, HeapMB: 1536})
	if err != nil {
		return err
	}
	err = GenerateBench(ctx, n, dir, rows, log)
	if stopErr := n.Stop(); stopErr != nil && err == nil {
		err = stopErr
	}
	return err
}

// CQLBaseline is Cassandra's own read path on the bench tables, measured
// in the same run as the data was written: what our reader is compared to.
type CQLBaseline struct {
	NarrowScanRowsPerSec float64 `json:"narrow_scan_rows_per_sec"`
	WideScanRowsPerSec   float64 `json:"wide_scan_rows_per_sec"`
	PointReadP50Micros   float64 `json:"point_read_p50_us"`
	PointReadMeanMicros  float64 `json:"point_read_mean_us"`
	PointReads           int     `json:"point_reads"`
}

// measureCQL times full-table scans (SELECT over every row, 5,000-row
// pages, through gocql) and sequential warm point reads by key.
func measureCQL(s *gocql.Session, rows int) (CQLBaseline, error) {
	var out CQLBaseline
	scan := func(q string) (float64, error) {
		start := time.Now()
		it := s.Query(q).PageSize(5000).Iter()
		var a, b any
		n := 0
		for it.Scan(&a, &b) {
			n++
		}
		if err := it.Close(); err != nil {
			return 0, fmt.Errorf("%s: %w", q, err)
		}
		if n != rows {
			return 0, fmt.Errorf("%s: %d rows, want %d", q, n, rows)
		}
		return float64(n) / time.Since(start).Seconds(), nil
	}
	var err error
	if out.NarrowScanRowsPerSec, err = scan("SELECT k, v FROM bench.narrow"); err != nil {
		return out, err
	}
	if out.WideScanRowsPerSec, err = scan("SELECT c, v FROM bench.wide"); err != nil {
		return out, err
	}
	rng := rand.New(rand.NewPCG(3, 5))
	q := s.Query("SELECT v FROM bench.narrow WHERE k = ?")
	var lat []float64
	var v string
	for i := range 3000 {
		key := fmt.Sprintf("key-%010d", rng.IntN(rows))
		start := time.Now()
		if err := q.Bind(key).Scan(&v); err != nil {
			return out, fmt.Errorf("point read %s: %w", key, err)
		}
		if i >= 1000 { // the first thousand warm the caches
			lat = append(lat, float64(time.Since(start).Microseconds()))
		}
	}
	sort.Float64s(lat)
	sum := 0.0
	for _, l := range lat {
		sum += l
	}
	out.PointReads = len(lat)
	out.PointReadP50Micros = lat[len(lat)/2]
	out.PointReadMeanMicros = sum / float64(len(lat))
	return out, nil
}
