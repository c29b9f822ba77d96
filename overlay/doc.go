// Package overlay keeps what Cassandra has acknowledged and not yet
// flushed, read from its commit log, and serves it as runs: in-memory
// SSTables (sstable/writer) that the read path merges with the table's
// SSTables by Cassandra's rules, as one more reader each
// (docs/commitlog-notes.md, "Plan").
//
// An Overlay follows one commit log directory (commitlog.Tailer), decodes
// every update of a table it knows the schema of (commitlog.Decoder), and
// keeps the mutations' bytes, within a bound. Runs seals the updates of
// one table that its SSTables do not hold yet (commitlog.Persisted) into
// runs of at most one update per partition: several updates of one
// partition repeat clusterings and overlap range tombstones, which no one
// source may, so the k-th update of a partition goes to the k-th run, and
// the merge reconciles them as it reconciles SSTables.
//
// The server wires it into its snapshot epochs (flightserver/fresh).
package overlay
