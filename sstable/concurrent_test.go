package sstable_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/sstable-flight/sstable-flight/internal/testkit/corpus"
	"github.com/sstable-flight/sstable-flight/sstable"
)

// TestConcurrentGetsOfAFreshReader: point reads of one reader that has
// just opened, from 8 goroutines at once (as a server's queries share an
// SSTable's reader), each return what a read alone returns, in every
// format. Before, a BTI reader's partition and row index page caches
// were unsynchronized: the first lookups of a da reader raced on them
// ("fatal error: concurrent map writes", killing the process).
func TestConcurrentGetsOfAFreshReader(t *testing.T) {
	for mode, c := range corpus.LoadEach(t) {
		t.Run(mode, func(t *testing.T) {
			tbl := c.Tables["many"]
			path := filepath.Join(tbl.Dir, tbl.SSTables[0].Prefix+"-Data.db")
			open := func() *sstable.Reader {
				r, err := sstable.Open(path, sstable.Options{})
				if err != nil {
					t.Fatal(err)
				}
				return r
			}
			r := open()
			parts := fullScan(t, r)
			r.Close()
			for range 100 {
				r := open()
				start := make(chan struct{})
				errs := make(chan error, 8)
				for g := range 8 {
					go func() {
						<-start
						errs <- getEach(r, parts[g*len(parts)/8:][:16])
					}()
				}
				close(start)
				for range 8 {
					if err := <-errs; err != nil {
						t.Fatal(err)
					}
				}
				r.Close()
			}
		})
	}
}

// getEach reads each part by its key and checks its row count.
func getEach(r *sstable.Reader, parts []part) error {
	for _, p := range parts {
		s, err := r.Get(p.key)
		if err != nil {
			return err
		}
		n, rows := 0, 0
		for s.NextPartition() {
			n++
			for s.NextUnfiltered() {
				rows++
			}
		}
		err = s.Err()
		s.Release()
		if err != nil || n != 1 || rows != p.rows {
			return fmt.Errorf("key %x: %d partitions, %d rows, error %v; want 1 and %d", p.key, n, rows, err, p.rows)
		}
	}
	return nil
}
