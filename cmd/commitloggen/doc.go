// Command commitloggen writes the commit log fixtures of package commitlog
// (commitlog/testdata) through real Cassandra 5.0.9 nodes: one node per
// fixture, in the storage mode that picks the commit log version (nb
// writes version 7, oa version 8) and with the fixture's
// commitlog_compression. Each node takes a known workload over CQL, its
// table is flushed so sstablemetadata reports the commitLogIntervals
// Cassandra derived from the log, then the node is killed (SIGKILL: a
// drain would flush every table and delete the segments) and its segment
// files are copied out. `make commitlog-fixtures` runs it;
// commitlog/testdata/README.md says what the fixtures hold.
package main
