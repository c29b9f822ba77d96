package snapshot

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sstable-flight/sstable-flight/internal/testkit/testclock"
	"github.com/sstable-flight/sstable-flight/snapshot/sidecar"
	"github.com/sstable-flight/sstable-flight/snapshot/sidecar/sidecartest"
)

// sidecarSnapshots lists the snapshot directories Cassandra (the fake)
// holds for the table.
func sidecarSnapshots(t *testing.T, td TableDir) []string {
	t.Helper()
	dirs, _ := filepath.Glob(filepath.Join(td.Path, "snapshots", "*"))
	return dirs
}

// TestSidecarEpochs: in Sidecar mode an epoch is a Cassandra snapshot
// read over HTTP; after the window an unchanged table keeps its epoch and
// the new snapshot is dropped at once; a changed one gets a new epoch;
// an unknown table is ErrNoTable; the snapshots a killed server left are
// cleared at the next start; Close clears the rest.
func TestSidecarEpochs(t *testing.T) {
	live := liveTable(t, "1", "2")
	side := sidecartest.New(filepath.Dir(filepath.Dir(live.Path)))
	defer side.Close()
	state := filepath.Join(t.TempDir(), "state")
	c := testclock.New(time.Unix(1_800_000_000, 0))
	cfg := Config{Mode: Sidecar, Sidecar: side.Client(sidecar.Options{}), Dir: state, Now: c.Now}
	m, err := NewManager(cfg)
	if err != nil {
		t.Fatal(err)
	}
	td := SidecarTable("ks", "t")
	first, err := m.Acquire(td)
	if err != nil {
		t.Fatal(err)
	}
	if got := prefixes(first); got != "oa-1-big,oa-2-big" || len(first.Readers) != 2 {
		t.Fatalf("sidecar epoch holds %s (%d readers)", got, len(first.Readers))
	}
	want := scanAll(t, first)
	if n := len(sidecarSnapshots(t, live)); n != 1 {
		t.Fatalf("%d snapshots after the first query, want 1", n)
	}
	first.Release()

	c.Add(DefaultSidecarWindow)
	again, err := m.Acquire(td)
	if err != nil {
		t.Fatal(err)
	}
	if again != first || len(sidecarSnapshots(t, live)) != 1 {
		t.Fatalf("unchanged table after the window: epoch %s (first %s), %d snapshots", again.ID, first.ID, len(sidecarSnapshots(t, live)))
	}
	again.Release()

	addGeneration(t, live.Path, "3")
	c.Add(DefaultSidecarWindow)
	next, err := m.Acquire(td)
	if err != nil {
		t.Fatal(err)
	}
	if next == first || prefixes(next) != "oa-1-big,oa-2-big,oa-3-big" {
		t.Fatalf("after a flush: epoch %s with %s", next.ID, prefixes(next))
	}
	if got := scanAll(t, next); got <= want {
		t.Fatalf("new epoch reads %d unfiltereds, the old one %d", got, want)
	}
	if _, err := m.Acquire(SidecarTable("ks", "nope")); !errors.Is(err, ErrNoTable) {
		t.Fatalf("unknown table: %v", err)
	}

	// A crash: the process is gone without Close. Its snapshots stay in
	// Cassandra until the next start reads the journal.
	m.root.close()
	if n := len(sidecarSnapshots(t, live)); n != 2 {
		t.Fatalf("%d snapshots before the restart, want 2", n)
	}
	m2, err := NewManager(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if left := sidecarSnapshots(t, live); len(left) != 0 {
		t.Fatalf("snapshots after the restart: %v", left)
	}
	e, err := m2.Acquire(td)
	if err != nil {
		t.Fatal(err)
	}
	e.Release()
	if err := m2.Close(); err != nil {
		t.Fatal(err)
	}
	if left := sidecarSnapshots(t, live); len(left) != 0 {
		t.Fatalf("snapshots after close: %v", left)
	}
	b, _ := os.ReadFile(filepath.Join(state, journalFile))
	if strings.TrimSpace(string(b)) != "" {
		t.Fatalf("journal after close: %q", b)
	}
	next.Release()
	m.Close() // the crashed manager's janitor; its snapshots are gone already
}
