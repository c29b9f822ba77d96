package catalog

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/sstable-flight/sstable-flight/internal/snippet"
	"github.com/sstable-flight/sstable-flight/sstable"
	"github.com/sstable-flight/sstable-flight/sstable/marshal"
	"github.com/sstable-flight/sstable-flight/sstable/metadata"
)

// FromHeader builds a table from its SSTables' serialization headers
// alone, the last resort when neither Cassandra nor schema.cql is
// available. Headers carry types but not key column names, so the key
// columns get the names Cassandra gave columns of tables without CQL
// metadata: partition key "key", "key2", "key3", ..., clustering
// "column1", "column2", ...; a clustering column is DESC when its header
// type is reversed. The static and regular columns are the union over the
// SSTables: a column no SSTable has written is missing, and a dropped
// column that some SSTable still holds is present (headers do not record
// drops). When SSTables disagree on a type (a user type that gained a
// field), the SSTable with the newest data wins. A composite partition
// key cannot be told from a single column of CompositeType; it is taken
// as composite.
func FromHeader(keyspace, table, id string, readers []*sstable.Reader) (*Table, error) {
	if len(readers) == 0 {
		return nil, fmt.Errorf("build schema of %s.%s from headers: no SSTables", keyspace, table)
	}
	t := &Table{Keyspace: keyspace, Name: table, ID: id, Dropped: map[string]int64{}, Source: SourceHeader}
	newest := readers[0]
	for _, r := range readers[1:] {
		if len(r.Schema.Clustering) != len(newest.Schema.Clustering) {
			return nil, fmt.Errorf("build schema of %s.%s from headers: SSTables disagree on the clustering (%d vs %d columns)", keyspace, table, len(r.Schema.Clustering), len(newest.Schema.Clustering))
		}
		if r.Stats.Stats.MaxTimestamp > newest.Stats.Stats.MaxTimestamp {
			newest = r
		}
	}
	for i, k := range marshal.KeyTypes(newest.Schema.Key) {
		t.Columns = append(t.Columns, Column{Name: keyName(i), Type: k, Kind: PartitionKey, Position: i})
	}
	for i, c := range newest.Schema.Clustering {
		t.Columns = append(t.Columns, Column{Name: "column" + strconv.Itoa(i+1), Type: c, Kind: Clustering, Position: i, Desc: c.Reversed})
	}
	// The newest SSTable goes first, so its types win.
	ordered := append([]*sstable.Reader{newest}, readers...)
	seen := map[string]Kind{}
	for _, r := range ordered {
		for _, g := range []struct {
			kind Kind
			cols []sstable.Column
		}{{Static, r.Schema.Static}, {Regular, r.Schema.Regular}} {
			for _, c := range g.cols {
				k, dup := seen[c.Name]
				if dup && k != g.kind {
					return nil, fmt.Errorf("build schema of %s.%s from headers: column %s is %s in one SSTable and %s in another", keyspace, table, snippet.QuoteN(c.Name, 64), k, g.kind)
				}
				if dup {
					continue
				}
				if _, clash := t.Column(c.Name); clash {
					return nil, fmt.Errorf("build schema of %s.%s from headers: column %s has the name generated for a key column", keyspace, table, snippet.QuoteN(c.Name, 64))
				}
				seen[c.Name] = g.kind
				t.Columns = append(t.Columns, Column{Name: c.Name, Type: c.Type, Kind: g.kind, Position: -1})
			}
		}
	}
	sortColumns(t.Columns)
	return t, nil
}

// keyName is the generated name of partition key component i:
// "key", "key2", "key3", ...
func keyName(i int) string {
	if i == 0 {
		return "key"
	}
	return "key" + strconv.Itoa(i+1)
}

// marshalPkg prefixes the marshal type names Cassandra writes.
const marshalPkg = "org.apache.cassandra.db.marshal."

// Header is a serialization header naming every column of the table
// (the partition key's type a CompositeType of several), as an SSTable
// holding a value of each would have: what the commit log overlay's runs
// are written under.
func (t *Table) Header() metadata.SerializationHeader {
	var h metadata.SerializationHeader
	var keys []Column
	var clustering []Column
	for _, c := range t.Columns {
		switch c.Kind {
		case PartitionKey:
			keys = append(keys, c)
		case Clustering:
			clustering = append(clustering, c)
		case Static:
			h.StaticColumns = append(h.StaticColumns, metadata.ColumnType{Name: c.Name, Type: c.Type.Marshal()})
		case Regular:
			h.RegularColumns = append(h.RegularColumns, metadata.ColumnType{Name: c.Name, Type: c.Type.Marshal()})
		}
	}
	byPosition := func(a, b Column) int { return a.Position - b.Position }
	slices.SortFunc(keys, byPosition)
	slices.SortFunc(clustering, byPosition)
	if len(keys) == 1 {
		h.KeyType = keys[0].Type.Marshal()
	} else {
		types := make([]string, len(keys))
		for i, c := range keys {
			types[i] = c.Type.Marshal()
		}
		h.KeyType = marshalPkg + "CompositeType(" + strings.Join(types, ",") + ")"
	}
	for _, c := range clustering {
		h.ClusteringTypes = append(h.ClusteringTypes, c.Type.Marshal())
	}
	return h
}
