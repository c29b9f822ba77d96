package catalog

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/sstable-flight/sstable-flight/sstable/marshal"
)

// FromCassandra reads every table of the node's non-system keyspaces from
// system_schema (tables, columns, types, dropped_columns), with
// system.local's schema_version. The version is read before and after the
// tables and the read is repeated if it changed, so the tables are those
// of Version. Materialized views are not included.
//
// system_schema.dropped_columns stores drop times in milliseconds
// (SchemaKeyspace writes dropped_time as a timestamp), so Dropped holds
// them as milliseconds × 1000: what Cassandra itself uses once it reloads
// the schema from disk, while DESCRIBE on the node that ran the DROP shows
// the microsecond time it still holds in memory.
func FromCassandra(ctx context.Context, s *gocql.Session) (*Schema, error) {
	const attempts = 3
	for range attempts {
		before, err := SchemaVersion(ctx, s)
		if err != nil {
			return nil, err
		}
		tables, unreadable, err := readTables(ctx, s)
		if err != nil {
			return nil, err
		}
		after, err := SchemaVersion(ctx, s)
		if err != nil {
			return nil, err
		}
		if before == after {
			return &Schema{Tables: tables, Unreadable: unreadable, Version: before}, nil
		}
	}
	return nil, fmt.Errorf("read schema from cassandra: schema_version changed during each of %d reads", attempts)
}

// SchemaVersion returns system.local's schema_version: a UUID that changes
// with every schema change on the node.
func SchemaVersion(ctx context.Context, s *gocql.Session) (string, error) {
	var v gocql.UUID
	if err := s.Query("SELECT schema_version FROM system.local").WithContext(ctx).Scan(&v); err != nil {
		return "", fmt.Errorf("read schema version: %w", err)
	}
	return v.String(), nil
}

// readTables reads every user table. A table one of whose columns cannot
// be read (a type this reader does not know) is returned among the
// unreadable ones, with why, and the others are read all the same.
func readTables(ctx context.Context, s *gocql.Session) ([]*Table, []UnreadableTable, error) {
	types, err := readTypes(ctx, s)
	if err != nil {
		return nil, nil, err
	}
	byKey := map[typeKey]*Table{}
	var all []*Table
	var ks, name string
	var id gocql.UUID
	iter := s.Query("SELECT keyspace_name, table_name, id FROM system_schema.tables").WithContext(ctx).Iter()
	for iter.Scan(&ks, &name, &id) {
		if IsSystemKeyspace(ks) {
			continue
		}
		t := &Table{Keyspace: ks, Name: name, ID: strings.ReplaceAll(id.String(), "-", ""), Dropped: map[string]int64{}, Source: SourceCassandra}
		byKey[typeKey{ks, name}] = t
		all = append(all, t)
	}
	if err := iter.Close(); err != nil {
		return nil, nil, fmt.Errorf("read system_schema.tables: %w", err)
	}
	bad := map[typeKey]error{}
	res := newResolver(types)
	if err := readColumns(ctx, s, byKey, res, bad); err != nil {
		return nil, nil, err
	}
	if err := readDropped(ctx, s, byKey, res); err != nil {
		return nil, nil, err
	}
	var out []*Table
	var unreadable []UnreadableTable
	for _, t := range all {
		err := bad[typeKey{t.Keyspace, t.Name}]
		if err == nil {
			err = checkPositions(t)
		}
		if err != nil {
			unreadable = append(unreadable, UnreadableTable{Keyspace: t.Keyspace, Name: t.Name, Err: err})
			continue
		}
		sortColumns(t.Columns)
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Keyspace != out[j].Keyspace {
			return out[i].Keyspace < out[j].Keyspace
		}
		return out[i].Name < out[j].Name
	})
	return out, unreadable, nil
}

// readTypes reads system_schema.types; field types are CQL strings.
func readTypes(ctx context.Context, s *gocql.Session) (map[typeKey]*userType, error) {
	types := map[typeKey]*userType{}
	var ks, name string
	var names, ftypes []string
	iter := s.Query("SELECT keyspace_name, type_name, field_names, field_types FROM system_schema.types").WithContext(ctx).Iter()
	defer iter.Close() // on early returns; Close is idempotent
	for iter.Scan(&ks, &name, &names, &ftypes) {
		if IsSystemKeyspace(ks) {
			continue
		}
		if len(names) != len(ftypes) {
			return nil, fmt.Errorf("read system_schema.types: type %s.%s has %d field names and %d field types", ks, name, len(names), len(ftypes))
		}
		u := &userType{fieldNames: names}
		for i, ft := range ftypes {
			rt, err := parseTypeString(ft, fmt.Sprintf("system_schema.types %s.%s field %s", ks, name, names[i]))
			if err != nil {
				// Only the tables that use the type fail, when they resolve it.
				u.err = fmt.Errorf("read system_schema.types: %w", err)
				break
			}
			u.fieldTypes = append(u.fieldTypes, rt)
		}
		types[typeKey{ks, name}] = u
		names, ftypes = nil, nil // Scan reuses slices otherwise
	}
	if err := iter.Close(); err != nil {
		return nil, fmt.Errorf("read system_schema.types: %w", err)
	}
	return types, nil
}

// readColumns reads system_schema.columns into the tables. Its type
// column is the CQL type without ReversedType; clustering_order says DESC.
// A column that cannot be read marks its table bad (its first reason).
func readColumns(ctx context.Context, s *gocql.Session, tables map[typeKey]*Table, res *resolver, bad map[typeKey]error) error {
	var ks, tbl, col, order, kind, typ string
	var pos int
	iter := s.Query("SELECT keyspace_name, table_name, column_name, clustering_order, kind, position, type FROM system_schema.columns").WithContext(ctx).Iter()
	defer iter.Close() // on early returns; Close is idempotent
	for iter.Scan(&ks, &tbl, &col, &order, &kind, &pos, &typ) {
		t := tables[typeKey{ks, tbl}]
		if t == nil {
			continue // a system table, or a materialized view
		}
		key := typeKey{ks, tbl}
		if bad[key] != nil {
			continue
		}
		mt, k, err := readColumn(res, ks, tbl, col, kind, typ)
		if err != nil {
			bad[key] = err
			continue
		}
		c := Column{Name: col, Type: mt, Kind: k, Position: pos, Desc: order == "desc"}
		if k != PartitionKey && k != Clustering {
			c.Position = -1
		}
		mt.Reversed = c.Desc
		t.Columns = append(t.Columns, c)
	}
	if err := iter.Close(); err != nil {
		return fmt.Errorf("read system_schema.columns: %w", err)
	}
	return nil
}

// readColumn reads one row of system_schema.columns: the column's type
// and kind.
func readColumn(res *resolver, ks, tbl, col, kind, typ string) (*marshal.Type, Kind, error) {
	k, ok := parseKind(kind)
	if !ok {
		return nil, 0, fmt.Errorf("read system_schema.columns: column %s of %s.%s has unknown kind %q", col, ks, tbl, kind)
	}
	rt, err := parseTypeString(typ, fmt.Sprintf("system_schema.columns %s.%s.%s", ks, tbl, col))
	if err != nil {
		return nil, 0, fmt.Errorf("read system_schema.columns: %w", err)
	}
	mt, err := res.column(rt, ks)
	if err != nil {
		return nil, 0, fmt.Errorf("read system_schema.columns: resolve type of %s.%s.%s: %w", ks, tbl, col, err)
	}
	return mt, k, nil
}

// readDropped reads system_schema.dropped_columns; see FromCassandra on
// the drop time's precision. A dropped column's type is kept where it
// parses (DroppedTypes): the commit log may still hold writes of it.
func readDropped(ctx context.Context, s *gocql.Session, tables map[typeKey]*Table, res *resolver) error {
	var ks, tbl, col, typ string
	var at time.Time
	iter := s.Query("SELECT keyspace_name, table_name, column_name, dropped_time, type FROM system_schema.dropped_columns").WithContext(ctx).Iter()
	for iter.Scan(&ks, &tbl, &col, &at, &typ) {
		t := tables[typeKey{ks, tbl}]
		if t == nil {
			continue
		}
		t.Dropped[col] = at.UnixMilli() * 1000
		if rt, err := parseTypeString(typ, fmt.Sprintf("system_schema.dropped_columns %s.%s.%s", ks, tbl, col)); err == nil {
			if mt, err := res.column(rt, ks); err == nil {
				if t.DroppedTypes == nil {
					t.DroppedTypes = map[string]*marshal.Type{}
				}
				t.DroppedTypes[col] = mt
			}
		}
	}
	if err := iter.Close(); err != nil {
		return fmt.Errorf("read system_schema.dropped_columns: %w", err)
	}
	return nil
}

// checkPositions makes sure the key columns' positions are 0..n-1 for the
// partition key and for the clustering, so that positions index arrays.
func checkPositions(t *Table) error {
	for _, k := range []Kind{PartitionKey, Clustering} {
		var seen []bool
		for _, c := range t.Columns {
			if c.Kind != k {
				continue
			}
			if c.Position < 0 || c.Position >= len(t.Columns) {
				return fmt.Errorf("read schema of %s.%s: %s column %s has position %d", t.Keyspace, t.Name, k, c.Name, c.Position)
			}
			for len(seen) <= c.Position {
				seen = append(seen, false)
			}
			if seen[c.Position] {
				return fmt.Errorf("read schema of %s.%s: two %s columns have position %d", t.Keyspace, t.Name, k, c.Position)
			}
			seen[c.Position] = true
		}
		for i, ok := range seen {
			if !ok {
				return fmt.Errorf("read schema of %s.%s: no %s column has position %d", t.Keyspace, t.Name, k, i)
			}
		}
		if k == PartitionKey && len(seen) == 0 {
			return fmt.Errorf("read schema of %s.%s: no partition key column", t.Keyspace, t.Name)
		}
	}
	return nil
}
