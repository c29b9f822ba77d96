// Package sidecar reads a Cassandra node's SSTables through Apache
// Cassandra Sidecar's REST API, for deployments where our server does not
// share Cassandra's data volume ("Sidecar mode").
//
// A Client takes, lists and clears snapshots of one table:
//
//	PUT    /api/v1/keyspaces/{ks}/tables/{table}/snapshots/{snapshot}   create (Cassandra's own snapshot)
//	GET    /api/v1/keyspaces/{ks}/tables/{table}/snapshots/{snapshot}   list its files and their sizes
//	DELETE /api/v1/keyspaces/{ks}/tables/{table}/snapshots/{snapshot}   clear
//
// and (*Client).FS turns one snapshot into an sstable.FS, so that
// sstable.Open reads a snapshot's components as if they were local:
//
//	GET .../snapshots/{snapshot}/components/{file}?dataDirectoryIndex=N   with Range: bytes=a-b
//
// Data flows listing → file → block cache → HTTP range request. The
// listing gives every file its size and data directory (fetched once per
// FS); a file's ReadAt is cut into fixed, aligned blocks (BlockSize) that
// come from an LRU cache shared by every file of the client (CacheBytes);
// a missing block is fetched with one Range request, and concurrent
// readers of the same missing block wait for that one request. Stats
// counts requests, bytes and cache hits for metrics.
//
// A 404 from Sidecar (no such keyspace, table, snapshot or file) is an
// error that matches fs.ErrNotExist, and a 409 (the snapshot exists) one
// that matches fs.ErrExist; every error names the route and the status.
//
// Package sidecartest is an in-process fake Sidecar over a local data
// directory, for tests.
package sidecar
