package catalog

import (
	"github.com/sstable-flight/sstable-flight/sstable/marshal"
)

// Kind is a column's role in the table, as system_schema.columns.kind
// names it.
type Kind int

const (
	PartitionKey Kind = iota
	Clustering
	Static
	Regular
)

var kindNames = [...]string{"partition_key", "clustering", "static", "regular"}

// String returns the system_schema spelling: "partition_key",
// "clustering", "static" or "regular".
func (k Kind) String() string {
	if k >= 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "invalid"
}

// parseKind is the inverse of Kind.String.
func parseKind(s string) (Kind, bool) {
	for k, n := range kindNames {
		if n == s {
			return Kind(k), true
		}
	}
	return 0, false
}

// Column is one column of a table.
type Column struct {
	Name string
	// Type is the column's type as marshal.Parse gives it from an SSTable
	// serialization header: user types fully resolved, Frozen set the way
	// Cassandra freezes, and Reversed set on a DESC clustering column.
	Type     *marshal.Type
	Kind     Kind
	Position int  // component index for partition key and clustering columns, -1 otherwise
	Desc     bool // clustering column in DESC order
}

// Table is one table's schema. Treat it as read-only: the Catalog hands
// the same *Table to every caller.
type Table struct {
	Keyspace, Name string
	// ID is the table id as 32 lower-case hex digits without dashes, as
	// in the data directory name <table>-<id>; "" when unknown.
	ID string
	// Columns are in the order of CQL's SELECT *: the partition key
	// columns by position, the clustering columns by position, then the
	// static columns and then the regular ones, each group in Cassandra's
	// select order (by name; see selectOrder).
	Columns []Column
	// Dropped maps a dropped column's name to its drop time in
	// microseconds. A column dropped and then re-added is both here and
	// in Columns: its cells written at or before the drop stay hidden.
	Dropped map[string]int64
	// DroppedTypes are the dropped columns' types, where Cassandra's
	// schema gives them (system_schema.dropped_columns): what decodes
	// their writes still in the commit log. Nil from other sources.
	DroppedTypes map[string]*marshal.Type
	// Source says where the schema came from: SourceCassandra,
	// SourceSchemaCQL or SourceHeader.
	Source string
}

// Sources of a Table, in the Catalog's order of preference.
const (
	SourceCassandra = "cassandra"  // the node's system_schema
	SourceSchemaCQL = "schema.cql" // DESCRIBE output next to the SSTables
	SourceHeader    = "header"     // SSTable serialization headers only
)

// Keys returns the partition key and clustering columns: the prefix of
// Columns before the static and regular ones.
func (t *Table) Keys() []Column {
	n := 0
	for n < len(t.Columns) && (t.Columns[n].Kind == PartitionKey || t.Columns[n].Kind == Clustering) {
		n++
	}
	return t.Columns[:n]
}

// Column returns the column with this exact name.
func (t *Table) Column(name string) (Column, bool) {
	for _, c := range t.Columns {
		if c.Name == name {
			return c, true
		}
	}
	return Column{}, false
}

// Schema is every user table of a node.
type Schema struct {
	Tables []*Table
	// Unreadable holds the tables whose schema could not be read (a
	// column of a type this reader does not know), each with why. They
	// are not in Tables; one such table never keeps the others from being
	// read, and a lookup of it is that error rather than a guess from its
	// SSTables' headers.
	Unreadable []UnreadableTable
	// Version is system.local's schema_version when the tables were read;
	// it changes with every schema change, so comparing it tells whether
	// the schema must be read again.
	Version string
}

// UnreadableTable is a table of the node's schema that could not be read.
type UnreadableTable struct {
	Keyspace, Name string
	Err            error
}

// Problem returns why keyspace.table's schema could not be read, nil if
// it could or the table is not in the schema.
func (s *Schema) Problem(keyspace, table string) error {
	for _, u := range s.Unreadable {
		if u.Keyspace == keyspace && u.Name == table {
			return u.Err
		}
	}
	return nil
}

// Lookup finds a table by keyspace and table name (exact, case-sensitive
// names as Cassandra stores them).
func (s *Schema) Lookup(keyspace, table string) (*Table, bool) {
	for _, t := range s.Tables {
		if t.Keyspace == keyspace && t.Name == table {
			return t, true
		}
	}
	return nil, false
}

// ValidName reports whether s is a valid keyspace or table name:
// [A-Za-z0-9_]{1,48}, Cassandra's SchemaConstants.isValidName. Names
// that pass can be joined into a file path safely: no separators, no
// "..", no NUL.
func ValidName(s string) bool {
	if len(s) == 0 || len(s) > 48 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !isLetter(c) && !isDigit(c) && c != '_' {
			return false
		}
	}
	return true
}
