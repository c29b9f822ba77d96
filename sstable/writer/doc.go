// Package writer writes one SSTable in Cassandra 5.0's BIG format,
// version oa, with an uncompressed Data.db: the inverse of package
// sstable's reader, for the commit log overlay's runs (in-memory SSTables
// that sstable.Open reads like any other, docs/commitlog-notes.md) and
// for tests that need SSTables Cassandra never wrote.
//
// Data flows through it in one pass:
//
//	New(files, Options{Header})    the serialization header: types, minima
//	StartPartition(key, deletion)  in token order (token.CompareDecorated)
//	  Add(*sstable.Unfiltered)     static row first, then rows and range
//	                               tombstone markers in clustering order
//	Finish                         Index.db, Summary.db, Filter.db,
//	                               Statistics.db, CRC.db, Digest.crc32, TOC.txt
//
// Data.db is encoded row by row into reused buffers (no allocation per
// row once they have grown) and streamed to Files through a buffer, with
// its CRC32s; the index entries, summary samples and key hashes are kept
// until Finish. Files is a directory (Dir) or memory (Memory, which is
// also an sstable.FS over what was written).
//
// What is written, component by component (the layouts are drawn beside
// the reader's parsers, which are the spec: sstable/unfiltered.go, big/,
// metadata/):
//
//   - Data.db: byte for byte what Cassandra 5.0 writes for the same
//     partitions under the same header (tested on every corpus SSTable):
//     the flags Cassandra derives (HAS_ALL_COLUMNS, USE_ROW_TIMESTAMP,
//     USE_ROW_TTL, EMPTY_VALUE...), the row sizes and previous sizes, an
//     empty static row in every partition when the header has static
//     columns, the oa DeletionTime.
//   - Index.db: one entry per partition, with a promoted index (row
//     index blocks of 4 KiB, 5.0's default column_index_size) when the
//     partition has more than one block; byte for byte Cassandra's on
//     the corpus.
//   - Summary.db: every MinIndexInterval-th entry at full sampling; byte
//     for byte Cassandra's on the corpus.
//   - Filter.db: sized by BloomCalculations for the exact key count.
//   - Statistics.db: Validation, Compaction (the HyperLogLog++
//     partition count estimate, byte for byte Cassandra's), Stats (partition sizes and cells per partition, min/max
//     timestamps, deletion times and TTLs, the tombstone drop-time
//     histogram, column and row counts, the covered clustering slice, key
//     range, commit log intervals and originating host id as the caller
//     sets them) and Header, with the oa checksums; tested equal to
//     Cassandra's on the corpus.
//   - CRC.db and Digest.crc32, which Cassandra reads beside an
//     uncompressed Data.db, and TOC.txt.
//
// Input Cassandra would not write (partitions or clusterings out of
// order, cells of unknown columns, values of the wrong width, a range
// tombstone left open) is an error matching ErrInput that names the
// action; after an error the Writer refuses everything.
package writer
