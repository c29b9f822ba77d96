package snapshot

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sstable-flight/sstable-flight/internal/testkit/corpus"
	"github.com/sstable-flight/sstable-flight/internal/testkit/testclock"
	"github.com/sstable-flight/sstable-flight/sstable"
)

// liveTable copies the given generations of the corpus' deletions table
// (three real oa SSTables) into a fresh data directory, as Cassandra's
// layout, and returns its TableDir.
func liveTable(t *testing.T, gens ...string) TableDir {
	t.Helper()
	base := t.TempDir()
	dir := filepath.Join(base, "data", "ks", "t-0123456789abcdef0123456789abcdef")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, g := range gens {
		addGeneration(t, dir, g)
	}
	return TableDir{Keyspace: "ks", Table: "t", ID: "0123456789abcdef0123456789abcdef", Path: dir}
}

// addGeneration copies oa-<gen>-big-* of the corpus table into dir: what
// a flush leaves behind.
func addGeneration(t *testing.T, dir, gen string) {
	t.Helper()
	src, _ := filepath.Glob(filepath.Join("..", "testdata", "corpus", "oa", "corpus", "deletions-*", "oa-"+gen+"-big-*"))
	if len(src) == 0 {
		t.Fatalf("no corpus generation %s", gen)
	}
	corpus.CopyFiles(t, dir, src...)
}

// removeGeneration deletes oa-<gen>-big-* from dir: what a compaction
// does to its inputs.
func removeGeneration(t *testing.T, dir, gen string) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "oa-"+gen+"-big-*"))
	for _, f := range files {
		if err := os.Remove(f); err != nil {
			t.Fatal(err)
		}
	}
}

func newTestManager(t *testing.T, td TableDir, mutate ...func(*Config)) (*Manager, *testclock.Clock) {
	t.Helper()
	c := testclock.New(time.Unix(1_800_000_000, 0))
	cfg := Config{
		DataDir: filepath.Dir(filepath.Dir(td.Path)),
		Dir:     filepath.Join(filepath.Dir(filepath.Dir(filepath.Dir(td.Path))), "snaps"),
		Now:     c.Now,
	}
	for _, f := range mutate {
		f(&cfg)
	}
	m, err := NewManager(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := m.Close(); err != nil {
			t.Error(err)
		}
	})
	return m, c
}

func acquire(t *testing.T, m *Manager, td TableDir) *Epoch {
	t.Helper()
	e, err := m.Acquire(td)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// scanAll reads every unfiltered of the epoch's readers: the files must
// still be readable however the live directory changed.
func scanAll(t *testing.T, e *Epoch) int {
	t.Helper()
	n := 0
	for _, r := range e.Readers {
		s := r.Scan()
		for s.NextPartition() {
			for s.NextUnfiltered() {
				n++
			}
		}
		if err := s.Err(); err != nil {
			t.Fatal(err)
		}
	}
	return n
}

func prefixes(e *Epoch) string {
	var p []string
	for _, st := range e.Table.SSTables {
		p = append(p, st.Prefix)
	}
	return strings.Join(p, ",")
}

// TestQueriesInOneWindowShareOneEpoch: N acquisitions within the window
// cut one snapshot; after the window an unchanged table keeps its epoch
// and reopens nothing.
func TestQueriesInOneWindowShareOneEpoch(t *testing.T) {
	td := liveTable(t, "1", "2")
	m, c := newTestManager(t, td)
	first := acquire(t, m, td)
	for range 20 {
		e := acquire(t, m, td)
		if e != first {
			t.Fatalf("epoch %s within the window, want %s", e.ID, first.ID)
		}
		e.Release()
		c.Add(100 * time.Millisecond)
	}
	c.Add(DefaultWindow)
	again := acquire(t, m, td)
	defer again.Release()
	first.Release()
	st := m.Stats()
	if again != first || st.EpochsCut != 1 || st.ReadersOpened != 2 {
		t.Fatalf("unchanged table after the window: epoch %s (first %s), stats %+v; want the same epoch, 1 cut, 2 readers opened", again.ID, first.ID, st)
	}
	if got := prefixes(first); got != "oa-1-big,oa-2-big" {
		t.Fatalf("epoch holds %s", got)
	}
	// The epoch's files are links in our directory, not Cassandra's.
	if !strings.HasPrefix(first.Dir, m.Dir()) {
		t.Fatalf("epoch dir %s not under %s", first.Dir, m.Dir())
	}
	for _, r := range first.Readers {
		if _, err := os.Stat(filepath.Join(first.Dir, r.Desc.Prefix()+"-Index.db")); err != nil {
			t.Fatal(err)
		}
	}
}

// TestEpochSurvivesFlushAndCompaction: a flush adds an SSTable and a
// compaction deletes the old ones while a scan holds an epoch; the scan
// reads its epoch whole, the next window's epoch sees the new set and
// reuses the readers of the files it shares.
func TestEpochSurvivesFlushAndCompaction(t *testing.T) {
	td := liveTable(t, "1", "2")
	m, c := newTestManager(t, td)
	old := acquire(t, m, td)
	want := scanAll(t, old)

	addGeneration(t, td.Path, "3")
	removeGeneration(t, td.Path, "1")
	if got := scanAll(t, old); got != want {
		t.Fatalf("epoch scan after compaction: %d unfiltereds, want %d", got, want)
	}
	c.Add(DefaultWindow)
	cur := acquire(t, m, td)
	if cur == old || prefixes(cur) != "oa-2-big,oa-3-big" {
		t.Fatalf("after the window: epoch %s with %s, want a new one with oa-2, oa-3", cur.ID, prefixes(cur))
	}
	st := m.Stats()
	if st.EpochsCut != 2 || st.ReadersOpened != 3 || st.ReadersReused != 1 {
		t.Fatalf("stats %+v: want 2 cuts, 3 readers opened, 1 reused", st)
	}
	// The superseded epoch stays while leased and for the grace period.
	c.Add(time.Hour)
	m.Sweep()
	if _, err := os.Stat(old.Dir); err != nil {
		t.Fatalf("leased epoch removed: %v", err)
	}
	old.Release()
	c.Add(DefaultGrace - time.Second)
	m.Sweep()
	if _, err := m.Lookup("ks", "t", old.ID); err != nil {
		t.Fatalf("superseded epoch within its grace period: %v", err)
	} else {
		old.Release() // a use: the grace period starts again
	}
	c.Add(DefaultGrace)
	m.Sweep()
	if _, err := os.Stat(old.Dir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("superseded epoch after its grace period: %v, want its directory gone", err)
	}
	if _, err := m.Lookup("ks", "t", old.ID); !errors.Is(err, ErrEpochGone) {
		t.Fatalf("lookup of a retired epoch: %v, want ErrEpochGone", err)
	}
	if st := m.Stats(); st.Readers != 2 || st.Epochs != 1 {
		t.Fatalf("stats %+v: want 2 open readers (oa-1's closed) and 1 epoch", st)
	}
	cur.Release()
}

// TestLookupChecksTheTable: a ticket's epoch must be of its table.
func TestLookupChecksTheTable(t *testing.T) {
	td := liveTable(t, "1")
	m, _ := newTestManager(t, td)
	e := acquire(t, m, td)
	defer e.Release()
	if _, err := m.Lookup("ks", "other", e.ID); !errors.Is(err, ErrEpochGone) {
		t.Fatalf("epoch of another table: %v", err)
	}
	if _, err := m.Lookup("ks", "t", "nope-1"); !errors.Is(err, ErrEpochGone) {
		t.Fatalf("unknown epoch: %v", err)
	}
}

// TestPinnedBytesForceRetirement: files Cassandra deleted but our links
// keep are counted, and above the cap superseded epochs go at once.
func TestPinnedBytesForceRetirement(t *testing.T) {
	td := liveTable(t, "1", "2")
	m, c := newTestManager(t, td, func(cfg *Config) { cfg.PinnedCap = 1 })
	old := acquire(t, m, td)
	old.Release()
	removeGeneration(t, td.Path, "1")
	c.Add(DefaultWindow)
	cur := acquire(t, m, td)
	defer cur.Release()
	c.Add(pinnedEvery)
	m.Sweep() // counts, finds old pinning oa-1 above the cap, retires it
	st := m.Stats()
	if st.ForcedRetired != 1 {
		t.Fatalf("stats %+v: want the superseded epoch retired by the cap", st)
	}
	if st.PinnedBytes <= 0 {
		t.Fatalf("stats %+v: want oa-1's bytes counted as pinned", st)
	}
	if _, err := os.Stat(old.Dir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("force-retired epoch dir: %v", err)
	}
	c.Add(pinnedEvery)
	m.Sweep()
	if st := m.Stats(); st.PinnedBytes != 0 {
		t.Fatalf("after retirement: %d bytes pinned, want 0", st.PinnedBytes)
	}
}

// TestStartRemovesCrashLeftovers: a killed server's epochs are removed at
// the next start; a directory that is not ours is refused, and so is one
// another running server holds.
func TestStartRemovesCrashLeftovers(t *testing.T) {
	td := liveTable(t, "1")
	m, _ := newTestManager(t, td)
	e := acquire(t, m, td)
	dir := e.Dir
	// Simulate a crash: the process is gone without Close, so its lock
	// is released but its epochs remain.
	m.root.close()
	m2, err := NewManager(m.cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("leftover epoch after restart: %v", err)
	}
	if _, err := NewManager(m.cfg); err == nil || !strings.Contains(err.Error(), "another sstable-flight process") {
		t.Fatalf("second server on one snapshot dir: %v", err)
	}
	m2.Close()
	e.Release()

	foreign := t.TempDir()
	if err := os.WriteFile(filepath.Join(foreign, "precious"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := m.cfg
	cfg.Dir = foreign
	if _, err := NewManager(cfg); err == nil || !strings.Contains(err.Error(), "not made by sstable-flight") {
		t.Fatalf("foreign snapshot dir: %v", err)
	}
	if _, err := os.Stat(filepath.Join(foreign, "precious")); err != nil {
		t.Fatal(err)
	}
	cfg.Dir = filepath.Join(cfg.DataDir, "snaps")
	if _, err := NewManager(cfg); err == nil || !strings.Contains(err.Error(), "inside Cassandra's data directory") {
		t.Fatalf("snapshot dir inside the data dir: %v", err)
	}
}

// TestCloseRemovesEverything: shutdown removes every epoch and closes
// every reader.
func TestCloseRemovesEverything(t *testing.T) {
	td := liveTable(t, "1", "2")
	m, _ := newTestManager(t, td)
	e := acquire(t, m, td)
	e.Release()
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(m.Dir())
	if len(entries) != 1 || entries[0].Name() != rootMarker {
		t.Fatalf("snapshot dir after close holds %v", entries)
	}
	if st := m.Stats(); st.Readers != 0 {
		t.Fatalf("%d readers open after close", st.Readers)
	}
	if _, err := m.Acquire(td); !errors.Is(err, ErrClosed) {
		t.Fatalf("acquire after close: %v", err)
	}
}

// TestLiveModeRetriesVanishedSSTables: in Live mode an SSTable deleted
// between listing and opening makes the cut list again instead of
// failing the query.
func TestLiveModeRetriesVanishedSSTables(t *testing.T) {
	td := liveTable(t, "1", "2")
	var once sync.Once
	m, _ := newTestManager(t, td, func(cfg *Config) {
		cfg.Mode = Live
		cfg.Open = func(path string) (*sstable.Reader, error) {
			once.Do(func() { removeGeneration(t, td.Path, "1") }) // a compaction finishes now
			return sstable.Open(path, sstable.Options{})
		}
	})
	e := acquire(t, m, td)
	defer e.Release()
	if got := prefixes(e); got != "oa-2-big" || e.Dir != td.Path {
		t.Fatalf("live epoch holds %s in %s, want oa-2-big in the live dir", got, e.Dir)
	}
}

// TestConcurrentAcquireCutsOnce: queries arriving together on a new
// table wait for one cut.
func TestConcurrentAcquireCutsOnce(t *testing.T) {
	td := liveTable(t, "1", "2", "3")
	m, _ := newTestManager(t, td)
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e, err := m.Acquire(td)
			if err != nil {
				errs <- err
				return
			}
			e.Release()
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if st := m.Stats(); st.EpochsCut != 1 || st.ReadersOpened != 3 {
		t.Fatalf("stats %+v: want one cut, 3 readers", st)
	}
}

// TestEpochIDsDifferAcrossRuns: two runs under one fixed test clock
// still name their epochs apart, so a ticket of the first run is
// ErrEpochGone in the second rather than naming one of its epochs.
func TestEpochIDsDifferAcrossRuns(t *testing.T) {
	td := liveTable(t, "1")
	live := func(c *Config) { c.Mode, c.Dir = Live, "" }
	m1, _ := newTestManager(t, td, live)
	e1 := acquire(t, m1, td)
	e1.Release()
	m1.Close()
	m2, _ := newTestManager(t, td, live)
	e2 := acquire(t, m2, td)
	defer e2.Release()
	if e1.ID == e2.ID {
		t.Fatalf("two runs under one clock both cut epoch %s", e1.ID)
	}
	if _, err := m2.Lookup("ks", "t", e1.ID); !errors.Is(err, ErrEpochGone) {
		t.Fatalf("the first run's epoch in the second: %v, want ErrEpochGone", err)
	}
}
