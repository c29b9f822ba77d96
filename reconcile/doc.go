// Package reconcile turns the unfiltered partitions of one or many SSTables
// into exactly the live rows Cassandra would return: a k-way merge in token
// and clustering order applying Cassandra's rules for partition, range,
// row, cell and collection tombstones, TTL expiry, last-write-wins and
// counters.
//
// It imports only package sstable. It knows no files, no wire and no clock:
// "now" is an explicit input, so results are reproducible.
package reconcile
