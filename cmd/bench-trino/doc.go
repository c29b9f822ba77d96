// Command bench-trino measures what Trino gains from our connector
// (docs/PERFORMANCE.md's "Lane B"; it was bench-lane-b): the same
// queries through one Trino's two catalogs over one Cassandra node, ours (sstable_flight, reading the node's
// SSTables through sstable-flight) and Trino's own cassandra connector
// (reading through CQL), warm, several runs each, with Trino's CPU per
// row and page-source time and a JFR profile of Trino during our scans;
// a join of a 100-key dimension table (Trino's memory catalog) to kv
// with the dynamic-filter evidence of Trino's query stats, held against
// the same keys read straight from the server; and keyed lookups from 8
// and 32 concurrent clients through each catalog, with a JFR profile of
// ours' (docs/loadgen.md, "Lane B").
//
// It runs inside cmd/cassandra-harness, which starts the node and passes
// it in the environment; `make bench-trino` does both:
//
//	make bench-trino BENCH_TRINO_FLAGS='-kv-rows 20000 -ts-partitions 2000 -runs 3 -concurrency-duration 5s'
//
// The data is bench-flight's (package loadgen/testbed: kv and ts,
// written through CQL and compacted to one SSTable each) in keyspace laneb, or -keyspace's
// (on a shared node, one of your own). sstable-flight is built and
// started beside the node, and Trino 476
// (deploy/local/install-trino.sh) with the plugin `make trino-plugin`
// builds; every process it starts is stopped by pid at the end, also on
// failure. The report goes to build/lane-b/report.md and report.json,
// with the logs, the JFR recordings and the join's evidence beside them.
//
// The work is in package loadgen/trinobench; this command is flags and
// wiring.
package main
