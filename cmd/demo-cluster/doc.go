// Command demo-cluster shows the servers planning over a ring: it starts
// three Cassandra 5.0 nodes on 127.0.0.1, .2 and .3 (one machine,
// loopback addresses; internal/testkit/cassandratest), writes a keyspace at RF 2
// through CQL, starts one sstable-flight per node (--cassandra its node,
// --peers all three, one shared ticket key), scans the table through one
// of them, each endpoint read from its locations, and prints the rows
// each server served beside CQL's count. It stops everything it started,
// by pid, on success, failure and interrupt.
//
//	go build -o bin/sstable-flight ./cmd/sstable-flight
//	go run ./cmd/demo-cluster -server bin/sstable-flight [-dir DIR] [-rows 3000]
//
// make demo-cluster does both.
package main
