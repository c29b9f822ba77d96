package bti

import (
	"context"
	"encoding/binary"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/sstable-flight/sstable-flight/sstable/internal/base"
)

// exercise runs every reader entry point over possibly damaged files.
// Any error must be a corruption error; nothing may panic or hang.
func exercise(t *testing.T, parts, rows []byte) {
	t.Helper()
	check := func(what string, err error) {
		t.Helper()
		if err != nil && !errors.Is(err, base.ErrCorruption) {
			t.Fatalf("%s: non-corruption error %v", what, err)
		}
		var ce *base.CorruptionError
		if err != nil && (!errors.As(err, &ce) || ce.Component == "" || ce.File == "") {
			t.Fatalf("%s: error %v does not name file and component", what, err)
		}
	}
	idx, err := OpenPartitionIndex(base.BytesReadable{B: parts, Path: "p-Partitions.db"})
	check("open", err)
	if err != nil {
		return
	}
	ri := OpenRowIndex(base.BytesReadable{B: rows, Path: "p-Rows.db"})
	it := idx.Iter(context.Background())
	var prefixes [][]byte
	for n := 0; it.Next(); n++ {
		pl := it.Payload()
		if len(prefixes) < 8 {
			prefixes = append(prefixes, slices.Clone(it.Prefix()))
		}
		if !pl.InRows() || n > 16 {
			continue
		}
		e, err := ri.Entry(context.Background(), pl.RowsPos())
		check("row entry", err)
		if err == nil {
			_, _, err = e.Blocks(context.Background())
			check("row blocks", err)
		}
	}
	check("iterate", it.Err())
	for _, k := range append(prefixes, idx.FirstKey(), idx.LastKey(), nil, []byte{0x40}) {
		_, _, err := idx.Lookup(context.Background(), k)
		check("lookup", err)
		c := idx.Ceiling(context.Background(), k)
		for i := 0; i < 4 && c.Next(); i++ {
		}
		check("ceiling", c.Err())
	}
}

func corpusWide(t testing.TB) TestSSTable {
	for _, s := range CorpusForTest(t) {
		if s.Table == "wide" && len(s.Rows) > 0 {
			return s
		}
	}
	t.Fatal("no wide SSTable with a Rows.db")
	return TestSSTable{}
}

// TestTruncatedAndFlipped: every corpus Partitions.db (and wide's Rows.db)
// cut at every length and with bytes flipped: errors are corruption
// errors naming file and component; nothing panics or hangs.
func TestTruncatedAndFlipped(t *testing.T) {
	for _, s := range CorpusForTest(t) {
		t.Run(s.Name, func(t *testing.T) {
			step := max(1, len(s.Partitions)/200)
			for n := 0; n < len(s.Partitions); n += step {
				_, err := OpenPartitionIndex(base.BytesReadable{B: s.Partitions[:n], Path: "p"})
				if n < footerLen+4 && !errors.Is(err, base.ErrCorruption) {
					t.Fatalf("%s cut to %d: got %v, want corruption", s.Name, n, err)
				}
				exercise(t, s.Partitions[:n], s.Rows)
			}
			for off := 0; off < len(s.Partitions); off += step {
				for _, x := range []byte{0x01, 0x80, 0xff} {
					bad := slices.Clone(s.Partitions)
					bad[off] ^= x
					exercise(t, bad, s.Rows)
				}
			}
		})
	}
	w := corpusWide(t)
	for n := 0; n < len(w.Rows); n++ {
		exercise(t, w.Partitions, w.Rows[:n])
	}
	for off := range w.Rows {
		for _, x := range []byte{0x01, 0x10, 0x80, 0xff} {
			bad := slices.Clone(w.Rows)
			bad[off] ^= x
			exercise(t, w.Partitions, bad)
		}
	}
}

// TestTruncatedFooterIsCorruption: a Partitions.db missing its tail, or
// with a footer pointing outside the file, is refused at open.
func TestTruncatedFooterIsCorruption(t *testing.T) {
	w := corpusWide(t)
	for _, cut := range []int{1, 8, 23, 24, 30} {
		b := w.Partitions[:len(w.Partitions)-cut]
		if _, err := OpenPartitionIndex(base.BytesReadable{B: b, Path: "p"}); !errors.Is(err, base.ErrCorruption) {
			t.Errorf("cut %d bytes: got %v, want corruption", cut, err)
		}
	}
	for field := range 3 {
		b := slices.Clone(w.Partitions)
		binary.BigEndian.PutUint64(b[len(b)-24+8*field:], 1<<40)
		if _, err := OpenPartitionIndex(base.BytesReadable{B: b, Path: "p"}); !errors.Is(err, base.ErrCorruption) {
			t.Errorf("footer field %d out of range: got %v, want corruption", field, err)
		}
	}
}

// TestSharedChildrenAreCorruption: a trie whose nodes share children (a
// DAG) would list exponentially many entries; the walk gives up once it
// has read more nodes than the file has bytes.
func TestSharedChildrenAreCorruption(t *testing.T) {
	var b []byte
	b = append(b, 0x08, 0x00, 0xff) // leaf at 0: hash 00, Data.db position ^0
	prev := 0
	for range 3 { // three DENSE_16 levels of 256 children, all the same node
		at := len(b)
		b = append(b, dense16<<4, 0x00, 0xff)
		for range 256 {
			b = binary.BigEndian.AppendUint16(b, uint16(at-prev))
		}
		prev = at
	}
	keysAt := len(b)
	b = append(b, 0, 0, 0, 0)
	b = binary.BigEndian.AppendUint64(b, uint64(keysAt))
	b = binary.BigEndian.AppendUint64(b, uint64(keysAt)) // as many as could fit, so only the walk bound stops it
	b = binary.BigEndian.AppendUint64(b, uint64(prev))
	idx, err := OpenPartitionIndex(base.BytesReadable{B: b, Path: "dag"})
	if err != nil {
		t.Fatal(err)
	}
	it := idx.Iter(context.Background())
	n := 0
	for it.Next() {
		n++
	}
	if !errors.Is(it.Err(), base.ErrCorruption) || !strings.Contains(it.Err().Error(), "not a tree") || n > len(b) {
		t.Fatalf("after %d entries: %v, want a corruption error", n, it.Err())
	}
}

func FuzzPartitionIndex(f *testing.F) {
	for _, s := range CorpusForTest(f) {
		f.Add(s.Partitions)
	}
	rows := corpusWide(f).Rows
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 1<<20 {
			return
		}
		exercise(t, b, rows)
	})
}

func FuzzRowIndex(f *testing.F) {
	w := corpusWide(f)
	idx, err := OpenPartitionIndex(w.partitionsReadable())
	if err != nil {
		f.Fatal(err)
	}
	for it := idx.Iter(context.Background()); it.Next(); {
		f.Add(w.Rows, it.Payload().RowsPos())
	}
	f.Fuzz(func(t *testing.T, b []byte, pos int64) {
		if len(b) > 1<<20 {
			return
		}
		ri := OpenRowIndex(base.BytesReadable{B: b, Path: "f-Rows.db"})
		e, err := ri.Entry(context.Background(), pos)
		if err == nil {
			_, _, err = e.Blocks(context.Background())
		}
		if err != nil && !errors.Is(err, base.ErrCorruption) {
			t.Fatalf("non-corruption error: %v", err)
		}
	})
}
