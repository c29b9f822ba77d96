// Command sstable-flight serves the SSTables of a Cassandra data directory
// as Arrow over Arrow Flight (package flightserver), with Prometheus
// metrics (and pprof, with --pprof) on an admin port that takes Flight's
// TLS and token; --admin-listen "" serves none.
//
// It only wires: flags into flightserver.Config (flags.go), the schema
// source (schema.cql files, SSTable headers, or a local Cassandra node
// over CQL), the snapshot mode (hard links, live, or Cassandra Sidecar),
// signals and a drain on SIGTERM, bounded by --drain-timeout: past it
// the process exits, non-zero, whatever is still running. It applies no defaults of its own: a
// flag not given is zero or the package's constant, and the packages'
// Configs resolve and check them; a value they refuse is reported by its
// flag. --data-dir has no default (Cassandra's location varies by
// install); `make run` passes the committed corpus, so it runs without
// Cassandra. Flags: sstable-flight -h; docs/configuration.md.
package main
