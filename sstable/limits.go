package sstable

// Limits caps the components a reader reads whole, in bytes. A
// component larger than its cap fails the open with ErrCorruption naming
// it, its size and the cap, before a byte of it is read: a damaged or
// hostile file (a sparse 64 GiB Statistics.db, a TOC.txt that is a link
// to something huge) costs nothing. Every cap is far above what
// Cassandra writes; a zero field is its Default constant. Data.db,
// Index.db, Partitions.db and Rows.db are read in pieces, never whole.
type Limits struct {
	TOC             int64 // TOC.txt
	Statistics      int64 // Statistics.db
	CompressionInfo int64 // CompressionInfo.db
	CRC             int64 // CRC.db
	Digest          int64 // Digest.crc32
	Summary         int64 // Summary.db, held for the reader's life
	Filter          int64 // Filter.db, held for the reader's life
}

// The default caps, with what each component holds.
const (
	// DefaultMaxTOC: a dozen component names, one a line.
	DefaultMaxTOC = 64 << 10
	// DefaultMaxStatistics: fixed-size histograms, the min and max
	// clustering values and the serialization header (every column's
	// name and type): tens of KiB even for thousands of columns.
	DefaultMaxStatistics = 64 << 20
	// DefaultMaxCompressionInfo: 8 bytes per chunk, so 2 TiB of
	// uncompressed data in the default 16 KiB chunks.
	DefaultMaxCompressionInfo = 1 << 30
	// DefaultMaxCRC: 4 bytes per chunk of an uncompressed Data.db.
	DefaultMaxCRC = 256 << 20
	// DefaultMaxDigest: one decimal CRC32.
	DefaultMaxDigest = 4 << 10
	// DefaultMaxSummary: one Index.db key and position every
	// min_index_interval (128) partitions, about 30 MB per 100 million
	// partitions of short keys.
	DefaultMaxSummary = 2 << 30
	// DefaultMaxFilter: the bloom filter, about 1.2 bytes per partition
	// at bloom_filter_fp_chance 0.01 (2.4 at 0.0001): 4 GiB is some
	// 3 billion partitions in one SSTable.
	DefaultMaxFilter = 4 << 30
)

// of returns the cap of a component read whole, its field or, when that
// is zero, its default; 0 for the others. The table is the one place a
// component is paired with its field and default.
func (l Limits) of(component string) int64 {
	for _, c := range [...]struct {
		name     string
		max, def int64
	}{
		{"TOC.txt", l.TOC, DefaultMaxTOC},
		{"Statistics.db", l.Statistics, DefaultMaxStatistics},
		{"CompressionInfo.db", l.CompressionInfo, DefaultMaxCompressionInfo},
		{"CRC.db", l.CRC, DefaultMaxCRC},
		{"Digest.crc32", l.Digest, DefaultMaxDigest},
		{"Summary.db", l.Summary, DefaultMaxSummary},
		{"Filter.db", l.Filter, DefaultMaxFilter},
	} {
		if c.name == component {
			if c.max > 0 {
				return c.max
			}
			return c.def
		}
	}
	return 0
}
