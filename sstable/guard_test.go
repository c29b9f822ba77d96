package sstable_test

import (
	"context"
	"errors"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sstable-flight/sstable-flight/internal/iostall"
	"github.com/sstable-flight/sstable-flight/internal/testkit/corpus"
	"github.com/sstable-flight/sstable-flight/sstable"
	"github.com/sstable-flight/sstable-flight/sstable/metadata"
)

// stallFS is memFS whose opens or reads of one component block until
// released: a file on storage that never answers.
type stallFS struct {
	*memFS
	component string
	open      bool // stall the open, else the reads
	release   chan struct{}
	once      sync.Once
	// armed, when set, stalls the reads only while it is true, so that
	// a reader opens before its reads stall.
	armed *atomic.Bool
}

func (s *stallFS) unblock() { s.once.Do(func() { close(s.release) }) }

func (s *stallFS) Open(path string) (sstable.File, io.Closer, error) {
	hit := strings.HasSuffix(path, "-"+s.component)
	if hit && s.open {
		<-s.release
	}
	f, c, err := s.memFS.Open(path)
	if err != nil || !hit || s.open {
		return f, c, err
	}
	return stallFile{File: f, fs: s}, c, nil
}

type stallFile struct {
	sstable.File
	fs *stallFS
}

func (f stallFile) ReadAt(p []byte, off int64) (int, error) {
	if f.fs.armed == nil || f.fs.armed.Load() {
		<-f.fs.release
	}
	return f.File.ReadAt(p, off)
}

// TestIOGuardBoundsHungStorage: through an IOGuard, an open or a read of
// a component that never returns fails within the timeout with
// ErrStalled naming the file, whichever component it is; without one it
// would block its caller for ever. Through a guard whose storage
// answers, a reader reads exactly what the local one does.
func TestIOGuardBoundsHungStorage(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join(corpusRoot(), "*", "corpus", "timestamps-*", "*-3-*-Data.db"))
	if len(paths) != 3 {
		t.Fatalf("corpus.timestamps generation 3 in each format: %v", paths)
	}
	const timeout = 100 * time.Millisecond
	for _, path := range paths {
		d, _ := metadata.ParseDescriptor(filepath.Base(path))
		t.Run(corpus.SSTableCase(path), func(t *testing.T) {
			local, err := sstable.Open(path, sstable.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer local.Close()
			g := iostall.New(timeout, 64)
			guarded, err := sstable.Open(path, sstable.Options{FS: newMemFS(), IOGuard: g})
			if err != nil {
				t.Fatal(err)
			}
			if got, want := readerOutput(t, guarded), readerOutput(t, local); got != want {
				t.Fatalf("output through the guard differs from the local one:\n%s", firstDiff(want, got))
			}
			guarded.Close()

			comps := []string{"TOC.txt", "Statistics.db", "CompressionInfo.db", "Filter.db"}
			if d.Format == "bti" {
				comps = append(comps, "Partitions.db")
			} else {
				comps = append(comps, "Summary.db")
			}
			for _, c := range comps {
				for _, stallOpen := range []bool{true, false} {
					fs := &stallFS{memFS: newMemFS(), component: c, open: stallOpen, release: make(chan struct{})}
					start := time.Now()
					r, err := sstable.Open(path, sstable.Options{FS: fs, IOGuard: iostall.New(timeout, 64)})
					took := time.Since(start)
					fs.unblock()
					if err == nil {
						r.Close()
					}
					if !errors.Is(err, sstable.ErrStalled) || !strings.Contains(err.Error(), d.Prefix()+"-"+c) || took > timeout+2*time.Second {
						t.Fatalf("open with %s stalled (open %v): %v after %v", c, stallOpen, err, took)
					}
				}
			}
			// Data.db is read by scans, after the open.
			fs := &stallFS{memFS: newMemFS(), component: "Data.db", release: make(chan struct{})}
			defer fs.unblock()
			r, err := sstable.Open(path, sstable.Options{FS: fs, IOGuard: iostall.New(timeout, 64)})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			start := time.Now()
			s := r.Scan()
			for s.NextPartition() {
			}
			err = s.Err()
			s.Release()
			if !errors.Is(err, sstable.ErrStalled) || !strings.Contains(err.Error(), d.Prefix()+"-Data.db") || time.Since(start) > timeout+2*time.Second {
				t.Fatalf("scan with Data.db stalled: %v after %v", err, time.Since(start))
			}
			t.Log(err)
		})
	}
}

// TestContextEndsGuardedReads: a read through an IOGuard whose storage
// never answers returns once the caller's context ends, long before the
// guard's timeout (an hour here), whichever file it waits for: the
// index (Index.db, Partitions.db) while finding the key, Data.db while
// reading its partition, or another caller's read of the same Data.db,
// which holds the reader's lock. Before, the context went no further
// than the guard's callers, which passed none: each of these waited for
// the timeout.
func TestContextEndsGuardedReads(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join(corpusRoot(), "*", "corpus", "timestamps-*", "*-3-*-Data.db"))
	if len(paths) != 3 {
		t.Fatalf("corpus.timestamps generation 3 in each format: %v", paths)
	}
	within := func(t *testing.T, what string, want error, f func() error) {
		t.Helper()
		start := time.Now()
		err := f()
		if !errors.Is(err, want) || errors.Is(err, sstable.ErrStalled) || time.Since(start) > 2*time.Second {
			t.Fatalf("%s: %v after %v, want %v at once", what, err, time.Since(start), want)
		}
		t.Logf("%s: %v", what, err)
	}
	read := func(s *sstable.Scanner, err error) error {
		if err != nil {
			return err
		}
		defer s.Release()
		for s.NextPartition() {
			for s.NextUnfiltered() {
			}
		}
		return s.Err()
	}
	for _, path := range paths {
		d, _ := metadata.ParseDescriptor(filepath.Base(path))
		index := "Index.db"
		if d.Format == "bti" {
			index = "Partitions.db"
		}
		t.Run(corpus.SSTableCase(path), func(t *testing.T) {
			local, err := sstable.Open(path, sstable.Options{})
			if err != nil {
				t.Fatal(err)
			}
			s := local.Scan()
			if !s.NextPartition() {
				t.Fatal("no partition")
			}
			key := append([]byte(nil), s.Partition().Key...)
			s.Release()
			local.Close()
			for _, c := range []string{index, "Data.db"} {
				armed := new(atomic.Bool)
				fs := &stallFS{memFS: newMemFS(), component: c, release: make(chan struct{}), armed: armed}
				r, err := sstable.Open(path, sstable.Options{FS: fs, IOGuard: iostall.New(time.Hour, 64)})
				if err != nil {
					t.Fatal(err)
				}
				armed.Store(true)
				ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
				within(t, "key read with "+c+" hung", context.DeadlineExceeded, func() error { return read(r.GetContext(ctx, key)) })
				cancel()
				if c == "Data.db" {
					// A scan waits in a read, holding the reader's lock;
					// a key read of its own context queues behind it.
					sctx, scancel := context.WithCancel(context.Background())
					scanned := make(chan error, 1)
					go func() { scanned <- read(r.ScanRangeContext(sctx, 0, 0)) }()
					time.Sleep(20 * time.Millisecond)
					ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
					within(t, "key read behind a hung scan", context.DeadlineExceeded, func() error { return read(r.GetContext(ctx, key)) })
					cancel()
					scancel()
					within(t, "the hung scan, cancelled", context.Canceled, func() error { return <-scanned })
				}
				fs.unblock()
				r.Close()
			}
		})
	}
}
