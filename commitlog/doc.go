// Package commitlog reads Apache Cassandra's commit log segments — the
// CommitLog-<version>-<id>.log files of versions 6 (3.x), 7 (4.x, and 5.0
// in storage_compatibility_mode CASSANDRA_4) and 8 (5.0) — and hands out
// each entry's serialized mutation with its CommitLogPosition; a Decoder
// (mutation.go, partitionupdate.go) turns a mutation into partition
// updates of the rows the SSTable reader yields, decoded by sstable's own
// row decoder in the messaging form. Of the module it imports sstable
// (the row decoder, sstable/compress: the compressors' one decoder shared
// with Data.db's chunks, sstable/metadata: the SSTables' commit log
// intervals, sstable/marshal: the types), token and the leaf
// internal/snippet.
//
// The format, as Cassandra 5.0 writes and reads it (class names under
// org.apache.cassandra.db.commitlog unless said otherwise;
// docs/commitlog-notes.md has the details and what was checked on real
// segments):
//
// File name (CommitLogDescriptor.fileName, COMMIT_LOG_FILE_PATTERN):
// CommitLog-<version>-<id>.log; the id is the segment id positions refer
// to. Cassandra replays segments in id order (CommitLogSegmentFileComparator)
// and creates the next one ahead, header only (AbstractCommitLogSegmentManager),
// so the segment being written is usually the second newest. descriptor.go.
//
// Header (CommitLogDescriptor.writeHeader/readHeader): int version, long id,
// unsigned short length and that many bytes of JSON parameters, int CRC32
// over version, the id's low then high word, the length as an int and the
// JSON. The parameters name the compressor (compressionClass,
// compressionParameters); encCipher with encKeyAlias means transparent
// data encryption (security.EncryptionContext), which is refused
// (ErrEncrypted). Versions below 6 are refused (ErrUnsupportedVersion), as
// 4.0+ refuse them. The messaging version of the mutations is 10, 12 or 13
// (getMessagingVersion). header.go.
//
// Sync sections (CommitLogSegment.writeSyncMarker, CommitLogSegmentReader):
// after the header, a chain of sections, each opened by a marker: int
// offset of the next marker, int CRC32 over the id's low and high words
// and the marker's own offset. The chain ends at an all-zero marker (each
// sync zeroes the slot after its section: MemoryMappedSegment.write) or
// where no marker fits. A compressed segment's marker has a third int, the
// section's uncompressed length, and the section is one compressor call
// (CompressedSegment.write; compression.go); positions inside it are in
// the uncompressed image, where a marker counts 8 bytes (CompressedSegmenter).
// section.go.
//
// Entries (CommitLog.add, CommitLogReader.readSection): int size, int
// CRC32 of size, the mutation, int CRC32 of size and mutation. A size of 0
// ends the data. An entry's position is its end. entry.go.
//
// Reading (segment.go): a Reader over an io.ReaderAt of known size reads
// a section at a time (bounded by Options.MaxSectionBytes before anything
// is allocated) and hands out CRC-checked entries; Entry.Mutation aliases
// its buffer until the next call to Next.
//
// Live segments and torn tails: Cassandra writes the newest segments while
// we read them. With Options.Live, what a writer caught midway looks like —
// a header not whole, a marker whose CRC is not stored yet (the writer
// stores next, then the CRC) or that points past the end of the file, a
// compressed section cut short, an entry short or failing its CRC in the
// last section — ends the reading without an error: TornTail says what,
// Checkpoint where to resume (Options.From) once the file has grown, and
// no entry is handed out twice or in part. "Last section" means no
// CRC-valid marker follows it: a later sync proves a section whole, so an
// entry failing its CRC before one is corruption even in a live segment,
// as is a marker with a wrong non-zero CRC (never tolerated by
// CommitLogReplayer either), and a header whose first marker is valid.
// Without Live every such failure is corruption, as CommitLogReplayer
// sees it in any segment but the last it replays. Corruption is a
// *CorruptionError matching ErrCorruption that names the segment file,
// the component (header, sync marker, compressed section, entry size,
// entry data) and the offset: in the file, or for an entry of a
// compressed segment in the uncompressed image, which the message says.
// Nothing here panics on input (FuzzSegment).
//
// Following a directory (tail.go): a Tailer polls the segments, hands out
// each entry once, forgets deleted segments (their updates are flushed)
// and keeps damaged ones as Broken until they go.
//
// What is flushed (persisted.go): an update at a position the
// commitLogIntervals of its table's SSTables cover (only SSTables this
// node wrote, as Cassandra's replay counts them), or at or before the
// table's truncation, is in the SSTables; Persisted.Covers tells which.
package commitlog
