// Package testbed is what the two benchmark commands share, so that
// neither imports the other: the dataset (Generate: a narrow kv table and
// a time-series ts table written through CQL and major-compacted to one
// SSTable each, so every arm reads what Cassandra itself wrote),
// sstable-flight as a child process beside the node (BuildServer,
// StartServer, ServerProc), free loopback ports, and a record's machine
// header and files (Machine, Command, WriteReport).
//
// loadgen/flightbench (cmd/bench-flight) measures the Flight server
// against its performance goals on this dataset; loadgen/trinobench
// (cmd/bench-trino) runs Trino over it through two connectors. testbed
// imports loadgen for the metrics scrape and nothing of either.
//
// Files, one job each:
//
//	data.go      the dataset, written through CQL and compacted
//	server.go    sstable-flight as a child process: build, start, health, metrics, stop
//	machine.go   what a record's header says about the machine and build
//	record.go    the record's files and the command line it names
package testbed
