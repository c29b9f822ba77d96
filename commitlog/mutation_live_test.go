package commitlog_test

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/sstable-flight/sstable-flight/commitlog"
	"github.com/sstable-flight/sstable-flight/internal/testkit/cassandratest"
	"github.com/sstable-flight/sstable-flight/sstable"
)

const mutKeyspace = "cl_mutation"

// mutDDL covers what a mutation can carry: simple columns of several
// types, a static column, clustering columns ascending and descending,
// non-frozen list, set, map and UDT, a column with a non-ASCII name, and
// a counter table.
var mutDDL = []string{
	"CREATE TYPE cl_mutation.addr (street text, num int)",
	`CREATE TABLE cl_mutation.t (k text, c1 int, c2 text, s int static, i int, bi bigint, b boolean, d double,
		txt text, ts timestamp, u uuid, bl blob, l list<int>, st set<text>, m map<text, int>, a addr, "é" int,
		PRIMARY KEY (k, c1, c2)) WITH CLUSTERING ORDER BY (c1 ASC, c2 DESC)`,
	"CREATE TABLE cl_mutation.cnt (k int PRIMARY KEY, n counter, n2 counter)",
}

// mutWorkload returns the statements, one mutation each, with explicit
// timestamps from base: the first ones write table t, the last two cnt.
func mutWorkload(base int64) (t, cnt []string) {
	ts := func(i int) string { return fmt.Sprint(base + int64(i)) }
	t = []string{
		`INSERT INTO cl_mutation.t (k, c1, c2, s, i, bi, b, d, txt, ts, u, bl, "é") VALUES ('simple', 1, 'a', 7, 42, -5, true, 1.5, 'héllo', '2024-01-02 03:04:05+0000', 6f1c1a8e-6b4d-4c1a-9a55-0f2c3d4e5f60, 0xcafe, 9) USING TIMESTAMP ` + ts(1),
		`INSERT INTO cl_mutation.t (k, c1, c2, i) VALUES ('simple', 2, 'b', 43) USING TIMESTAMP ` + ts(2),
		`UPDATE cl_mutation.t USING TIMESTAMP ` + ts(3) + ` SET l = [1, 2, 3], st = {'x', 'y'}, m = {'a': 1, 'b': 2}, a = {street: 'main', num: 5} WHERE k = 'coll' AND c1 = 1 AND c2 = 'z'`,
		`UPDATE cl_mutation.t USING TIMESTAMP ` + ts(4) + ` SET st = st - {'x'}, l = l + [4], a.num = 6 WHERE k = 'coll' AND c1 = 1 AND c2 = 'z'`,
		`DELETE m['a'] FROM cl_mutation.t USING TIMESTAMP ` + ts(5) + ` WHERE k = 'coll' AND c1 = 1 AND c2 = 'z'`,
		`DELETE l[0] FROM cl_mutation.t USING TIMESTAMP ` + ts(6) + ` WHERE k = 'coll' AND c1 = 1 AND c2 = 'z'`,
		`INSERT INTO cl_mutation.t (k, c1, c2, txt) VALUES ('ttl', 1, 'a', 'bye') USING TTL 3600 AND TIMESTAMP ` + ts(7),
		`UPDATE cl_mutation.t USING TTL 600 AND TIMESTAMP ` + ts(8) + ` SET i = 5 WHERE k = 'ttl' AND c1 = 2 AND c2 = 'b'`,
		`DELETE FROM cl_mutation.t USING TIMESTAMP ` + ts(9) + ` WHERE k = 'rowdel' AND c1 = 1 AND c2 = 'a'`,
		`DELETE FROM cl_mutation.t USING TIMESTAMP ` + ts(10) + ` WHERE k = 'rangedel' AND c1 >= 2 AND c1 < 5`,
		`DELETE FROM cl_mutation.t USING TIMESTAMP ` + ts(11) + ` WHERE k = 'rangedel' AND c1 = 7`,
		`DELETE FROM cl_mutation.t USING TIMESTAMP ` + ts(12) + ` WHERE k = 'partdel'`,
		`DELETE i FROM cl_mutation.t USING TIMESTAMP ` + ts(13) + ` WHERE k = 'celldel' AND c1 = 1 AND c2 = 'a'`,
		`DELETE l FROM cl_mutation.t USING TIMESTAMP ` + ts(14) + ` WHERE k = 'celldel' AND c1 = 1 AND c2 = 'a'`,
		`UPDATE cl_mutation.t USING TIMESTAMP ` + ts(15) + ` SET s = 99 WHERE k = 'staticonly'`,
		`INSERT INTO cl_mutation.t (k, c1, c2, bl, txt) VALUES ('empty', 1, '', 0x, '') USING TIMESTAMP ` + ts(16),
	}
	cnt = []string{
		`UPDATE cl_mutation.cnt SET n = n + 5 WHERE k = 1`,
		`UPDATE cl_mutation.cnt SET n = n - 2, n2 = n2 + 1 WHERE k = 2`,
	}
	return t, cnt
}

// logEntry is a copied entry of one of the test's tables.
type logEntry struct {
	mutation []byte
	version  int
	pos      commitlog.Position
}

// TestDecodeLive writes every kind of mutation through CQL to the shared
// node (read-only on its directories), reads them back from its commit
// log, decodes them with the types of the tables' flushed SSTables, and
// compares them, merged per partition, with what the SSTable reader
// yields after a flush. Only this test's tables are judged; a flush by
// another test at any time splits the data over more SSTables, which
// are merged alike.
func TestDecodeLive(t *testing.T) {
	n := cassandratest.Shared(t)
	runDecodeLive(t, n)
}

// TestDecodeLiveV7 runs TestDecodeLive's workload on a node writing
// commit log version 7 (messaging version 12, storage_compatibility_mode
// CASSANDRA_4, the mode nb): a private node, unless the shared one is
// already of that mode.
func TestDecodeLiveV7(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Cassandra node of its own")
	}
	if cassandratest.Shared(t).Mode == cassandratest.ModeNB {
		t.Skip("the shared node writes version 7: TestDecodeLive covers it")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	n, err := cassandratest.Start(ctx, cassandratest.Options{Mode: cassandratest.ModeNB, HeapMB: 512})
	if err != nil {
		t.Fatalf("start an nb node: %v", err)
	}
	t.Cleanup(func() {
		if err := n.Stop(); err != nil {
			t.Errorf("stop cassandra pid %d: %v", n.Pid, err)
		}
	})
	runDecodeLive(t, n)
}

func runDecodeLive(t *testing.T, n *cassandratest.Node) {
	s := n.FreshKeyspace(t, mutKeyspace, mutDDL...)
	ids := map[string]commitlog.TableID{}
	for _, tb := range []string{"t", "cnt"} {
		var u gocql.UUID
		if err := s.Query("SELECT id FROM system_schema.tables WHERE keyspace_name = ? AND table_name = ?", mutKeyspace, tb).Scan(&u); err != nil {
			t.Fatal(err)
		}
		ids[tb] = commitlog.TableID(u)
	}
	base := time.Now().UnixMicro()
	tq, cq := mutWorkload(base)
	cassandratest.Exec(t, s, tq...)
	cassandratest.Exec(t, s, cq...)

	entries := readTables(t, filepath.Join(n.Dir, "commitlog"), ids, len(tq)+len(cq))
	wantVersion := 13
	if n.Mode == cassandratest.ModeNB {
		wantVersion = 12
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := n.Flush(ctx, mutKeyspace, "t", "cnt"); err != nil {
		t.Fatal(err)
	}
	schemas := commitlog.SchemaMap{}
	fromSSTables := map[commitlog.TableID]view{}
	for name, id := range ids {
		ts, v := readSSTables(t, filepath.Join(n.DataDir(), mutKeyspace, name+"-"+id.String()))
		ts.Name = mutKeyspace + "." + name
		schemas[id] = ts
		fromSSTables[id] = v
	}

	dec := commitlog.NewDecoder(schemas)
	fromLog := map[commitlog.TableID]view{}
	for _, e := range entries {
		if e.version != wantVersion {
			t.Errorf("entry at %+v: messaging version %d, want %d", e.pos, e.version, wantVersion)
		}
		ups, err := decodeAll(dec, e.mutation, e.version)
		if err != nil {
			t.Fatalf("entry at %+v: %v", e.pos, err)
		}
		for _, u := range ups {
			v := fromLog[u.table]
			if v == nil {
				v = view{}
				fromLog[u.table] = v
			}
			v.add(u.key, u.deletion, u.rows)
		}
	}
	for name, id := range ids {
		got, want := fromLog[id].lines(), fromSSTables[id].lines()
		if !slices.Equal(got, want) {
			t.Errorf("table %s: the commit log decodes to\n%s\nthe SSTables hold\n%s", name, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
	// CQL's own view of a TTL and a write time.
	var wt, ttl int64
	if err := s.Query("SELECT WRITETIME(i), TTL(i) FROM cl_mutation.t WHERE k = 'ttl' AND c1 = 2 AND c2 = 'b'").Scan(&wt, &ttl); err != nil {
		t.Fatal(err)
	}
	ttlRow := fromLog[ids["t"]]["ttl"].rows[clusteringKey([][]byte{be32(2), []byte("b")})]
	c := ttlRow.cells["i/"]
	if c.timestamp != wt || c.ttl != 600 || ttl > 600 || ttl < 500 || c.localDeletionTime-time.Now().Unix() > 600 || c.localDeletionTime-time.Now().Unix() < ttl-2 {
		t.Errorf("decoded cell %+v; CQL says WRITETIME %d, TTL %d", c, wt, ttl)
	}
	if len(fromLog[ids["t"]]) != 9 || len(fromLog[ids["cnt"]]) != 2 {
		t.Errorf("decoded %d partitions of t, %d of cnt", len(fromLog[ids["t"]]), len(fromLog[ids["cnt"]]))
	}
}

// readTables reads the node's commit log until it holds want entries of
// the tables, copying them: entries are gathered across readings, since
// a flush by another test may delete a segment at any time.
func readTables(t *testing.T, dir string, ids map[string]commitlog.TableID, want int) []logEntry {
	t.Helper()
	seen := map[commitlog.Position]logEntry{}
	deadline := time.Now().Add(30 * time.Second)
	for {
		segs, err := commitlog.ListDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for i, sg := range segs {
			r, err := commitlog.Open(sg.Path, commitlog.Options{Live: i >= len(segs)-2})
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			for r.Next() {
				e := r.Entry()
				if _, ok := seen[e.Position]; ok || len(e.Mutation) < 1+tableIDLen {
					continue
				}
				for _, id := range ids {
					if ofTable(e.Mutation, id[:]) {
						seen[e.Position] = logEntry{mutation: cp(e.Mutation), version: r.MessagingVersion(), pos: e.Position}
					}
				}
			}
			if err := r.Err(); err != nil {
				t.Fatalf("%s: %v", sg.Path, err)
			}
			r.Close()
		}
		if len(seen) >= want {
			break
		}
		if time.Now().After(deadline) {
			t.Skipf("after 30 s the commit log holds %d of the %d mutations written (a flush by another test deleted segments?)", len(seen), want)
		}
		time.Sleep(100 * time.Millisecond)
	}
	out := make([]logEntry, 0, len(seen))
	for _, e := range seen {
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b logEntry) int { return a.pos.Compare(b.pos) })
	return out
}

const tableIDLen = 16

// readSSTables reads every SSTable of a table directory: the union of
// their headers' types as a TableSchema, and their merged contents.
func readSSTables(t *testing.T, dir string) (*commitlog.TableSchema, view) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*-Data.db"))
	if err != nil || len(files) == 0 {
		ents, _ := os.ReadDir(dir)
		t.Fatalf("no Data.db in %s (%v): %v", dir, err, ents)
	}
	ts := &commitlog.TableSchema{Columns: map[string]string{}}
	v := view{}
	for _, f := range files {
		r, err := sstable.Open(f, sstable.Options{})
		if err != nil {
			t.Fatal(err)
		}
		h := r.Stats.Header
		ts.Key, ts.Clustering = h.KeyType, h.ClusteringTypes
		for _, c := range append(slices.Clone(h.StaticColumns), h.RegularColumns...) {
			ts.Columns[c.Name] = c.Type
		}
		sc := r.Scan()
		for sc.NextPartition() {
			ph := sc.Partition()
			var rows []decodedRow
			for sc.NextUnfiltered() {
				rows = append(rows, copyRow(sc.Unfiltered(), r.Schema))
			}
			v.add(cp(ph.Key), ph.Deletion, rows)
		}
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
		sc.Release()
		r.Close()
	}
	return ts, v
}

func copyRow(x *sstable.Unfiltered, s *sstable.Schema) decodedRow {
	r := decodedRow{static: x.Static, marker: x.Marker, liveness: x.Liveness, deletion: x.Deletion,
		kind: x.Kind, markerDel: x.MarkerDel, markerEndDel: x.MarkerEndDel}
	for _, c := range x.Clustering {
		r.clustering = append(r.clustering, cp(c))
	}
	cols := s.Columns(x.Static)
	for _, c := range x.Cells {
		r.cells = append(r.cells, decodedCell{column: cols[c.Column].Name, flags: c.Flags, timestamp: c.Timestamp,
			ttl: c.TTL, localDeletionTime: c.LocalDeletionTime, path: cp(c.Path), value: cp(c.Value)})
	}
	for _, cd := range x.Complex {
		if r.complex == nil {
			r.complex = map[string]sstable.DeletionTime{}
		}
		r.complex[cols[cd.Column].Name] = cd.Deletion
	}
	return r
}

// view is a table's partitions merged as a memtable merges writes, as
// far as this test's workload needs: the newest cell of each column and
// path wins (a tombstone on a tie), the newest deletion of each kind.
type view map[string]*partView

type partView struct {
	deletion sstable.DeletionTime
	rows     map[string]*rowView
	markers  map[string]bool
}

type rowView struct {
	liveness sstable.LivenessInfo
	deletion sstable.DeletionTime
	complex  map[string]sstable.DeletionTime
	cells    map[string]decodedCell // by column/hex path
}

func clusteringKey(cl [][]byte) string {
	var parts []string
	for _, c := range cl {
		if c == nil {
			parts = append(parts, "null")
		} else {
			parts = append(parts, hex.EncodeToString(c))
		}
	}
	return "[" + strings.Join(parts, ",") + "]"
}

func newer(a, b sstable.DeletionTime) sstable.DeletionTime {
	if b.MarkedForDeleteAt > a.MarkedForDeleteAt {
		return b
	}
	return a
}

func (v view) add(key []byte, del sstable.DeletionTime, rows []decodedRow) {
	p := v[string(key)]
	if p == nil {
		p = &partView{deletion: sstable.LiveDeletion, rows: map[string]*rowView{}, markers: map[string]bool{}}
		v[string(key)] = p
	}
	p.deletion = newer(p.deletion, del)
	for _, r := range rows {
		ck := clusteringKey(r.clustering)
		if r.static {
			// NB: Data.db has a static row in every partition of a
			// table with static columns, empty when none was written.
			if len(r.cells) == 0 && len(r.complex) == 0 && r.deletion.Live() && r.liveness.Timestamp == sstable.NoTimestamp {
				continue
			}
			ck = "static"
		}
		if r.marker {
			p.markers[fmt.Sprintf("marker %s kind %d del %+v end %+v", ck, r.kind, r.markerDel, r.markerEndDel)] = true
			continue
		}
		rv := p.rows[ck]
		if rv == nil {
			rv = &rowView{liveness: sstable.LivenessInfo{Timestamp: sstable.NoTimestamp}, deletion: sstable.LiveDeletion,
				complex: map[string]sstable.DeletionTime{}, cells: map[string]decodedCell{}}
			p.rows[ck] = rv
		}
		if r.liveness.Timestamp > rv.liveness.Timestamp {
			rv.liveness = r.liveness
		}
		rv.deletion = newer(rv.deletion, r.deletion)
		for col, d := range r.complex {
			if old, ok := rv.complex[col]; ok {
				d = newer(old, d)
			}
			rv.complex[col] = d
		}
		for _, c := range r.cells {
			c.flags &= 0x07 // deleted, expiring, empty: 0x08 and 0x10 only say how it was encoded
			k := c.column + "/" + hex.EncodeToString(c.path)
			old, ok := rv.cells[k]
			if !ok || c.timestamp > old.timestamp || c.timestamp == old.timestamp && c.flags&0x01 != 0 {
				rv.cells[k] = c
			}
		}
	}
}

// lines renders the view, sorted.
func (v view) lines() []string {
	var out []string
	for k, p := range v {
		pk := hex.EncodeToString([]byte(k))
		out = append(out, fmt.Sprintf("%s deletion %+v", pk, p.deletion))
		for m := range p.markers {
			out = append(out, pk+" "+m)
		}
		for ck, r := range p.rows {
			out = append(out, fmt.Sprintf("%s row %s liveness %+v deletion %+v complex %v", pk, ck, r.liveness, r.deletion, r.complex))
			for ek, c := range r.cells {
				out = append(out, fmt.Sprintf("%s row %s cell %s flags %#x ts %d ttl %d ldt %d value %x", pk, ck, ek, c.flags, c.timestamp, c.ttl, c.localDeletionTime, c.value))
			}
		}
	}
	slices.Sort(out)
	return out
}
