package sstable_test

import (
	"fmt"
	"testing"

	"github.com/sstable-flight/sstable-flight/sstable"
	"github.com/sstable-flight/sstable-flight/sstable/metadata"
)

// TestColumnOrderNonASCII pins the order Cassandra serializes columns in
// when names start with bytes >= 0x80 (checked on a live 5.0 node: a
// table with int columns a, "é", "Z", "ö", d stores é, ö, Z, a, d):
// simple before complex, then names with the first byte's top bit
// flipped, then unsigned bytes.
func TestColumnOrderNonASCII(t *testing.T) {
	h := metadata.SerializationHeader{KeyType: "org.apache.cassandra.db.marshal.Int32Type"}
	for _, n := range []string{"a", "é", "Z", "ö", "d"} {
		h.RegularColumns = append(h.RegularColumns, metadata.ColumnType{Name: n, Type: "org.apache.cassandra.db.marshal.Int32Type"})
	}
	h.RegularColumns = append(h.RegularColumns, metadata.ColumnType{Name: "b", Type: "org.apache.cassandra.db.marshal.ListType(org.apache.cassandra.db.marshal.Int32Type)"})
	s, err := sstable.NewSchema(h)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range s.Regular {
		got = append(got, c.Name)
	}
	if want := []string{"é", "ö", "Z", "a", "d", "b"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("order %q, want %q", got, want)
	}
}
