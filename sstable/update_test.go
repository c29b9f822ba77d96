package sstable_test

import (
	"errors"
	"testing"

	"github.com/sstable-flight/sstable-flight/sstable"
	"github.com/sstable-flight/sstable-flight/sstable/marshal"
)

// TestUpdateDecoder decodes a partition in messaging form built by hand
// (package commitlog's tests decode real ones): the partition deletion,
// a row with a simple and a complex column, a range tombstone bound, the
// end; every truncation fails as corruption at an offset in range.
func TestUpdateDecoder(t *testing.T) {
	intType, err := marshal.Parse("org.apache.cassandra.db.marshal.Int32Type")
	if err != nil {
		t.Fatal(err)
	}
	v, err := sstable.NewColumn("v", "org.apache.cassandra.db.marshal.UTF8Type")
	if err != nil {
		t.Fatal(err)
	}
	s, err := sstable.NewColumn("s", "org.apache.cassandra.db.marshal.SetType(org.apache.cassandra.db.marshal.UTF8Type)")
	if err != nil || !s.Complex {
		t.Fatal(s, err)
	}
	schema := &sstable.Schema{Key: intType, Clustering: []*marshal.Type{intType}, Regular: []sstable.Column{v, s}}
	stats := sstable.EncodingStats{MinTimestamp: 1000, MinLocalDeletionTime: 2000, MinTTL: 0}
	b := []byte{
		5, 3, // partition deletion: 1005, 2003
		0x24, 0x00, 0, 0, 0, 7, 2, // row: timestamp, all columns; clustering (7); timestamp 1002
		0x08, 2, 'h', 'i', // v: the row's timestamp, "hi"
		1, 0x0c, 1, 'a', // s: one cell, the row's timestamp, empty value, path "a"
		0x02, 1, 0, 1, 0x00, 0, 0, 0, 8, 9, 1, // marker: inclusive start at (8), deletion 1009, 2001
		0x01, // end of partition
	}
	var ud sstable.UpdateDecoder
	ud.Reset(schema, stats, b, 10, "mutation")
	if del := ud.Deletion(); del != (sstable.DeletionTime{MarkedForDeleteAt: 1005, LocalDeletionTime: 2003}) {
		t.Fatalf("deletion %+v", del)
	}
	if !ud.Next() {
		t.Fatal(ud.Err())
	}
	u := ud.Unfiltered()
	if u.Marker || u.Static || string(u.Clustering[0]) != "\x00\x00\x00\x07" || u.Liveness.Timestamp != 1002 || len(u.Cells) != 2 ||
		u.Cells[0].Column != 0 || string(u.Cells[0].Value) != "hi" || u.Cells[0].Timestamp != 1002 ||
		u.Cells[1].Column != 1 || string(u.Cells[1].Path) != "a" || len(u.Cells[1].Value) != 0 || u.Position != 12 || u.End != 27 {
		t.Fatalf("row %+v", u)
	}
	if !ud.Next() {
		t.Fatal(ud.Err())
	}
	if u = ud.Unfiltered(); !u.Marker || u.Kind != sstable.InclStartBound || string(u.Clustering[0]) != "\x00\x00\x00\x08" ||
		u.MarkerDel != (sstable.DeletionTime{MarkedForDeleteAt: 1009, LocalDeletionTime: 2001}) {
		t.Fatalf("marker %+v", u)
	}
	if ud.Next() || ud.Err() != nil || ud.Pos() != int64(10+len(b)) {
		t.Fatalf("end: %v at %d", ud.Err(), ud.Pos())
	}
	for n := range len(b) {
		ud.Reset(schema, stats, b[:n], 10, "mutation")
		ud.Deletion()
		for ud.Next() {
		}
		var ce *sstable.CorruptionError
		if !errors.As(ud.Err(), &ce) || ce.Component != "mutation" || ce.Offset < 10 || ce.Offset > int64(10+n) {
			t.Fatalf("cut at %d: %v", n, ud.Err())
		}
	}
}
