// Package safefile opens the files the server reads from directories it
// does not own (Cassandra's data directory, a table's schema.cql, its
// txn logs) without the two ways an open can go wrong there: following a
// symbolic link out of the directory, and waiting for ever on a FIFO.
package safefile
