// Package txnlog reads Cassandra's lifecycle transaction logs
// (db/lifecycle: LogFile, LogRecord, LogAwareFileLister). A flush,
// compaction or stream keeps a log next to the SSTables it writes (ADD)
// or obsoletes (REMOVE); the log ends with COMMIT or ABORT, then Cassandra
// deletes the losing side's files and deletes the log last. Until then
// the directory holds files that are not part of the table.
//
// log.go reads and verifies the logs, record.go parses their lines, and
// classify.go classifies a directory's files as Cassandra does when it
// loads a table's SSTables (TemporaryFiles, LiveEntries), which is how
// package snapshot lists a table.
package txnlog
