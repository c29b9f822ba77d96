package big

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/sstable-flight/sstable-flight/sstable/internal/base"
	"github.com/sstable-flight/sstable-flight/sstable/marshal"
)

func mustTypes(t testing.TB, names ...string) []*marshal.Type {
	t.Helper()
	var out []*marshal.Type
	for _, n := range names {
		typ, err := marshal.Parse("org.apache.cassandra.db.marshal." + n)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, typ)
	}
	return out
}

// TestPrefixEncoding decodes hand-built prefixes covering what the corpus
// lacks: bounds with a size, null and empty values, variable-length
// values, and more than 32 values (a second header vint).
func TestPrefixEncoding(t *testing.T) {
	// A CLUSTERING of (int 7, text null, text "ab", text empty).
	types := mustTypes(t, "Int32Type", "UTF8Type", "UTF8Type", "UTF8Type")
	b := []byte{KindClustering, 0x08 | 0x40, 0, 0, 0, 7, 2, 'a', 'b'}
	// header: value 1 null → bit 3 (0x08); value 3 empty → bit 6 (0x40).
	d := base.NewDecbuf(b, "f", "Index.db", 0)
	p, _ := readPrefix(&d, types, nil)
	if d.Err() != nil || d.Len() != 0 {
		t.Fatalf("err %v, %d left", d.Err(), d.Len())
	}
	want := [][]byte{{0, 0, 0, 7}, nil, []byte("ab"), {}}
	if p.Kind != KindClustering || len(p.Values) != 4 {
		t.Fatalf("got %+v", p)
	}
	for i := range want {
		if !bytes.Equal(p.Values[i], want[i]) || (want[i] == nil) != (p.Values[i] == nil) {
			t.Errorf("value %d: %q, want %q", i, p.Values[i], want[i])
		}
	}

	// An inclusive start bound of 1 value out of 4: a u16 size first.
	d = base.NewDecbuf([]byte{KindInclStartBound, 0, 1, 0, 0, 0, 0, 9}, "f", "Index.db", 0)
	p, _ = readPrefix(&d, types, nil)
	if d.Err() != nil || p.Kind != KindInclStartBound || len(p.Values) != 1 || !bytes.Equal(p.Values[0], []byte{0, 0, 0, 9}) {
		t.Fatalf("bound: %+v, %v", p, d.Err())
	}

	// 33 int values: value 32 is governed by a second header (bit 0 set =
	// empty), not by bit 64 of the first.
	many := make([]*marshal.Type, 33)
	for i := range many {
		many[i] = types[0]
	}
	var enc []byte
	enc = append(enc, KindClustering, 0)
	for i := 0; i < 32; i++ {
		enc = append(enc, 0, 0, 0, byte(i))
	}
	enc = append(enc, 1) // second header: value 32 empty
	d = base.NewDecbuf(enc, "f", "Index.db", 0)
	p, _ = readPrefix(&d, many, nil)
	if d.Err() != nil || d.Len() != 0 || len(p.Values) != 33 || p.Values[31][3] != 31 || len(p.Values[32]) != 0 || p.Values[32] == nil {
		t.Fatalf("33 values: %v, %d left, %d values", d.Err(), d.Len(), len(p.Values))
	}

	// Damage: static kind, a kind past 7, a bound larger than the types.
	for _, bad := range [][]byte{{KindStatic}, {8}, {KindExclEndBound, 0, 5}} {
		t.Run(fmt.Sprintf("%x", bad), func(t *testing.T) {
			d = base.NewDecbuf(bad, "f", "Index.db", 0)
			readPrefix(&d, types, nil)
			wantCorruption(t, d.Err(), "f", "Index.db")
			if d.Err() == nil {
				t.Errorf("% x decoded", bad)
			}
		})
	}
}

// TestDeletionTime covers both serializations and the live encodings.
func TestDeletionTime(t *testing.T) {
	for _, tc := range []struct {
		in   []byte
		uint bool
		want DeletionTime
		bad  bool
	}{
		{[]byte{0x80}, true, LiveDeletion, false},
		{[]byte{0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 9}, true, DeletionTime{5, 9}, false},
		{[]byte{0, 0, 0, 0, 0, 0, 0, 5, 0xff, 0xff, 0xff, 0xff}, true, DeletionTime{5, 0xffffffff}, false},
		{[]byte{0x81}, true, LiveDeletion, true},
		{[]byte{0x7f, 0xff, 0xff, 0xff, 0x80, 0, 0, 0, 0, 0, 0, 0}, false, LiveDeletion, false},
		{[]byte{0, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0, 5}, false, DeletionTime{5, 9}, false},
		{[]byte{0, 0, 0}, false, DeletionTime{}, true},
	} {
		t.Run(fmt.Sprintf("%x", tc.in), func(t *testing.T) {
			d := base.NewDecbuf(tc.in, "f", "Index.db", 0)
			got := readDeletionTime(&d, tc.uint)
			if tc.bad != (d.Err() != nil) || (!tc.bad && (got != tc.want || d.Len() != 0)) {
				t.Errorf("% x (uint %v): %+v, err %v", tc.in, tc.uint, got, d.Err())
			}
		})
	}
}

// TestSummaryBigEndian: a summary written on a big-endian machine (native
// order offsets and positions, before 5.0) reads the same.
func TestSummaryBigEndian(t *testing.T) {
	for _, s := range corpusTables(t) {
		if s.table != "many" {
			continue
		}
		le := s.read(t, "Summary.db")
		a, err := ParseSummary(le, "le")
		if err != nil {
			t.Fatal(err)
		}
		be := append([]byte(nil), le...)
		off := summaryHeaderSize
		for i := 0; i < a.Len(); i++ {
			reverse(be[off+4*i : off+4*i+4])
		}
		entries := off + 4*a.Len()
		for i := 0; i < a.Len(); i++ {
			_, end := a.span(i)
			reverse(be[entries+end-8 : entries+end])
		}
		b, err := ParseSummary(be, "be")
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < a.Len(); i++ {
			if !bytes.Equal(a.Key(i), b.Key(i)) || a.IndexPosition(i) != b.IndexPosition(i) {
				t.Fatalf("entry %d differs", i)
			}
		}
		return
	}
}

func reverse(b []byte) {
	for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
		b[i], b[j] = b[j], b[i]
	}
}
