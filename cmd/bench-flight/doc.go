// Command bench-flight measures sstable-flight against its performance
// targets (docs/PERFORMANCE.md) and writes their record: a warm keyed
// read (A1), keyed throughput (A2), the cold first touch of a table and
// the idle RSS (A3), the scan feed rate (A4) and overload (A5), each
// beside the same shape through CQL on the same node in the same run. It
// was bench-lane-a; the record's section is still "Lane A".
//
// It runs inside cmd/cassandra-harness, which starts the node and passes
// it in the environment; `make bench-flight` does both:
//
//	make bench-flight BENCH_FLIGHT_FLAGS='-kv-rows 20000 -ts-partitions 2000 -step 3s'
//
// The data (keyspace lanea: kv and ts) is written through CQL and compacted
// to one SSTable per table; sstable-flight is built and run as a separate
// process beside the node and stopped at the end. The report goes to
// build/lane-a/report.md and report.json, with the server's log and CPU
// profiles beside them; -update-doc rewrites the Lane A section of
// docs/PERFORMANCE.md.
//
// To keep the data between runs, start a node that outlives them and
// pass -reuse:
//
//	go run ./cmd/cassandra-harness start -dir build/lane-a-node
//	eval "$(go run ./cmd/cassandra-harness env -dir build/lane-a-node)"
//	go run ./cmd/bench-flight -reuse
//
// The work is in package loadgen/flightbench, which drives package
// loadgen's ramps, and loadgen/testbed (the dataset and the server
// process); this command is flags and wiring only.
package main
