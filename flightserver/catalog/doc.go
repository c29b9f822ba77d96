// Package catalog is the server's source of table schemas: column names,
// kinds, key positions, clustering order, fully resolved types and dropped
// columns, in the form the SSTable reader and the reconciler use
// (marshal.Type, reconcile.Table).
//
// A schema comes from one of three sources, in this order of preference:
//
//  1. The local Cassandra node, through the driver (FromCassandra):
//     system_schema.tables, columns, types and dropped_columns. It is the
//     truth for the live table, including columns no SSTable has written
//     yet and drop times.
//  2. A schema.cql file in the table directory
//     (<data>/<keyspace>/<table>-<id>/schema.cql), the output of
//     DESCRIBE TABLE ... WITH INTERNALS (ParseCQL): for SSTables copied
//     away from their node, or when the node is down. WITH INTERNALS adds
//     the table id and the dropped columns (ALTER TABLE ... DROP c USING
//     TIMESTAMP t), without which old cells of dropped columns reappear.
//  3. The SSTables' serialization headers (FromHeader): types only, with
//     generated key column names ("key", "key2", ...; "column1", ...)
//     and no knowledge of dropped columns. Better than nothing.
//
// Catalog applies that order per table and caches Cassandra's schema,
// reading it again when system.local's schema_version changes.
//
// Types are parsed from CQL (system_schema's type column, DESCRIBE's
// column definitions) and must equal what marshal.Parse gives for the
// same column's serialization header, freezing included, so that a
// schema from any source decodes the same SSTables; the tests check this
// against every corpus table and against a live node.
//
// Columns are in the order of CQL's SELECT *: partition key, clustering,
// then static and regular columns in Cassandra's select order.
//
// Keyspace and table names that reach the file system must pass
// ValidName, so that no name is ever joined raw into a path.
package catalog
