// Package loadgen is the server-direct measurement rig behind
// cmd/flight-loadgen. It drives the Flight server with one query shape
// (point, in, slice, limit, scan, range) or a weighted mix in closed-loop concurrency ramps or at an
// open-loop fixed rate, records latencies in HDR histograms, scrapes the
// server's /metrics for its RSS and CPU during each step, and can run the
// same shape over the same keys through Cassandra's CQL path so that every
// figure comes with a ratio from one run.
//
// Endpoints are read where their FlightInfo says (locations.go): on a
// cluster (docs/architecture.md, "Ring, peers and planning") each from
// the first of its replicas' servers that answers, and the report says
// how many rows each server served.
//
// It talks to the server only through Flight (and to Cassandra only through
// CQL), so what it measures is what users get.
//
// Files, one job each:
//
//	config.go     Config, defaults and checks
//	flight.go     the Flight client: dialing, bearer token, reading streams
//	locations.go  each endpoint read from its locations, in order, moving
//	              on from one that fails UNAVAILABLE before its first batch
//	schema.go     the table's partition key, from the Flight schema's metadata
//	literal.go    Arrow key values back to JSON command literals and CQL values
//	sample.go     the seeded sample of real partition keys
//	plan.go       what op i reads: the same for both arms, from the seed
//	target.go     the Flight arm: one op of each shape
//	cql.go        the CQL arm: the same ops through gocql
//	recorder.go   per-worker histograms and counters, merged into a Step
//	step.go       one step: closed loop or open loop, warm-up, drain
//	scrape.go     the server's Prometheus metrics
//	report.go     the terminal table, ratio lines, JSONL and CSV
//	html.go       the HTML report: charts over the ramp and every step
//	run.go        Run: the whole ramp, both arms
//
// The Flight server's performance goals (package loadgen/flightbench,
// cmd/bench-flight) build on Run, DialFlight, ReadEndpoints and
// ScrapeMetrics, and the benchmarks' shared dataset and server process
// (loadgen/testbed) on ScrapeMetrics; imports flow from those packages to
// loadgen only.
package loadgen
