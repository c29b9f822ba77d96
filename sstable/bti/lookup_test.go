package bti_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"testing"

	"github.com/sstable-flight/sstable-flight/internal/testkit/corpus"
	"github.com/sstable-flight/sstable-flight/sstable/bti"
	"github.com/sstable-flight/sstable-flight/sstable/internal/base"
	"github.com/sstable-flight/sstable-flight/token"
)

// TestLookupCorpus: for every partition of every corpus SSTable, the key
// read from Data.db, decorated with its Murmur3 token, (1) extends the
// prefix the iteration stored for it, (2) is found by Lookup with the same
// payload, (3) starts a Ceiling walk at that partition, and so does its
// bare token; a key just past it does not find it.
func TestLookupCorpus(t *testing.T) {
	checked := 0
	cases := corpus.NewCases(t)
	for _, s := range bti.CorpusForTest(t) {
		if s.Data == nil {
			continue
		}
		cases.Run(s.Name, func(t *testing.T) {
			idx, err := bti.OpenPartitionIndex(base.BytesReadable{B: s.Partitions, Path: s.Name})
			if err != nil {
				t.Fatal(err)
			}
			rows := bti.OpenRowIndex(base.BytesReadable{B: s.Rows, Path: s.Name})
			it := idx.Iter(context.Background())
			for i := 0; it.Next(); i++ {
				pl := it.Payload()
				pos := pl.DataPos()
				if pl.InRows() {
					e, err := rows.Entry(context.Background(), pl.RowsPos())
					if err != nil {
						t.Fatal(err)
					}
					pos = e.DataPos
				}
				n := int64(binary.BigEndian.Uint16(s.Data[pos:]))
				key := s.Data[pos+2 : pos+2+n]
				enc := bti.DecoratedKey(nil, token.Of(key), key)
				if !bytes.HasPrefix(enc, it.Prefix()) {
					t.Fatalf("%s partition %d: stored prefix % x is not a prefix of % x", s.Name, i, it.Prefix(), enc)
				}
				got, found, err := idx.Lookup(context.Background(), enc)
				if err != nil || !found || got != pl {
					t.Fatalf("%s partition %d: Lookup = %+v, %v, %v; want %+v", s.Name, i, got, found, err, pl)
				}
				for _, bound := range [][]byte{enc, enc[:9]} {
					c := idx.Ceiling(context.Background(), bound)
					if !c.Next() || c.Payload() != pl {
						t.Fatalf("%s partition %d: Ceiling(% x) starts at %+v (err %v), want %+v", s.Name, i, bound, c.Payload(), c.Err(), pl)
					}
				}
				// The same token, a key byte changed: a prefix match is
				// possible (callers then compare keys) but never an error.
				other := bytes.Clone(enc)
				other[len(other)-2] ^= 0xff
				if _, _, err := idx.Lookup(context.Background(), other); err != nil {
					t.Fatal(err)
				}
				checked++
			}
			if err := it.Err(); err != nil {
				t.Fatal(err)
			}
			// Past the last key: nothing, but for a stored prefix of the
			// bound (a one-partition SSTable stores the empty prefix), which
			// callers must check against the real key.
			past := bti.DecoratedKey(nil, 1<<63-1, bytes.Repeat([]byte{0xff}, 8))
			if c := idx.Ceiling(context.Background(), past); c.Next() && (!bytes.HasPrefix(past, c.Prefix()) || c.Next()) {
				t.Errorf("%s: Ceiling past the max token found %+v", s.Name, c.Payload())
			}
			// Before the first: everything.
			c, n := idx.Ceiling(context.Background(), []byte{0x40}), int64(0)
			for c.Next() {
				n++
			}
			if c.Err() != nil || n != idx.KeyCount() {
				t.Errorf("%s: Ceiling(40) listed %d of %d (err %v)", s.Name, n, idx.KeyCount(), c.Err())
			}
		})
	}
	// A floor on the whole corpus: it holds only when every SSTable ran.
	if cases.All() && checked < 700 {
		t.Fatalf("looked up %d partitions, want every corpus partition", checked)
	}
	t.Logf("looked up %d partitions", checked)
}
