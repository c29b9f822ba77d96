// Package corpus generates and checks the test corpus: tables written by a
// real Cassandra node, copied out in Cassandra's own directory layout
// (<mode>/<keyspace>/<table>-<id>/), each with schema.cql, expected.json
// (the rows of SELECT * over CQL) and sstabledump/*.json (Cassandra's own
// raw dump of every Data.db).
//
// The datasets are chosen so that every feature the reader and the
// reconciler must get right is present in every SSTable format: every CQL
// type with edge values, collections and UDTs, static columns, composite
// keys, wide partitions, every deletion kind, TTLs, timestamp conflicts,
// counters, overlapping generations and every compression. Coverage checks
// that list against a corpus directory, so a lost feature fails a test.
//
// No SSTable here is written by our code: the generator only talks CQL and
// runs Cassandra's NodeTool and SSTableExport.
//
// Tests load a mode with Load and walk its tables with Sorted and Cases
// (cases.go), or every mode's with Cases.Tables: one subtest per table,
// "<mode>/<table>", in name order, so one case can be rerun alone.
package corpus
