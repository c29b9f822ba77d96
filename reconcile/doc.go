// Package reconcile turns the unfiltered partitions of one or many SSTables
// into exactly the live rows Cassandra would return: a k-way merge in token
// and clustering order applying Cassandra's rules for partition, range,
// row, cell and collection tombstones, TTL expiry, last-write-wins and
// counters.
//
// It imports only package sstable and its marshal (and
// internal/invariants, the invariants build tag's switch). It knows no files, no wire and no
// clock: "now" is an explicit input, so results are reproducible.
//
// A Row aliases the scanners' buffers and the merger's arena until the
// next Next; a Merger and its rows are dead after Release, which must be
// called once. Built with -tags invariants, Release poisons the arenas
// (the scanners poison their own buffers) and a second Release panics,
// also after a later merge reused the merger's scratch (release.go).
package reconcile
