// Package flightbench measures sstable-flight against its performance
// targets (docs/PERFORMANCE.md, the Flight server's), each beside the same
// shape through CQL on the same node in the same run, and writes the
// record that docs/PERFORMANCE.md keeps. cmd/bench-flight wires flags to
// it. (It was loadgen/lanea, "Lane A" of the project's plan; the record's
// headings and goal IDs, A1 to A5, keep those names.)
//
// The goals are KeyedReadLatency (A1), the warm keyed read;
// KeyedThroughput (A2); ColdStart (A3), the cold first touch of a table
// and the idle RSS; ScanFeedRate (A4); and Overload (A5). Targets holds
// the documented figures, never a result: each report row computes met or
// not met from the measured figure beside its target.
//
// A run flows in one direction. testbed.Generate writes the dataset (a
// narrow kv table and a time-series ts table) through CQL and
// major-compacts each to one SSTable, so both arms read what Cassandra
// itself wrote. Run starts the server as a child process beside the node
// (testbed.StartServer) and measures the goals in an order that keeps
// each clean: the cold start on fresh processes, then keyed latency and
// throughput (one point ramp) and the scan feed rate (a scan ramp)
// through loadgen.Run, with a server CPU profile of one step each, and
// last overload. NewReport turns the Measurements into Goals;
// Report.Markdown renders them, and UpdateDoc rewrites only the lines
// between the markers of docs/PERFORMANCE.md.
//
// flightbench imports loadgen and loadgen/testbed, never the reverse: the
// ramps, the Flight client and the scrape of the server's /metrics are
// loadgen's, the dataset and the server process testbed's (shared with
// loadgen/trinobench, which imports nothing of this package).
//
// Files, one job each:
//
//	run.go       Config and Run: the goals' measurements in order
//	cold.go      the cold start: the first query of a table on a fresh process
//	profile.go   the server's CPU profile and its top functions
//	goals.go     targets, and measurements to met / not met
//	report.go    the report: header, Markdown, JSON
//	perfdoc.go   the report's section of docs/PERFORMANCE.md
package flightbench
