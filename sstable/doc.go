// Package sstable reads Apache Cassandra SSTables: every on-disk format
// (3.x ma…me, 4.x na/nb/nc, 5.0 oa BIG and da BTI), every compression and
// every CQL type, from any io.ReaderAt.
//
// It turns bytes into unfiltered partitions (partition deletion, static
// row, rows, range tombstone markers) with their tokens and typed cells;
// it applies no read semantics, which belong to package reconcile. It
// imports none of the project's other packages.
//
// So far it names SSTable files (Descriptor); the reader itself is the
// subject of the next work.
package sstable
