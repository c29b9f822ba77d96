// Package snapshot gives every query a stable, consistent set of SSTables
// for a (keyspace, table), safe against Cassandra's flushes and
// compactions, and keeps data seconds fresh.
//
//   - Lister finds table directories (layout.go) and lists their
//     SSTables as Cassandra would load them: txn logs (snapshot/txnlog)
//     hide what a running flush or
//     compaction writes and what a finished one obsoleted. Keyspace and
//     table directories that are symbolic links are never entered
//     (skipLink); the Lister tells its caller of each once. A Locator
//     (locate.go) finds a table as the mode reads it: its local
//     directory (PickDir among a re-created table's), or in Sidecar
//     mode the table Sidecar snapshots.
//   - Before an epoch takes them, listed SSTables are checked whole
//     (complete.go): an incomplete SSTable no txn log hides fails the cut
//     with ErrMissingComponent or ErrNotRegular, once listing again did
//     not settle it, rather than being left out.
//   - Manager cuts epochs (manager.go, acquire.go, epoch.go): in Hardlink mode it
//     links every TOC component into a directory of ours (links.go,
//     root.go); in Sidecar mode an epoch is a Cassandra snapshot taken
//     through Apache Cassandra Sidecar and read over HTTP (sidecarmode.go,
//     snapshot/sidecar); queries within the freshness window share one
//     epoch; readers are shared across epochs by (device, inode)
//     (readers.go); superseded epochs go after a grace period or when the
//     bytes only our links keep pass a cap.
//   - Config (config.go) says how: the mode, the directories, the window
//     and grace, the clock. NewManager resolves it once (resolve: the
//     defaults, by mode, and a ConfigError naming the field of a value
//     that cannot work; the data directory with its links followed, and
//     the snapshot directory checked against it as resolved, root.go);
//     Manager.Window and Manager.DataDir are the resolved window and
//     directory, for whoever else lists or trusts a listing.
//
// It knows files, directories and inodes, and opens sstable readers; it
// knows nothing of the wire. It never writes into Cassandra's
// directories: its only writes are links and directories under its own
// snapshot directory (in Sidecar mode, the journal of the snapshots it
// asked Cassandra for).
package snapshot
