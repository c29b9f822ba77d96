// Command sstable-flight serves the SSTables of a Cassandra data directory
// as Arrow over Arrow Flight (package flightserver), with Prometheus
// metrics and pprof on an admin port.
//
// It only wires: flags into flightserver.Config, the schema source
// (schema.cql files, SSTable headers, or a local Cassandra node over CQL),
// the snapshot mode (hard links, live, or Cassandra Sidecar), signals and
// a drain on SIGTERM. `make run` starts it over the committed corpus, so it
// runs without Cassandra. Flags: sstable-flight -h; docs/configuration.md.
package main
