package sstable

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/sstable-flight/sstable-flight/sstable/internal/base"
)

// FuzzScanData feeds arbitrary bytes as the uncompressed Data.db of real
// corpus tables (their own schemas: collections, UDTs, statics, wide
// rows): a scan must end in a corruption error or cleanly, never panic or
// loop. Seeds are the tables' real Data.db contents.
func FuzzScanData(f *testing.F) {
	var readers []*Reader
	for _, table := range []string{"collections", "udts", "deletions", "clustered", "all_types", "counters"} {
		files, err := filepath.Glob(filepath.Join("..", "testdata", "corpus", "oa", "corpus", table+"-*", "*-Data.db"))
		if err != nil || len(files) == 0 {
			f.Fatalf("corpus table %s: no Data.db (%v)", table, err)
		}
		for _, file := range files {
			r, err := Open(file, Options{})
			if err != nil {
				f.Fatal(err)
			}
			b := make([]byte, r.data.DataLength())
			if _, err := r.data.ReadAt(b, 0); err != nil {
				f.Fatal(err)
			}
			f.Add(uint8(len(readers)), b)
			readers = append(readers, r)
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		if len(data) > 1<<20 {
			return
		}
		src := readers[int(which)%len(readers)]
		r := &Reader{Version: src.Version, Stats: src.Stats, Schema: src.Schema, dataPath: "fuzz",
			data: plainData{base.BytesReadable{B: data, Path: "fuzz"}}}
		s := r.Scan()
		n := 0
		for s.NextPartition() {
			for s.NextUnfiltered() {
				n++
			}
			n++
			if n > 4*len(data)+8 {
				t.Fatalf("%d structures from %d bytes: not making progress", n, len(data))
			}
		}
		if err := s.Err(); err != nil && !errors.Is(err, base.ErrCorruption) {
			t.Fatalf("non-corruption error: %v", err)
		}
	})
}
