// Package loadgen is the server-direct measurement rig behind
// cmd/flight-loadgen: keyed point reads of real partition keys, slices,
// scans and mixes, in closed-loop ramps or open-loop fixed rates, with the
// same shapes run through Cassandra's CQL path for a ratio from one run.
//
// It talks to the server only through Flight (and to Cassandra only through
// CQL), so what it measures is what users get.
package loadgen
