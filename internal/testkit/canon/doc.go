// Package canon renders Cassandra values in the canonical JSON form of the
// corpus' expected.json (see testdata/corpus/README.md), from a marshal
// type and the value's serialized bytes.
//
// The corpus renders CQL's answers through gocql; this package renders
// what our reader and reconciler produce. Tests compare the two, so the
// two renderings are written independently: a bug on either side shows as
// a difference.
package canon
