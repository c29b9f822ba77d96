// Package tables is the server's registry of the tables it serves: it
// finds a table's directory, leases a snapshot epoch of its SSTables for
// one plan or stream (Lease), and keeps, per table directory, the model
// built from its schema (Table: the reconcile table, the Arrow schema,
// the output columns) until the schema or the directory changes.
//
//   - registry.go: Registry, finding and leasing, under the storage guard
//     where storage may not answer, without it when all is warm; the
//     names a request may give (checkNames: never Cassandra's system
//     keyspaces).
//   - schemas.go: SchemaSource, what a source of schemas must answer, and
//     CatalogSchemas, the one over catalog.Catalog.
//   - table.go: Table, its projections, and the pooled Arrow batcher of
//     its full projection.
//   - keys.go, keyvalue.go, inet.go: a command's keys and clustering
//     bounds, JSON values serialized as the table's types.
//   - ticketcheck.go: a ticket checked again against the table at DoGet.
//
// It imports snapshot, catalog, reconcile, arrowenc and request, never
// flightserver.
package tables
