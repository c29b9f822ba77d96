// Package fresh serves what Cassandra acknowledged and has not flushed:
// it follows the node's commit log (overlay.Overlay, fed by a polling
// goroutine), keeps it decodable with the schemas the catalog reads from
// the node, and answers snapshot.Unflushed, so that each epoch cut for a
// table reads its SSTables plus the runs of its unflushed writes, sealed
// against those SSTables' commit log intervals (issue #28;
// docs/commitlog-notes.md, "Plan").
//
// Which writes the SSTables already hold is Cassandra's replay rule
// (commitlog.Persisted): it needs this node's host id and the tables'
// truncation positions, read from system.local over the server's CQL
// session. Until they are read, and whenever the log cannot be read
// whole (its memory bound hit, a damaged segment, a table whose schema
// is not known), a table's epochs are its flushed data only, and say
// why (snapshot.Freshness, the plan's app_metadata, sstf_overlay_*).
package fresh
