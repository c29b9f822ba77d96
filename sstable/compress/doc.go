// Package compress turns a Data.db component back into the byte stream
// Cassandra serialized, one chunk at a time.
//
// Cassandra writes Data.db either compressed, in fixed-size chunks whose
// layout is described by CompressionInfo.db, or uncompressed, with a CRC.db
// holding one CRC32 per fixed-size chunk. Both readers here expose the same
// shape — ReadChunk for sequential scans that own their buffer and ReadAt
// for random access — so the partition decoder above never needs to know
// which one it has. Checksums are verified by default because a bit flip in
// a compressed chunk otherwise surfaces much later as a baffling decode
// error (or, worse, as plausible wrong data).
//
// Every failure caused by the bytes on disk is a *base.CorruptionError
// naming the file, the component (CompressionInfo.db, CRC.db or Data.db)
// and the offset; no input makes this package panic.
//
// The on-disk facts follow Apache Cassandra's CompressionMetadata,
// CompressedSequentialWriter, CompressedChunkReader and ChecksumWriter.
package compress
