// Command flight-loadgen measures an sstable-flight server directly over
// Flight (no query engine in the way) and, with --compare-cql, the same
// ops through a Cassandra node's CQL path, printing a ratio for each
// figure. Each endpoint is read from its Flight locations (a ring plan's
// replicas' servers, skipping one that is UNAVAILABLE before its first
// batch), or from --addr when it names none; a run over a ring prints
// the rows each server served. The work is in package loadgen; this
// file is flags only.
//
//	go run ./cmd/flight-loadgen --addr 127.0.0.1:8815 --table corpus.many --shape point --ramp 1,4 --step 10s
package main
