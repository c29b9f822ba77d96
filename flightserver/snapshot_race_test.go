package flightserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/sstable-flight/sstable-flight/flightserver"
	"github.com/sstable-flight/sstable-flight/flightserver/catalog"
	"github.com/sstable-flight/sstable-flight/flightserver/tables"
	"github.com/sstable-flight/sstable-flight/internal/testkit/cassandratest"
	"github.com/sstable-flight/sstable-flight/snapshot"
)

// raceModel is the race table's expected content after each write: CQL's
// view had a flush happened right then. The test flushes after every
// batch, but Cassandra may also flush on its own between two writes
// (memtable memory, other tests' load on the shared node), and what a
// flush captures is always the writes so far, in order. So every prefix
// of the writes is a flush point a scan may see; a mix of two, or a
// half-merged row, is none of them.
type raceModel struct {
	rows   map[[2]int]string // (k, c) → "b|v"
	states []string          // rendered table after each write, in order (0: empty)
}

// mark records the table as the writes so far left it.
func (m *raceModel) mark() {
	if st := sortedState(m.render()); st != m.states[len(m.states)-1] {
		m.states = append(m.states, st)
	}
}

func (m *raceModel) render() string {
	keys := make([][2]int, 0, len(m.rows))
	for k := range m.rows {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b [2]int) int {
		if a[0] != b[0] {
			return a[0] - b[0]
		}
		return a[1] - b[1]
	})
	var sb strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&sb, "%d|%d|%s\n", k[0], k[1], m.rows[k])
	}
	return sb.String()
}

const (
	raceKeys       = 40
	raceClustering = 4
)

// raceBatch writes batch b (every deletion kind, explicit timestamps so
// no two writes tie) and applies it to the model.
func raceBatch(s *gocql.Session, m *raceModel, b int) error {
	ts := int64(b) * 1_000_000
	exec := func(q string, args ...any) error {
		m.mark() // the previous write's effect is in the model now
		ts++
		// USING TIMESTAMP comes first in a DELETE, last in an INSERT.
		if strings.HasPrefix(q, "INSERT") {
			args = append(args, ts)
		} else {
			args = append([]any{ts}, args...)
		}
		if err := s.Query(q, args...).Exec(); err != nil {
			return fmt.Errorf("batch %d: %s: %w", b, q, err)
		}
		return nil
	}
	for k := range raceKeys {
		switch (k*7 + b*13) % 10 {
		case 0: // partition deletion
			if err := exec("DELETE FROM race.t USING TIMESTAMP ? WHERE k = ?", k); err != nil {
				return err
			}
			for c := range raceClustering {
				delete(m.rows, [2]int{k, c})
			}
		case 1: // range tombstone
			if err := exec("DELETE FROM race.t USING TIMESTAMP ? WHERE k = ? AND c >= 2", k); err != nil {
				return err
			}
			for c := 2; c < raceClustering; c++ {
				delete(m.rows, [2]int{k, c})
			}
		case 2: // row deletion
			c := b % raceClustering
			if err := exec("DELETE FROM race.t USING TIMESTAMP ? WHERE k = ? AND c = ?", k, c); err != nil {
				return err
			}
			delete(m.rows, [2]int{k, c})
		case 3: // cell tombstone: an INSERTed row stays, with v null
			c := (b + 1) % raceClustering
			if err := exec("DELETE v FROM race.t USING TIMESTAMP ? WHERE k = ? AND c = ?", k, c); err != nil {
				return err
			}
			if r, ok := m.rows[[2]int{k, c}]; ok {
				m.rows[[2]int{k, c}] = r[:strings.IndexByte(r, '|')] + "|null"
			}
		default:
			for c := range raceClustering {
				if (c+b)%2 != 0 {
					continue
				}
				v := fmt.Sprintf("v%d-%d-%d", b, k, c)
				if err := exec("INSERT INTO race.t (k, c, b, v) VALUES (?, ?, ?, ?) USING TIMESTAMP ?", k, c, b, v); err != nil {
					return err
				}
				m.rows[[2]int{k, c}] = fmt.Sprintf("%d|%s", b, v)
			}
		}
	}
	m.mark()
	return nil
}

// scanRace reads race.t through the server, all splits, rendered as
// the model renders.
func scanRace(ctx context.Context, c flight.Client, splits int) (string, error) {
	rows, err := readCommand(ctx, c, map[string]any{"version": 1, "keyspace": "race", "table": "t", "splits": splits}, renderRace)
	if err != nil {
		return "", err
	}
	slices.Sort(rows) // splits come in token order, the model in key order
	for i := 1; i < len(rows); i++ {
		if rows[i] == rows[i-1] {
			return "", fmt.Errorf("duplicated row %q", rows[i])
		}
	}
	return strings.Join(rows, ""), nil
}

// readCommand plans a JSON command and reads every endpoint it returns,
// each batch's rows rendered by render.
func readCommand(ctx context.Context, c flight.Client, cmd map[string]any, render func(arrow.RecordBatch) []string) ([]string, error) {
	body, _ := json.Marshal(cmd)
	info, err := c.GetFlightInfo(ctx, &flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: body})
	if err != nil {
		return nil, fmt.Errorf("plan: %w", err)
	}
	var rows []string
	for _, ep := range info.Endpoint {
		stream, err := c.DoGet(ctx, ep.Ticket)
		if err != nil {
			return nil, fmt.Errorf("doget: %w", err)
		}
		rd, err := flight.NewRecordReader(stream)
		if err != nil {
			if errors.Is(err, io.EOF) {
				continue
			}
			return nil, fmt.Errorf("read: %w", err)
		}
		for rd.Next() {
			rows = append(rows, render(rd.RecordBatch())...)
		}
		err = rd.Err()
		rd.Release()
		if err != nil {
			return nil, fmt.Errorf("read: %w", err)
		}
	}
	return rows, nil
}

func renderRace(r arrow.RecordBatch) []string {
	col := func(name string) arrow.Array { return r.Column(r.Schema().FieldIndices(name)[0]) }
	k, c, b, v := col("k").(*array.Int32), col("c").(*array.Int32), col("b").(*array.Int32), col("v").(*array.String)
	out := make([]string, r.NumRows())
	for i := range out {
		vs := "null"
		if v.IsValid(i) {
			vs = v.Value(i)
		}
		out[i] = fmt.Sprintf("%d|%d|%d|%s\n", k.Value(i), c.Value(i), b.Value(i), vs)
	}
	return out
}

// sortedState orders a rendered state's lines as scanRace does.
func sortedState(s string) string {
	lines := strings.SplitAfter(s, "\n")
	slices.Sort(lines)
	return strings.Join(lines, "")
}

// liveSnapshotServer runs the statements on the shared node and starts a
// server over the node's data directory in hard-link mode (snapshots
// beside the data directory, one directory per test), schemas from the
// node. The session closes with the test.
func liveSnapshotServer(t *testing.T, sc snapshot.Config, stmts ...string) (*cassandratest.Node, *gocql.Session, *testServer) {
	t.Helper()
	node := cassandratest.Shared(t)
	s, err := node.Session()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	cassandratest.Exec(t, s, stmts...)
	sc.Mode = snapshot.Hardlink
	sc.Dir = filepath.Join(filepath.Dir(node.DataDir()), "sstf-snapshots-"+t.Name())
	cat := catalog.New(catalog.Options{Session: s})
	ts := startServer(t, "oa", func(c *flightserver.Config) {
		c.DataDir = node.DataDir()
		c.Schemas = tables.NewCatalogSchemas(cat)
		c.Snapshot = sc
	})
	return node, s, ts
}

// TestSnapshotsRaceFlushesAndCompactions is issue #6's race test: a writer
// applies batches of inserts, updates and deletes of every kind to a real
// node, flushing after each, while compactions run in a loop; scanners
// read the table through the server (hard-link snapshots, several splits
// per query) the whole time. Every scan must equal the table as it was
// at one flush point (after some prefix of the writes, raceModel), never
// a mix, never a duplicated row, never an error, and each scanner's flush
// points never go back in time.
func TestSnapshotsRaceFlushesAndCompactions(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	node, s, ts := liveSnapshotServer(t, snapshot.Config{Window: 200 * time.Millisecond, Grace: 5 * time.Second},
		"DROP KEYSPACE IF EXISTS race",
		"CREATE KEYSPACE race WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE race.t (k int, c int, b int, v text, PRIMARY KEY (k, c))")

	m := &raceModel{rows: map[[2]int]string{}, states: []string{""}}
	const batches = 10

	// The writer alone touches m until it is done.
	writerDone := make(chan struct{})
	var writeErr, compactErr error
	go func() {
		defer close(writerDone)
		for b := 1; b <= batches; b++ {
			if writeErr = raceBatch(s, m, b); writeErr != nil {
				return
			}
			if writeErr = node.Flush(ctx, "race", "t"); writeErr != nil {
				return
			}
		}
	}()
	compactDone := make(chan struct{})
	go func() {
		defer close(compactDone)
		for {
			select {
			case <-writerDone:
				return
			default:
			}
			if err := node.Compact(ctx, "race", "t"); err != nil {
				compactErr = err
				return
			}
		}
	}()

	// Scans are judged once every flush point is known: a scan may see a
	// flush the writer's model has not recorded yet.
	type result struct {
		got []string
		err error
	}
	results := make(chan result, 2)
	for range 2 {
		go func() {
			var got []string
			for {
				select {
				case <-writerDone:
					results <- result{got, nil}
					return
				default:
				}
				rows, err := scanRace(ctx, ts.client, 3)
				if err != nil {
					results <- result{err: fmt.Errorf("scan %d: %w", len(got), err)}
					return
				}
				got = append(got, rows)
				time.Sleep(20 * time.Millisecond) // leave CPU to the node's flushes and compactions
			}
		}()
	}
	var scanned [][]string
	for range 2 {
		r := <-results
		if r.err != nil {
			t.Error(r.err)
		}
		scanned = append(scanned, r.got)
	}
	<-compactDone
	if writeErr != nil || compactErr != nil {
		t.Fatalf("writer: %v; compactor: %v", writeErr, compactErr)
	}
	index := map[string]int{}
	for i, st := range m.states {
		if _, dup := index[st]; !dup {
			index[st] = i
		}
	}
	scans, seen := 0, map[int]bool{}
	for _, got := range scanned {
		last := 0
		for n, rows := range got {
			at, ok := index[rows]
			if !ok {
				t.Fatalf("scan %d equals no flush point (of %d):\n%s", n, len(m.states), rows)
			}
			if at < last {
				t.Fatalf("scan %d saw flush point %d after %d", n, at, last)
			}
			last = at
			seen[at] = true
			scans++
		}
	}
	t.Logf("%d scans saw %d distinct flush points among %d (writes) in %d batches", scans, len(seen), len(m.states), batches)
	if scans < 10 || len(seen) < 3 {
		t.Errorf("%d scans over %d flush points: the race did not happen", scans, len(seen))
	}

	// The model is CQL's view: check the last state against SELECT.
	var cql []string
	iter := s.Query("SELECT k, c, b, v FROM race.t").Iter()
	var k, c, b int
	var v *string
	for iter.Scan(&k, &c, &b, &v) {
		vs := "null"
		if v != nil {
			vs = *v
		}
		cql = append(cql, fmt.Sprintf("%d|%d|%d|%s\n", k, c, b, vs))
	}
	if err := iter.Close(); err != nil {
		t.Fatal(err)
	}
	slices.Sort(cql)
	final := m.states[len(m.states)-1]
	if strings.Join(cql, "") != final {
		t.Fatalf("the model's last state differs from CQL:\nmodel:\n%s\ncql:\n%s", final, strings.Join(cql, ""))
	}
	// After the window the server sees the last flush.
	time.Sleep(300 * time.Millisecond)
	got, err := scanRace(ctx, ts.client, 1)
	if err != nil {
		t.Fatal(err)
	}
	if got != final {
		t.Fatalf("scan after the last flush and the window:\n%s\nwant:\n%s", got, final)
	}
}

// TestFreshnessAfterFlush measures issue #6's staleness bound with the
// default window: a query just before the flush cuts an epoch, so the
// write waits for the longest time the window allows. A write flushed at
// T (nodetool flush returned) must be visible to every query started
// after T + window + 1 s; the time to the first query that sees it is
// logged (docs/PERFORMANCE.md records it).
func TestFreshnessAfterFlush(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	node, s, ts := liveSnapshotServer(t, snapshot.Config{},
		"CREATE KEYSPACE IF NOT EXISTS fresh WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"DROP TABLE IF EXISTS fresh.t",
		"CREATE TABLE fresh.t (k int PRIMARY KEY, v int)")
	count := func() (int64, error) {
		body, _ := json.Marshal(map[string]any{"version": 1, "keyspace": "fresh", "table": "t", "columns": []string{"k"}})
		info, err := ts.client.GetFlightInfo(ctx, &flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: body})
		if err != nil {
			if strings.Contains(err.Error(), "NotFound") {
				return 0, nil // no SSTable yet: the table directory may not exist
			}
			return 0, err
		}
		var n int64
		for _, ep := range info.Endpoint {
			stream, err := ts.client.DoGet(ctx, ep.Ticket)
			if err != nil {
				return 0, err
			}
			rd, err := flight.NewRecordReader(stream)
			if err != nil {
				return 0, err
			}
			for rd.Next() {
				n += rd.RecordBatch().NumRows()
			}
			err = rd.Err()
			rd.Release()
			if err != nil {
				return 0, err
			}
		}
		return n, nil
	}
	window := snapshot.DefaultWindow
	var worst time.Duration
	for i := 1; i <= 3; i++ {
		if err := s.Query("INSERT INTO fresh.t (k, v) VALUES (?, ?)", i, i).Exec(); err != nil {
			t.Fatal(err)
		}
		if _, err := count(); err != nil { // cuts (or keeps) an epoch just before the flush
			t.Fatal(err)
		}
		if err := node.Flush(ctx, "fresh", "t"); err != nil {
			t.Fatal(err)
		}
		flushed := time.Now()
		for {
			start := time.Now()
			n, err := count()
			if err != nil {
				t.Fatal(err)
			}
			if n == int64(i) {
				lag := max(0, start.Sub(flushed))
				worst = max(worst, lag)
				t.Logf("write %d: first seen by a query started %v after its flush returned", i, lag.Round(time.Millisecond))
				break
			}
			if start.Sub(flushed) > window+time.Second {
				t.Fatalf("write %d: a query started %v after its flush returned sees %d rows, want %d", i, start.Sub(flushed), n, i)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	t.Logf("freshness: worst %v with a %v window (bound %v)", worst.Round(time.Millisecond), window, window+time.Second)

	// Without nodetool: a table with memtable_flush_period_in_ms flushes
	// itself, so a write shows within that period plus the window (the
	// guidance docs/operations.md gives, measured here).
	const period = 2 * time.Second
	if err := s.Query(fmt.Sprintf("ALTER TABLE fresh.t WITH memtable_flush_period_in_ms = %d", period.Milliseconds())).Exec(); err != nil {
		t.Fatal(err)
	}
	if err := s.Query("INSERT INTO fresh.t (k, v) VALUES (?, ?)", 100, 100).Exec(); err != nil {
		t.Fatal(err)
	}
	written := time.Now()
	for {
		start := time.Now()
		n, err := count()
		if err != nil {
			t.Fatal(err)
		}
		if n == 4 {
			t.Logf("memtable_flush_period_in_ms = %d: a write was first seen by a query started %v after it (bound %v)",
				period.Milliseconds(), start.Sub(written).Round(time.Millisecond), period+window+time.Second)
			break
		}
		// NB: Cassandra's periodic flush runs on a timer per table, so
		// the first flush may come up to one period after the write,
		// and a flush that finds the memtable clean waits another.
		if start.Sub(written) > 2*period+window+2*time.Second {
			t.Fatalf("memtable_flush_period_in_ms = %d: %d rows %v after the write, want 4", period.Milliseconds(), n, start.Sub(written))
		}
		time.Sleep(100 * time.Millisecond)
	}
}
