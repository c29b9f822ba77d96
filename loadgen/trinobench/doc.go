// Package trinobench measures the Trino connector against Trino's own
// cassandra connector: the same queries (scans, aggregates, keyed
// lookups, a join, concurrent load) through one Trino with both catalogs
// over the same node's data, with Trino's query stats, a JFR profile of
// the connector's share of Trino's CPU, and the record docs/PERFORMANCE.md
// keeps. cmd/bench-trino wires flags to Run; the dataset, the server child
// process and the ports are loadgen/testbed's, shared with flightbench.
package trinobench
