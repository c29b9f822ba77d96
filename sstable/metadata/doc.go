// Package metadata reads what an SSTable says of itself, before any
// Data.db byte: its file names (Descriptor, descriptor.go), the format
// versions the reader supports and the features each one has (Versions,
// Version, version.go: the checklist for adding a version), the list of
// its components (TOC.txt, toc.go) and Statistics.db (statistics.go: the
// partitioner and the serialization header; stats_metadata.go: the STATS
// and COMPACTION components, the commit log intervals among them).
//
// Package sstable opens an SSTable with these; snapshot lists and
// classifies files by Descriptor. Errors match sstable.ErrCorruption and
// name the file, the component and the offset.
package metadata
