package overlay_test

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/sstable-flight/sstable-flight/commitlog"
	"github.com/sstable-flight/sstable-flight/internal/testkit/canon"
	"github.com/sstable-flight/sstable-flight/internal/testkit/cassandratest"
	"github.com/sstable-flight/sstable-flight/overlay"
	"github.com/sstable-flight/sstable-flight/reconcile"
	"github.com/sstable-flight/sstable-flight/reconcile/reconciletest"
	"github.com/sstable-flight/sstable-flight/sstable"
	"github.com/sstable-flight/sstable-flight/sstable/marshal"
	"github.com/sstable-flight/sstable-flight/sstable/metadata"
)

// TestRunsMatchCQL: a table written through CQL in three steps (a row of
// every column, flushed; more writes, flushed; then overwrites, deletes
// of every kind, TTLs and collection updates, never flushed), read from
// its SSTables plus the overlay's runs of the commit log, equals SELECT
// JSON * at the same time: the unflushed writes are there, each exactly
// once, with Cassandra's rules applied across SSTables and runs.
func TestRunsMatchCQL(t *testing.T) {
	n := cassandratest.Shared(t)
	ctx := context.Background()
	s := n.FreshKeyspace(t, "overlay_it",
		"CREATE TABLE overlay_it.t (p int, c int, st int static, v text, m map<text, int>, l list<int>, PRIMARY KEY (p, c))")
	exec := func(qs ...string) { cassandratest.Exec(t, s, qs...) }
	exec("INSERT INTO overlay_it.t (p, c, st, v, m, l) VALUES (0, 0, 0, 'seed', {'a': 1}, [1])")
	if err := n.Flush(ctx, "overlay_it", "t"); err != nil {
		t.Fatal(err)
	}
	for p := range 6 {
		for c := range 4 {
			exec(fmt.Sprintf("INSERT INTO overlay_it.t (p, c, v, m) VALUES (%d, %d, 'flushed-%d-%d', {'x': %d})", p, c, p, c, c))
		}
	}
	if err := n.Flush(ctx, "overlay_it", "t"); err != nil {
		t.Fatal(err)
	}
	exec(
		"UPDATE overlay_it.t SET v = 'again-1' WHERE p = 1 AND c = 1",
		"UPDATE overlay_it.t SET v = 'again-2' WHERE p = 1 AND c = 1",  // a second update of the same row
		"UPDATE overlay_it.t SET m['y'] = 5 WHERE p = 1 AND c = 2",     // a collection element added
		"UPDATE overlay_it.t SET m = m - {'x'} WHERE p = 1 AND c = 3",  // one removed
		"UPDATE overlay_it.t SET l = l + [7, 8] WHERE p = 1 AND c = 0", // list appends
		"DELETE FROM overlay_it.t WHERE p = 2 AND c = 1",               // a row
		"DELETE FROM overlay_it.t WHERE p = 3 AND c >= 1 AND c < 3",    // a range
		"DELETE FROM overlay_it.t WHERE p = 4",                         // a partition
		"INSERT INTO overlay_it.t (p, c, v) VALUES (4, 9, 'after the partition delete')",
		"UPDATE overlay_it.t SET st = 42 WHERE p = 5", // a static column
		"INSERT INTO overlay_it.t (p, c, v) VALUES (7, 0, 'only in the log') USING TTL 3600",
		"UPDATE overlay_it.t SET v = null WHERE p = 0 AND c = 0", // a cell tombstone
		"INSERT INTO overlay_it.t (p, c, v) VALUES (8, 1, 'new partition')",
	)

	var id gocql.UUID
	if err := s.Query("SELECT id FROM system_schema.tables WHERE keyspace_name = 'overlay_it' AND table_name = 't'").Scan(&id); err != nil {
		t.Fatal(err)
	}
	var host gocql.UUID
	if err := s.Query("SELECT host_id FROM system.local").Scan(&host); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(n.DataDir(), "overlay_it", "t-"+hex.EncodeToString(id[:]))
	readers, err := openSSTables(dir)
	if err != nil {
		t.Fatal(err)
	}
	header := fullHeader(readers)
	closeAll(readers)
	tid, err := commitlog.ParseTableID(hex.EncodeToString(id[:]))
	if err != nil {
		t.Fatal(err)
	}
	ov := overlay.New(overlay.Config{Dir: filepath.Join(n.Dir, "commitlog"),
		Tables: map[commitlog.TableID]overlay.Table{tid: {Name: "overlay_it.t", Header: header}}})

	// Each round reads the table as a query would: the SSTables listed
	// now (a flush or compaction by anyone may change them), the log
	// polled after, and the runs of what those SSTables do not hold.
	deadline := time.Now().Add(20 * time.Second)
	for {
		readers, err := openSSTables(dir)
		if err != nil {
			t.Logf("list the SSTables again: %v", err) // one compacted away under us
			time.Sleep(200 * time.Millisecond)
			continue
		}
		if err := ov.Poll(); err != nil {
			t.Fatal(err)
		}
		var stats []*metadata.StatsMetadata
		for _, r := range readers {
			stats = append(stats, &r.Stats.Stats)
		}
		persisted, _ := commitlog.NewPersisted(metadata.UUID(host), stats, commitlog.NoPosition)
		runs, _, err := ov.Runs(tid, persisted)
		if err != nil {
			t.Fatal(err)
		}
		now := time.Now().Unix()
		got := mergedJSON(t, append(append([]*sstable.Reader{}, readers...), runs...), now)
		want := cqlJSON(t, s)
		closeAll(runs)
		closeAll(readers)
		if reflect.DeepEqual(got, want) {
			t.Logf("%d runs, %d bytes kept; %d rows", len(runs), ov.Bytes(), len(got))
			if len(runs) < 2 {
				t.Errorf("%d runs: the row updated twice should need two", len(runs))
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 20 s of polls the merge differs from CQL:\n got %v\nwant %v", got, want)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func openSSTables(dir string) ([]*sstable.Reader, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*-Data.db"))
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("the table's SSTables in %s: %v %v", dir, files, err)
	}
	var rs []*sstable.Reader
	for _, f := range files {
		r, err := sstable.Open(f, sstable.Options{})
		if err != nil {
			closeAll(rs)
			return nil, err
		}
		rs = append(rs, r)
	}
	return rs, nil
}

func closeAll(rs []*sstable.Reader) {
	for _, r := range rs {
		r.Close()
	}
}

// fullHeader is the header of the SSTable with the most columns: the
// first flush wrote a row of every column.
func fullHeader(rs []*sstable.Reader) metadata.SerializationHeader {
	best := rs[0].Stats.Header
	for _, r := range rs[1:] {
		h := r.Stats.Header
		if len(h.StaticColumns)+len(h.RegularColumns) > len(best.StaticColumns)+len(best.RegularColumns) {
			best = h
		}
	}
	return best
}

// mergedJSON merges the readers and renders each row as SELECT JSON does
// for these types.
func mergedJSON(t *testing.T, rs []*sstable.Reader, now int64) []map[string]any {
	t.Helper()
	table, err := reconciletest.TableOf(rs)
	if err != nil {
		t.Fatal(err)
	}
	m, err := reconcile.New(table, rs, reconcile.Options{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Release()
	var out []map[string]any
	for m.Next() {
		r := m.Row()
		row := map[string]any{}
		p, err := canon.Value(rs[0].Schema.Key, r.Key)
		if err != nil {
			t.Fatal(err)
		}
		row["p"] = p
		row["c"] = nil
		if r.Clustering != nil {
			if row["c"], err = canon.Value(table.Clustering[0], r.Clustering[0]); err != nil {
				t.Fatal(err)
			}
		}
		for i, col := range table.Columns {
			v, err := canon.Value(col.Type, r.Values[i].Bytes)
			if err != nil {
				t.Fatal(err)
			}
			if col.Type.Kind == marshal.Map && v != nil {
				obj := map[string]any{}
				for _, kv := range v.([]any) {
					pair := kv.([]any)
					obj[fmt.Sprint(pair[0])] = pair[1]
				}
				v = obj
			}
			row[col.Name] = v
		}
		out = append(out, normalize(t, row))
	}
	if err := m.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func cqlJSON(t *testing.T, s *gocql.Session) []map[string]any {
	t.Helper()
	var out []map[string]any
	it := s.Query("SELECT JSON * FROM overlay_it.t").Iter()
	var js string
	for it.Scan(&js) {
		var row map[string]any
		if err := json.Unmarshal([]byte(js), &row); err != nil {
			t.Fatal(err)
		}
		out = append(out, normalize(t, row))
	}
	if err := it.Close(); err != nil {
		t.Fatal(err)
	}
	return out
}

// normalize passes a row through JSON so both sides have JSON's types;
// an empty collection is null, as CQL returns it.
func normalize(t *testing.T, row map[string]any) map[string]any {
	t.Helper()
	for k, v := range row {
		switch x := v.(type) {
		case []any:
			if len(x) == 0 {
				row[k] = nil
			}
		case map[string]any:
			if len(x) == 0 {
				row[k] = nil
			}
		}
	}
	b, err := json.Marshal(row)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}
