package loadgen

import (
	"context"
	"fmt"
	"sort"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// KeyColumn is one partition key column, as the Flight schema's field
// metadata describes it (docs/types.md).
type KeyColumn struct {
	Name     string
	CQLType  string // cql.type, e.g. "bigint", "text", "uuid"
	Position int    // cql.position: the component index in the partition key
}

// ClusteringColumn is the first clustering column: what a slice op
// bounds.
type ClusteringColumn struct {
	Name    string
	CQLType string
	Desc    bool // CLUSTERING ORDER ... DESC: rows come from the largest value
}

// TableSchema is what the rig needs of a table: its Arrow schema and its
// partition key in key order.
type TableSchema struct {
	Keyspace, Table string
	Arrow           *arrow.Schema
	Key             []KeyColumn
	Clustering      *ClusteringColumn // nil without clustering columns
}

// KeyNames are the partition key column names in key order.
func (s *TableSchema) KeyNames() []string {
	out := make([]string, len(s.Key))
	for i, k := range s.Key {
		out[i] = k.Name
	}
	return out
}

// loadSchema asks the server for the whole table's schema (PATH
// descriptor) and reads the partition key from the fields' cql.kind and
// cql.position, which the CQL arm also needs for its WHERE clauses.
func loadSchema(ctx context.Context, c flight.Client, ks, table string) (*TableSchema, error) {
	res, err := c.GetSchema(ctx, &flight.FlightDescriptor{Type: flight.DescriptorPATH, Path: []string{ks, table}})
	if err != nil {
		return nil, fmt.Errorf("get schema of %s.%s: %w", ks, table, err)
	}
	s, err := flight.DeserializeSchema(res.GetSchema(), memory.DefaultAllocator)
	if err != nil {
		return nil, fmt.Errorf("read schema of %s.%s: %w", ks, table, err)
	}
	return schemaFrom(ks, table, s)
}

func schemaFrom(ks, table string, s *arrow.Schema) (*TableSchema, error) {
	ts := &TableSchema{Keyspace: ks, Table: table, Arrow: s}
	for _, f := range s.Fields() {
		if meta(f, "cql.kind") == "clustering" && meta(f, "cql.position") == "0" {
			ts.Clustering = &ClusteringColumn{Name: f.Name, CQLType: meta(f, "cql.type"), Desc: meta(f, "cql.clustering_order") == "desc"}
		}
		if meta(f, "cql.kind") != "partition_key" {
			continue
		}
		pos, err := strconv.Atoi(meta(f, "cql.position"))
		if err != nil {
			return nil, fmt.Errorf("read schema of %s.%s: column %s: cql.position %q: %w", ks, table, f.Name, meta(f, "cql.position"), err)
		}
		ts.Key = append(ts.Key, KeyColumn{Name: f.Name, CQLType: meta(f, "cql.type"), Position: pos})
	}
	if len(ts.Key) == 0 {
		return nil, fmt.Errorf("read schema of %s.%s: no field has cql.kind partition_key", ks, table)
	}
	sort.Slice(ts.Key, func(i, j int) bool { return ts.Key[i].Position < ts.Key[j].Position })
	return ts, nil
}

func meta(f arrow.Field, key string) string {
	if i := f.Metadata.FindKey(key); i >= 0 {
		return f.Metadata.Values()[i]
	}
	return ""
}
