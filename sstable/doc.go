// Package sstable reads Apache Cassandra SSTables: every on-disk format
// (3.x ma…me, 4.x na/nb/nc, 5.0 oa BIG and da BTI), every compression and
// every CQL type, from any io.ReaderAt.
//
// It turns bytes into unfiltered partitions (partition deletion, static
// row, rows, range tombstone markers) with their tokens and typed cells;
// it applies no read semantics, which belong to package reconcile. It
// imports none of the project's layered packages but the leaf token (a
// key's token, the order of keys, and the hash Filter.db uses); of the
// module's internal/ it uses only leaves that import nothing but the
// standard library: invariants (the invariants build tag's switch),
// iostall (the IOGuard's bound on waits), lru (the key cache) and snippet
// (what an error quotes of a file).
//
// Data flows through it in layers, as in pebble's sstable package:
//
//	FS / File (fs.go)             a component file: ReadAt, Size, Name;
//	                              IOGuard (guard.go) bounds its opens and reads
//	  compress/                   CompressionInfo.db, CRC.db, codecs, chunk cache
//	    stream.go                 Data.db as a checksummed byte stream
//	      decode.go, unfiltered.go  one partition's header, rows and markers
//	        Scanner (scanner.go)  partitions in token order: Scan, ScanRange, Get
//	          slice.go            GetSlice: a clustering slice, with Cassandra's
//	                              bound comparison and the row index's jump
//
// Open (reader.go) reads the TOC and Statistics.db (parsed by metadata/,
// which also names the files and lists the format versions; the
// serialization header becomes a Schema, schema.go) and the
// indexes: Summary.db, Index.db and Filter.db for BIG (big/),
// Partitions.db and Rows.db for BTI (bti/), both behind index.go, plus
// the key cache of point reads (keycache.go). Values are typed and
// compared by marshal/; dump/ renders partitions as Cassandra's
// sstabledump does. VerifyDigest and VerifyIndexes check whole files.
//
// A read may wait for storage that never answers. With an IOGuard
// (Options.IOGuard) each open and read gives up after its timeout; and
// ScanRangeContext, GetContext and GetSliceContext pass their context
// down every layer to the file (base.ReadAt), so that a caller whose
// context ends stops waiting for a read of the index or of Data.db, or
// for another caller's read of the same Data.db.
//
// Bad bytes are errors matching ErrCorruption that name the file, the
// component and the offset, quoting no more than a snippet of what the
// file holds; nothing here panics on input. A component read whole is
// refused past its cap (Limits, limits.go), before it is read.
//
// What a Scanner returns aliases its buffers: an Unfiltered, its cells and
// clustering values until the next call, a PartitionHeader's key until
// the next NextPartition, everything until Release. Built with
// -tags invariants (make test does) the contracts are enforced
// (poison.go): a refill moves the unread bytes to a new buffer and
// poisons every byte left behind but the held key, Release poisons all
// the scanner returned, and a second Release panics.
package sstable
