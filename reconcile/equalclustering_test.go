package reconcile_test

import (
	"bytes"
	"cmp"
	"context"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/sstable-flight/sstable-flight/internal/testkit/cassandratest"
	"github.com/sstable-flight/sstable-flight/reconcile"
	"github.com/sstable-flight/sstable-flight/reconcile/reconciletest"
	"github.com/sstable-flight/sstable-flight/sstable"
	"github.com/sstable-flight/sstable-flight/sstable/marshal"
)

const equalKeyspace = "reconcile_equal_clustering"

// TestEqualClusteringBytesMatchCQL writes one clustering in several
// SSTables with values the comparator calls equal but whose bytes differ
// (NaNs with different payloads, decimals with different scales) and
// checks that the merged row carries the bytes CQL's point lookup of that
// clustering returns (WHERE p = 1 AND c = ...): those of the SSTable with
// the greatest maximum write time, the earlier-flushed one on a tie. The
// layouts make that SSTable the first, a middle and the last generation,
// one whose partition starts earlier than the others' and one that ties,
// so no reader order passes by chance. Full scans, key reads and slices
// must all agree. (CQL's own partition reads and range scans of the same
// data disagree with its point lookup and with each other: see
// orderSources.)
func TestEqualClusteringBytesMatchCQL(t *testing.T) {
	n := cassandratest.Shared(t)
	s, err := n.Session()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	exec := func(q string) {
		t.Helper()
		if err := s.Query(q).Exec(); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	exec("DROP KEYSPACE IF EXISTS " + equalKeyspace)
	exec("CREATE KEYSPACE " + equalKeyspace + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")

	nan := func(payload, ts int) string {
		return fmt.Sprintf("INSERT INTO %%s (p, c, v) VALUES (1, blobAsDouble(0x7ff800000000000%d), %d) USING TIMESTAMP %d", payload, payload, ts)
	}
	double := func(c string, ts int) string {
		return fmt.Sprintf("INSERT INTO %%s (p, c, v) VALUES (1, %s, 0) USING TIMESTAMP %d", c, ts)
	}
	dec := func(c string, ts int) string {
		return fmt.Sprintf("INSERT INTO %%s (p, c, v) VALUES (1, %s, %d) USING TIMESTAMP %d", c, ts, ts)
	}
	type layout struct {
		name, ctype, lookup, asBlob string
		sstables                    [][]string // statements per SSTable, in flush order
	}
	layouts := []layout{
		// Write times rise with the flushes: the newest SSTable is last.
		{"rising", "double", "NaN", "doubleAsBlob", [][]string{{nan(1, 10), double("1.0", 10)}, {nan(2, 20)}, {nan(3, 30), double("1.0", 30)}, {nan(4, 40)}}},
		// The first flush carries the latest write time.
		{"falling", "double", "NaN", "doubleAsBlob", [][]string{{nan(1, 20)}, {nan(2, 10)}}},
		// The oldest SSTable's partition starts with another row.
		{"earlier_row", "double", "NaN", "doubleAsBlob", [][]string{{double("1.0", 10), nan(2, 10)}, {nan(1, 20)}}},
		// The newest is a middle generation, and the oldest has a range
		// deletion (older than its rows) before the clustering.
		{"middle", "double", "NaN", "doubleAsBlob", [][]string{
			{nan(1, 10), "DELETE FROM %s USING TIMESTAMP 5 WHERE p = 1 AND c > 5.0"},
			{nan(2, 30), double("1.0", 30)},
			{nan(3, 20)}}},
		// Equal write times: the earlier flush.
		{"tie", "double", "NaN", "doubleAsBlob", [][]string{{nan(1, 10)}, {nan(2, 10)}}},
		// Decimal ignores the scale: 1.0, 1.00 and 1 are one clustering.
		{"decimal", "decimal", "1", "decimalAsBlob", [][]string{{dec("1.0", 10)}, {dec("1.00", 30)}, {dec("1", 20)}}},
	}
	var tables []string
	for _, l := range layouts {
		exec(fmt.Sprintf("CREATE TABLE %s.%s (p int, c %s, v int, PRIMARY KEY (p, c))", equalKeyspace, l.name, l.ctype))
		tables = append(tables, l.name)
	}
	if err := n.DisableAutoCompaction(ctx, equalKeyspace, tables...); err != nil {
		t.Fatal(err)
	}
	for round := 0; ; round++ {
		wrote := false
		for _, l := range layouts {
			if round < len(l.sstables) {
				for _, q := range l.sstables[round] {
					exec(fmt.Sprintf(q, equalKeyspace+"."+l.name))
				}
				wrote = true
			}
		}
		if !wrote {
			break
		}
		if err := n.Flush(ctx, equalKeyspace, tables...); err != nil {
			t.Fatal(err)
		}
	}

	for _, l := range layouts {
		t.Run(l.name, func(t *testing.T) {
			var want []byte
			q := fmt.Sprintf("SELECT %s(c) FROM %s.%s WHERE p = 1 AND c = %s", l.asBlob, equalKeyspace, l.name, l.lookup)
			if err := s.Query(q).Scan(&want); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			readers := openTable(t, s, n, equalKeyspace, l.name, len(l.sstables))
			table, err := reconciletest.TableOf(readers)
			if err != nil {
				t.Fatal(err)
			}
			opts := reconcile.Options{Now: time.Now().Unix()}
			key := []byte{0, 0, 0, 1}
			for _, read := range []struct {
				name string
				open func() (*reconcile.Merger, error)
			}{
				{"scan", func() (*reconcile.Merger, error) { return reconcile.New(table, readers, opts) }},
				{"key", func() (*reconcile.Merger, error) { return reconcile.NewKey(table, readers, opts, key) }},
				{"slice", func() (*reconcile.Merger, error) {
					return reconcile.NewSlice(table, readers, opts, key, sstable.Slice{Start: sstable.Bound{Values: [][]byte{want}, Inclusive: true}})
				}},
			} {
				t.Run(read.name, func(t *testing.T) {
					var got []byte
					for _, r := range collect(t, read.open) {
						if r.clustering != nil && marshal.Compare(table.Clustering[0], r.clustering[0], want) == 0 {
							got = r.clustering[0]
						}
					}
					if !bytes.Equal(got, want) {
						t.Errorf("%s: clustering %s, CQL's %s returns %s", read.name, hex.EncodeToString(got), q, hex.EncodeToString(want))
					}
				})
			}
		})
	}
	if !t.Failed() {
		exec("DROP KEYSPACE IF EXISTS " + equalKeyspace)
	}
}

// openTable opens the SSTables of a table of the node, oldest first (the
// order the snapshot package lists them in), and checks there are want.
func openTable(t *testing.T, s *gocql.Session, n *cassandratest.Node, keyspace, table string, want int) []*sstable.Reader {
	t.Helper()
	var id gocql.UUID
	if err := s.Query("SELECT id FROM system_schema.tables WHERE keyspace_name = ? AND table_name = ?", keyspace, table).Scan(&id); err != nil {
		t.Fatalf("table id of %s.%s: %v", keyspace, table, err)
	}
	files, err := filepath.Glob(filepath.Join(n.DataDir(), keyspace, table+"-"+hex.EncodeToString(id[:]), "*-Data.db"))
	if err != nil {
		t.Fatal(err)
	}
	// Generations: a longer name is a later one, as in package snapshot.
	slices.SortFunc(files, func(a, b string) int { return cmp.Or(cmp.Compare(len(a), len(b)), strings.Compare(a, b)) })
	if len(files) != want {
		t.Fatalf("%s.%s: %d SSTables, want %d: %v", keyspace, table, len(files), want, files)
	}
	var readers []*sstable.Reader
	for _, f := range files {
		r, err := sstable.Open(f, sstable.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { r.Close() })
		readers = append(readers, r)
	}
	return readers
}
