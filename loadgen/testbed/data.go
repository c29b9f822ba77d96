package testbed

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
)

// Dataset is the benchmarks' data: a narrow key-value table and a
// time-series table, written through CQL and major-compacted to one
// SSTable each, so both arms read what Cassandra itself wrote.
type Dataset struct {
	Keyspace           string `json:"keyspace"`
	KVRows             int    `json:"kv_rows"`       // kv (k text PRIMARY KEY, v text)
	ValueBytes         int    `json:"value_bytes"`   // length of kv.v
	TSPartitions       int    `json:"ts_partitions"` // ts (series text, at timestamp, v double, tag text, PRIMARY KEY (series, at))
	TSRowsPerPartition int    `json:"ts_rows_per_partition"`

	// What the data directory held after generation.
	Reused       bool         `json:"reused"`        // -reuse found the expected rows
	WriteSeconds float64      `json:"write_seconds"` // CQL writes, flush and compaction
	Tables       []TableFiles `json:"tables"`
}

// TableFiles is one table's SSTables on disk.
type TableFiles struct {
	Table     string `json:"table"`
	Dir       string `json:"dir"`
	SSTables  int    `json:"sstables"`
	DataBytes int64  `json:"data_bytes"` // Data.db, compressed
	Bytes     int64  `json:"bytes"`      // every component
}

// NodeTool is what generation needs of the node beyond CQL; a
// cassandratest.Node is one.
type NodeTool interface {
	Flush(ctx context.Context, keyspace string, tables ...string) error
	Compact(ctx context.Context, keyspace string, tables ...string) error
	DisableAutoCompaction(ctx context.Context, keyspace string, tables ...string) error
}

// The dataset's tables.
const (
	KVTable = "kv"
	TSTable = "ts"
)

// KVKey is kv's key of row i; TSSeries is ts's partition key p.
func KVKey(i int) string    { return fmt.Sprintf("k%010d", i) }
func TSSeries(p int) string { return fmt.Sprintf("series-%08d", p) }

// tsEpoch is the first timestamp of every series; rows are a minute apart.
var tsEpoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Generate makes d's tables hold d's rows in one SSTable each. With
// reuse, tables that already hold the expected row counts are kept (and
// only compacted if they have more than one SSTable); otherwise the
// keyspace is dropped and written anew through batches on parallel
// workers, then flushed and compacted.
func Generate(ctx context.Context, s *gocql.Session, nt NodeTool, dataDir string, d *Dataset, reuse bool, log io.Writer) error {
	start := time.Now()
	if reuse {
		ok, err := hasRows(s, d)
		if err != nil {
			fmt.Fprintf(log, "dataset: reuse: %v; writing the data anew\n", err)
		}
		d.Reused = ok
	}
	if d.Reused {
		// Rows CQL counted may still be in a memtable, where the server
		// cannot see them.
		if err := nt.Flush(ctx, d.Keyspace); err != nil {
			return fmt.Errorf("flush %s: %w", d.Keyspace, err)
		}
	} else {
		if err := writeDataset(ctx, s, nt, d, log); err != nil {
			return err
		}
	}
	for _, t := range []string{KVTable, TSTable} {
		files, err := tableFiles(s, dataDir, d.Keyspace, t)
		if err != nil {
			return err
		}
		if files.SSTables != 1 {
			fmt.Fprintf(log, "dataset: %s has %d SSTables, compacting\n", files.Table, files.SSTables)
			if err := nt.Compact(ctx, d.Keyspace, t); err != nil {
				return fmt.Errorf("compact %s: %w", files.Table, err)
			}
			if files, err = tableFiles(s, dataDir, d.Keyspace, t); err != nil {
				return err
			}
			if files.SSTables != 1 {
				return fmt.Errorf("compact %s: %d SSTables after a major compaction, want 1", files.Table, files.SSTables)
			}
		}
		d.Tables = append(d.Tables, files)
	}
	d.WriteSeconds = time.Since(start).Seconds()
	return nil
}

// hasRows counts both tables' rows with paged CQL scans of their key
// columns. The scanner steps over each row without decoding it: only
// the count matters.
func hasRows(s *gocql.Session, d *Dataset) (bool, error) {
	for _, c := range []struct {
		q    string
		want int
	}{
		{"SELECT k FROM " + d.Keyspace + ".kv", d.KVRows},
		{"SELECT series FROM " + d.Keyspace + ".ts", d.TSPartitions * d.TSRowsPerPartition},
	} {
		sc := s.Query(c.q).PageSize(10_000).Iter().Scanner()
		n := 0
		for sc.Next() {
			n++
		}
		if err := sc.Err(); err != nil {
			return false, fmt.Errorf("count rows: %s: %w", c.q, err)
		}
		if n != c.want {
			return false, fmt.Errorf("count rows: %s: %d rows, want %d", c.q, n, c.want)
		}
	}
	return true, nil
}

func writeDataset(ctx context.Context, s *gocql.Session, nt NodeTool, d *Dataset, log io.Writer) error {
	ks := d.Keyspace
	for _, q := range []string{
		"DROP KEYSPACE IF EXISTS " + ks,
		"CREATE KEYSPACE " + ks + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE " + ks + ".kv (k text PRIMARY KEY, v text)",
		"CREATE TABLE " + ks + ".ts (series text, at timestamp, v double, tag text, PRIMARY KEY (series, at))",
	} {
		if err := s.Query(q).ExecContext(ctx); err != nil {
			return fmt.Errorf("create dataset schema: %s: %w", q, err)
		}
	}
	// Flushes during the writes stay separate until the one major
	// compaction at the end.
	if err := nt.DisableAutoCompaction(ctx, ks); err != nil {
		return fmt.Errorf("disable auto-compaction of %s: %w", ks, err)
	}
	t0 := time.Now()
	insKV := "INSERT INTO " + ks + ".kv (k, v) VALUES (?, ?)"
	err := writeBatches(ctx, s, d.KVRows, 100, log, "kv rows", func(b *gocql.Batch, i int) {
		b.Query(insKV, KVKey(i), kvValue(i, d.ValueBytes))
	})
	if err != nil {
		return fmt.Errorf("write %s.kv: %w", ks, err)
	}
	fmt.Fprintf(log, "dataset: %d kv rows in %s\n", d.KVRows, time.Since(t0).Round(time.Millisecond))
	t0 = time.Now()
	insTS := "INSERT INTO " + ks + ".ts (series, at, v, tag) VALUES (?, ?, ?, ?)"
	// A batch holds whole partitions, about a hundred rows.
	perBatch := max(1, 100/max(1, d.TSRowsPerPartition))
	err = writeBatches(ctx, s, d.TSPartitions, perBatch, log, "ts partitions", func(b *gocql.Batch, p int) {
		r := rand.New(rand.NewPCG(uint64(p), 2))
		for j := range d.TSRowsPerPartition {
			b.Query(insTS, TSSeries(p), tsEpoch.Add(time.Duration(j)*time.Minute), r.NormFloat64()*10+50, fmt.Sprintf("tag-%d", r.IntN(8)))
		}
	})
	if err != nil {
		return fmt.Errorf("write %s.ts: %w", ks, err)
	}
	fmt.Fprintf(log, "dataset: %d ts rows in %s\n", d.TSPartitions*d.TSRowsPerPartition, time.Since(t0).Round(time.Millisecond))
	t0 = time.Now()
	if err := nt.Flush(ctx, ks); err != nil {
		return fmt.Errorf("flush %s: %w", ks, err)
	}
	if err := nt.Compact(ctx, ks, KVTable, TSTable); err != nil {
		return fmt.Errorf("compact %s: %w", ks, err)
	}
	fmt.Fprintf(log, "dataset: flushed and compacted in %s\n", time.Since(t0).Round(time.Millisecond))
	return nil
}

// kvValue is kv's value of row i: n letters from a seeded stream, so
// the value compresses about as much as text does, not to nothing as a
// repeated letter would.
func kvValue(i, n int) string {
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 -"
	r := rand.New(rand.NewPCG(uint64(i), 1))
	var b strings.Builder
	b.Grow(n)
	for range n {
		b.WriteByte(alphabet[r.IntN(len(alphabet))])
	}
	return b.String()
}

// writeBatches writes items 0..n-1 in unlogged batches of per items on
// eight workers (Cassandra's own coordinator parallelism on a small
// machine), logging progress every tenth.
func writeBatches(ctx context.Context, s *gocql.Session, n, per int, log io.Writer, what string, add func(b *gocql.Batch, i int)) error {
	const workers = 8
	batches := (n + per - 1) / per
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		next, done atomic.Int64
		once       sync.Once
		first      error
		wg         sync.WaitGroup
	)
	step := max(1, int64(batches/10))
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				bi := int(next.Add(1) - 1)
				if bi >= batches {
					return
				}
				b := s.Batch(gocql.UnloggedBatch)
				for i := bi * per; i < min(n, (bi+1)*per); i++ {
					add(b, i)
				}
				if err := b.ExecContext(ctx); err != nil {
					once.Do(func() { first = err; cancel() })
					return
				}
				if d := done.Add(1); d%step == 0 && d < int64(batches) {
					fmt.Fprintf(log, "dataset: %d%% of %d %s\n", d*100/int64(batches), n, what)
				}
			}
		}()
	}
	wg.Wait()
	if first != nil {
		return first
	}
	return ctx.Err()
}

// tableFiles finds the table's directory by its id (a dropped
// table's directory may remain beside it) and sums its SSTables.
func tableFiles(s *gocql.Session, dataDir, ks, table string) (TableFiles, error) {
	f := TableFiles{Table: ks + "." + table}
	var id gocql.UUID
	if err := s.Query("SELECT id FROM system_schema.tables WHERE keyspace_name = ? AND table_name = ?", ks, table).Scan(&id); err != nil {
		return f, fmt.Errorf("read id of %s: %w", f.Table, err)
	}
	f.Dir = filepath.Join(dataDir, ks, table+"-"+strings.ReplaceAll(id.String(), "-", ""))
	entries, err := os.ReadDir(f.Dir)
	if err != nil {
		return f, fmt.Errorf("list %s: %w", f.Table, err)
	}
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		info, err := e.Info()
		if err != nil {
			return f, fmt.Errorf("list %s: %w", f.Table, err)
		}
		f.Bytes += info.Size()
		if strings.HasSuffix(e.Name(), "-Data.db") {
			f.SSTables++
			f.DataBytes += info.Size()
		}
	}
	return f, nil
}
