// Package ringtest runs the servers of a ring test: the shared
// three-node cluster (internal/testkit/cassandratest's SharedCluster) with one
// keyspace at RF 2 written through CQL at consistency ALL and flushed on
// every node, and one sstable-flight server per node reading that
// node's data directory in place, all sharing one ticket key and finding
// each other through a static peer list. Tests of flightserver's ring
// planning and of the clients that follow its locations (loadgen) use
// it, so that both run against the same real cluster set-up.
package ringtest
