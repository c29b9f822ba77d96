// Package sidecartest is an in-process fake of Apache Cassandra Sidecar's
// snapshot API, for tests of package sidecar and of what is built on it.
//
// It serves a Cassandra-layout data directory, <dataDir>/<keyspace>/
// <table>-<id>/, as Sidecar serves a node's:
//
//	PUT    /api/v1/keyspaces/{ks}/tables/{table}/snapshots/{snapshot}   hard-links every TOC component of the live SSTables, with manifest.json and schema.cql, into <table dir>/snapshots/{snapshot}/; 409 if it exists
//	GET    …/snapshots/{snapshot}                                       lists the files as ListSnapshotFilesResponse JSON; 404 if there are none
//	DELETE …/snapshots/{snapshot}                                       removes the snapshot directory
//	GET    …/snapshots/{snapshot}/components/{component}                streams one file, honouring a single Range
//
// Like Sidecar it answers 404 for an unknown keyspace, table, snapshot or
// component, 400 for a name Sidecar would refuse (and any that could
// leave the data directory), 416 for an unsatisfiable range or an empty
// file, and errors as {"status", "code", "message"} JSON. It cannot flush
// Cassandra's memtables: a snapshot holds what is on disk. It records
// every request it serves, and can be told to throttle (429) the next
// component requests, as Sidecar's stream rate limiter does.
package sidecartest
