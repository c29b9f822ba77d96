package snapshot

import (
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/sstable-flight/sstable-flight/sstable"
)

// fakeUnflushed hands out, as a table's runs, readers of one corpus
// SSTable, and records what it was asked.
type fakeUnflushed struct {
	t    *testing.T
	run  string // a Data.db path
	mu   sync.Mutex
	gen  uint64
	seen [][]*sstable.Reader // the readers each Runs was given
	open []*sstable.Reader
	fs   *countingFS
}

// countingFS is the local file system, counting the files open.
type countingFS struct {
	mu   sync.Mutex
	open int
}

func (c *countingFS) Open(path string) (sstable.File, io.Closer, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	c.mu.Lock()
	c.open++
	c.mu.Unlock()
	return osFile{f}, closerFunc(func() error {
		c.mu.Lock()
		c.open--
		c.mu.Unlock()
		return f.Close()
	}), nil
}

func (c *countingFS) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.open
}

type osFile struct{ *os.File }

func (f osFile) Size() int64 {
	st, err := f.Stat()
	if err != nil {
		return -1
	}
	return st.Size()
}

type closerFunc func() error

func (f closerFunc) Close() error { return f() }

func (f *fakeUnflushed) Generation(TableDir) uint64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.gen
}

func (f *fakeUnflushed) Runs(td TableDir, readers []*sstable.Reader) ([]*sstable.Reader, Freshness) {
	r, err := sstable.Open(f.run, sstable.Options{FS: f.fs})
	if err != nil {
		f.t.Fatal(err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.seen = append(f.seen, readers)
	f.open = append(f.open, r)
	return []*sstable.Reader{r}, Freshness{Through: "7:42"}
}

// TestUnflushedCutsAndCloses: an epoch's readers are its SSTables' then
// the runs Unflushed seals against exactly those SSTables, and it says
// what it reflects; after the window a table whose SSTables did not
// change keeps its epoch while the generation holds, and gets a new one
// when it changes; a retired epoch closes its runs.
func TestUnflushedCutsAndCloses(t *testing.T) {
	td := liveTable(t, "1", "2")
	runs, _ := filepath.Glob(filepath.Join("..", "testdata", "corpus", "oa", "corpus", "deletions-*", "oa-3-big-Data.db"))
	if len(runs) != 1 {
		t.Fatalf("corpus run: %v", runs)
	}
	u := &fakeUnflushed{t: t, run: runs[0], fs: &countingFS{}}
	m, c := newTestManager(t, td, func(cfg *Config) { cfg.Unflushed = u })
	first := acquire(t, m, td)
	if len(first.Readers) != 3 || len(u.seen) != 1 || len(u.seen[0]) != 2 || first.Readers[2] != u.open[0] {
		t.Fatalf("epoch readers %d, runs sealed %d times over %v: want the 2 SSTables then the run", len(first.Readers), len(u.seen), u.seen)
	}
	if first.Fresh.Through != "7:42" {
		t.Errorf("freshness %+v", first.Fresh)
	}
	c.Add(DefaultWindow)
	if e := acquire(t, m, td); e != first {
		t.Fatalf("same SSTables, same generation: epoch %s, want %s", e.ID, first.ID)
	} else {
		e.Release()
	}
	u.mu.Lock()
	u.gen++
	u.mu.Unlock()
	c.Add(DefaultWindow)
	second := acquire(t, m, td)
	if second == first || len(u.seen) != 2 || len(second.Readers) != 3 {
		t.Fatalf("a new generation: epoch %s (first %s), %d seals; want a new epoch with its own run", second.ID, first.ID, len(u.seen))
	}
	open := u.fs.count()
	second.Release()
	first.Release()
	c.Add(DefaultGrace + DefaultWindow)
	m.Sweep()
	if n := u.fs.count(); n == 0 || n >= open {
		t.Errorf("%d run files open after the first epoch retired, %d before: want the second epoch's only", n, open)
	}
}
