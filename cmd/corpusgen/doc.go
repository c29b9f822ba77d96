// Command corpusgen writes the test corpus through a real Cassandra node:
// one node per storage mode, datasets written over CQL and flushed with
// NodeTool, tables copied out with schema.cql, expected.json and
// sstabledump output. See testdata/corpus/README.md.
package main
