// Package snapshot gives every query a stable, consistent set of SSTables
// for a (keyspace, table): hardlink snapshots cut per freshness window,
// safe against Cassandra's flushes and compactions, and cleaned up when
// unused.
//
// It knows files, directories and inodes; it may open sstable readers; it
// knows nothing of the wire. So far it lists the tables and SSTables of a
// Cassandra data directory (Layout); snapshots are the subject of later work.
package snapshot
