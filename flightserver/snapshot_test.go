package flightserver_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/sstable-flight/sstable-flight/flightserver"
	"github.com/sstable-flight/sstable-flight/internal/testkit/corpus"
	"github.com/sstable-flight/sstable-flight/snapshot"
)

// copyCorpusTable copies one oa corpus table into a fresh data directory
// (Cassandra's layout) and returns the data directory.
func copyCorpusTable(t *testing.T, table string) string {
	t.Helper()
	return copyCorpusTables(t, "oa", table)
}

// copyCorpusTables copies tables of one format's corpus (their files, not
// the sstabledump and sstablemetadata directories) into a new data
// directory and returns it.
func copyCorpusTables(t *testing.T, format string, tables ...string) string {
	t.Helper()
	data := filepath.Join(t.TempDir(), "data")
	for _, table := range tables {
		src, _ := filepath.Glob(filepath.Join(corpusRoot(), format, "corpus", table+"-*"))
		if len(src) != 1 {
			t.Fatalf("corpus table %s/%s: %v", format, table, src)
		}
		corpus.CopyDir(t, src[0], filepath.Join(data, "corpus", filepath.Base(src[0])))
	}
	return data
}

// TestSnapshotEpochMetrics: in hard-link mode, queries within one window
// share one snapshot and, after the window, an unchanged table reopens
// no reader; the metrics prove both. Shutdown removes the snapshots.
func TestSnapshotEpochMetrics(t *testing.T) {
	data := copyCorpusTable(t, "deletions")
	snaps := filepath.Join(filepath.Dir(data), "snaps")
	const window = 2 * time.Second
	ts := startServer(t, "oa", func(c *flightserver.Config) {
		c.DataDir = data
		c.Snapshot = snapshot.Config{Mode: snapshot.Hardlink, Dir: snaps, Window: window}
	})
	metric := adminMetric(t, ts)
	ctx := context.Background()
	query := func() int64 {
		info, err := ts.client.GetFlightInfo(ctx, path("corpus", "deletions"))
		if err != nil {
			t.Fatal(err)
		}
		var n int64
		for _, r := range ts.readAll(t, info) {
			n += r.NumRows()
		}
		return n
	}
	start := time.Now()
	want := query()
	for range 9 {
		if got := query(); got != want {
			t.Fatalf("%d rows, first query %d", got, want)
		}
	}
	if took := time.Since(start); took >= window {
		t.Fatalf("10 queries took %v, longer than the %v window the test relies on", took, window)
	}
	if got := metric("sstf_snapshot_epochs_cut_total"); got != "1" {
		t.Fatalf("10 queries in one window cut %s epochs, want 1", got)
	}
	opened := metric("sstf_readers_opened_total")
	if opened != "3" {
		t.Fatalf("%s readers opened, want the table's 3", opened)
	}
	entries, _ := filepath.Glob(filepath.Join(snaps, "corpus", "deletions-*", "*", "*-Data.db"))
	if len(entries) != 3 {
		t.Fatalf("snapshot holds %v, want 3 linked Data.db", entries)
	}
	time.Sleep(window)
	query()
	if got := metric("sstf_readers_opened_total"); got != opened {
		t.Fatalf("after the window, an unchanged table: %s readers opened, want still %s", got, opened)
	}
	if got := metric("sstf_snapshot_epochs_cut_total"); got != "1" {
		t.Fatalf("after the window, an unchanged table: %s epochs cut, want 1", got)
	}
	// 11 plans: one cut the epoch, the rest found it (streams look
	// their ticket's epoch up by ID, which is not a hit or a miss).
	if got := metric(`sstf_reader_cache_total{result="hit"}`); got != "10" {
		t.Fatalf("epoch hits: %s, want 10", got)
	}
}
