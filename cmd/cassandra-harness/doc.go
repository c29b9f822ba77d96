// Command cassandra-harness starts, drives and stops a local Apache
// Cassandra 5.0 node (see internal/cassandratest).
//
//	cassandra-harness run [-mode oa] -- CMD ARGS...   node around one command (make test)
//	cassandra-harness start [-mode oa] -dir DIR       start and leave running
//	cassandra-harness stop -dir DIR
//	cassandra-harness nodetool -dir DIR ARGS...       Cassandra's NodeTool
//	cassandra-harness sstabledump -dir DIR DATA.db    Cassandra's SSTableExport
//	cassandra-harness env -dir DIR                    print the connection variables
package main
