// Command bench-lane-b measures issue #16's Lane B: the same queries
// through one Trino's two catalogs over one Cassandra node, ours
// (sstable_flight, reading the node's SSTables through sstable-flight)
// and Trino's own cassandra connector (reading through CQL), warm,
// several runs each, with Trino's CPU per row and page-source time and a
// JFR profile of Trino during our scans.
//
// It runs inside cmd/cassandra-harness, which starts the node and passes
// it in the environment; `make bench-lane-b` does both:
//
//	make bench-lane-b LANEB_FLAGS='-kv-rows 20000 -ts-partitions 2000 -runs 3'
//
// The data is Lane A's (package loadgen/lanea: kv and ts, written through
// CQL and compacted to one SSTable each) in keyspace laneb. sstable-flight
// is built and started beside the node, and Trino 476
// (deploy/local/install-trino.sh) with the plugin `make trino-plugin`
// builds; every process it starts is stopped by pid at the end, also on
// failure. The report goes to build/lane-b/report.md and report.json,
// with the logs and the JFR recording beside them.
//
// The work is in package loadgen/laneb; this command is flags and wiring.
package main
