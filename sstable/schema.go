package sstable

import (
	"fmt"
	"sort"
	"strings"

	"github.com/sstable-flight/sstable-flight/sstable/metadata"

	"github.com/sstable-flight/sstable-flight/internal/snippet"
	"github.com/sstable-flight/sstable-flight/sstable/marshal"
)

// Schema is what decoding Data.db needs from the serialization header:
// parsed types of the key, the clustering columns and the columns in the
// order Cassandra serializes them.
type Schema struct {
	Key        *marshal.Type
	Clustering []*marshal.Type
	Static     []Column
	Regular    []Column
}

// Column is one static or regular column of the header.
type Column struct {
	Name     string
	Type     *marshal.Type
	Fixed    int  // value width without a length prefix, or -1
	Complex  bool // one cell per element/field (non-frozen collection or UDT)
	PathType *marshal.Type
}

// NewSchema parses the header's type strings.
func NewSchema(h metadata.SerializationHeader) (*Schema, error) {
	s := &Schema{}
	var err error
	if s.Key, err = marshal.Parse(h.KeyType); err != nil {
		return nil, fmt.Errorf("parse partition key type: %w", err)
	}
	for i, ts := range h.ClusteringTypes {
		t, err := marshal.Parse(ts)
		if err != nil {
			return nil, fmt.Errorf("parse clustering type %d: %w", i, err)
		}
		s.Clustering = append(s.Clustering, t)
	}
	if s.Static, err = columns(h.StaticColumns); err != nil {
		return nil, err
	}
	if s.Regular, err = columns(h.RegularColumns); err != nil {
		return nil, err
	}
	return s, nil
}

// columns parses and orders columns as db/Columns does: simple columns
// before complex ones, each group by name bytes (ColumnMetadata's
// comparison order for non-key columns). The serialized cells and the
// column-subset bitmaps follow this order, not the header's.
func columns(cs []metadata.ColumnType) ([]Column, error) {
	out := make([]Column, 0, len(cs))
	for _, c := range cs {
		col, err := NewColumn(c.Name, c.Type)
		if err != nil {
			return nil, err
		}
		out = append(out, col)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Complex != out[j].Complex {
			return !out[i].Complex
		}
		return CompareColumnNames(out[i].Name, out[j].Name) < 0
	})
	return out, nil
}

// NewColumn parses a column's marshal type string (as a
// SerializationHeader or system_schema names it).
func NewColumn(name, typ string) (Column, error) {
	t, err := marshal.Parse(typ)
	if err != nil {
		return Column{}, fmt.Errorf("parse type of column %s: %w", snippet.QuoteN(name, 64), err)
	}
	col := Column{Name: name, Type: t, Fixed: t.FixedLength(), Complex: t.IsMultiCell()}
	if col.Complex {
		col.PathType = pathType(t)
	}
	return col, nil
}

// CompareColumnNames is ColumnMetadata.compareTo's name order: its
// comparisonOrder packs ColumnIdentifier.prefixComparison (the first
// bytes with the top bit flipped for a signed compare) shifted right, so
// the flipped bit is compared as a plain bit and a name whose first byte
// is >= 0x80 sorts first; ties go to unsigned byte order. For ASCII names
// this is plain byte order; for others, plain byte order would decode
// cells into the wrong columns (found on a live node: columns "é", "ö"
// were read as others' values).
func CompareColumnNames(a, b string) int {
	if a == "" || b == "" || a[0] == b[0] {
		return strings.Compare(a, b)
	}
	if a[0]^0x80 < b[0]^0x80 {
		return -1
	}
	return 1
}

// pathType is the type of a complex cell's path: the list's timeuuid, the
// set element or map key, or the UDT field index (a short).
func pathType(t *marshal.Type) *marshal.Type {
	switch t.Kind {
	case marshal.List:
		return &marshal.Type{Kind: marshal.TimeUUID}
	case marshal.Set, marshal.Map:
		if len(t.Elems) > 0 {
			return t.Elems[0]
		}
	case marshal.UDT:
		return &marshal.Type{Kind: marshal.SmallInt}
	}
	return nil
}

// Columns returns the static or the regular columns.
func (s *Schema) Columns(static bool) []Column {
	if static {
		return s.Static
	}
	return s.Regular
}
