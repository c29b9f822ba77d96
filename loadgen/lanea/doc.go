// Package lanea is Lane A (issue #7): it measures sstable-flight against
// its performance goals, each beside the same shape through CQL on the
// same node in the same run, and writes the record that
// docs/PERFORMANCE.md keeps. cmd/bench-lane-a wires flags to it.
//
// The goals are A1, the warm keyed read; A2, keyed throughput; A3, the
// cold first touch of a table and the idle RSS; A4, the scan feed rate;
// and A5, overload. Targets holds the figures, never a result:
// each report row computes met or not met from the measured figure
// beside its target.
//
// A run flows in one direction. Generate writes the dataset (a narrow
// kv table and a time-series ts table) through CQL and major-compacts
// each to one SSTable, so both arms read what Cassandra itself wrote.
// Run starts the server as a child process beside the node and measures
// the goals in an order that keeps each clean: A3 on fresh processes,
// then A1 and A2 (one point ramp) and A4 (a scan ramp) through
// loadgen.Run, with a server CPU profile of one step each, and last A5.
// NewReport turns the Measurements into Goals; Report.Markdown renders
// them, and UpdateDoc rewrites only the lines between the markers of
// docs/PERFORMANCE.md.
//
// lanea imports loadgen, never the reverse: the ramps, the Flight client
// and the scrape of the server's /metrics are loadgen's, and loadgen
// knows nothing of Lane A.
//
// Files, one job each:
//
//	run.go       Config and Run: the goals' measurements in order
//	data.go      the dataset, written through CQL and compacted
//	server.go    sstable-flight as a child process: build, start, health, metrics, stop
//	cold.go      A3: the first query of a table on a fresh process
//	profile.go   the server's CPU profile and its top functions
//	goals.go     targets, and measurements to met / not met
//	report.go    the report: header, Markdown, JSON
//	perfdoc.go   the report's section of docs/PERFORMANCE.md
//	machine.go   what the header says about the machine and build
package lanea
