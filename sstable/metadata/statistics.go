package metadata

import (
	"fmt"
	"hash/crc32"

	"github.com/sstable-flight/sstable-flight/sstable/internal/base"
)

// Statistics.db (io/sstable/metadata/MetadataSerializer):
//
//	int32 component count            [CRC32 of the count]          (na+)
//	count × (int32 type, int32 offset) [CRC32 of count and toc]     (na+)
//	each component at its offset      [CRC32 of its bytes]         (na+)
//
// Types: 0 Validation, 1 Compaction, 2 Stats, 3 Header. The reader needs
// Validation (partitioner) and Header (column types and the minima that
// every timestamp, deletion time and TTL in Data.db is a delta from).
const (
	metaValidation = 0
	metaCompaction = 1
	metaStats      = 2
	metaHeader     = 3
)

// Statistics holds what the reader uses from Statistics.db.
type Statistics struct {
	Partitioner         string
	BloomFilterFPChance float64
	Header              SerializationHeader
	Stats               StatsMetadata      // zero when the file has no STATS component
	Compaction          CompactionMetadata // zero when the file has no COMPACTION component
}

// SerializationHeader is db/SerializationHeader: the encoding minima and
// the marshal type strings of the key, clustering and every column.
type SerializationHeader struct {
	MinTimestamp         int64 // µs since the Unix epoch
	MinLocalDeletionTime int64 // seconds since the Unix epoch
	MinTTL               int64 // seconds
	KeyType              string
	ClusteringTypes      []string
	StaticColumns        []ColumnType
	RegularColumns       []ColumnType
}

// ColumnType is a column name (raw bytes of its UTF-8 name) and its
// marshal type string.
type ColumnType struct {
	Name string
	Type string
}

// The minima are stored relative to 2015-09-22 (db/rows/EncodingStats):
// µs for timestamps, seconds for deletion times, 0 for TTLs. A mutation's
// PartitionUpdates store theirs the same way (package commitlog).
const (
	TimestampEpochMicros = 1442880000 * 1000000
	DeletionTimeEpoch    = 1442880000
)

const statsComponent = "Statistics.db"

// ParseStatistics decodes Statistics.db.
func ParseStatistics(b []byte, file string, v Version) (*Statistics, error) {
	d := base.NewDecbuf(b, file, statsComponent, 0)
	n := int(d.I32())
	if n < 0 || n > 16 {
		d.Fail("component count %d", n)
		n = 0 // NB: the getters no-op after a failure, but the loop would not
	}
	if v.MetadataChecksum {
		checkCRC(&d, b[:min(4, len(b))])
	}
	tocStart := int(d.Pos())
	offsets := map[int32]int{}
	var order []int
	for range n {
		typ, off := d.I32(), int(d.I32())
		if d.Err() == nil && (off < 0 || off > len(b)) {
			d.Fail("component %d offset %d outside the file", typ, off)
		}
		offsets[typ] = off
		order = append(order, off)
	}
	if v.MetadataChecksum && d.Err() == nil {
		// NB: the running CRC is not reset after the count: it covers
		// the count and the toc entries, skipping the count's own CRC.
		covered := append(append([]byte{}, b[:4]...), b[tocStart:d.Pos()]...)
		checkCRC(&d, covered)
	}
	if err := d.Err(); err != nil {
		return nil, fmt.Errorf("parse Statistics.db: %w", err)
	}
	// A component ends where the next one starts (less its CRC).
	end := func(off int) int {
		e := len(b)
		for _, o := range order {
			if o > off && o < e {
				e = o
			}
		}
		if v.MetadataChecksum {
			e -= 4
		}
		return e
	}
	st := &Statistics{}
	for typ, off := range offsets {
		e := end(off)
		if e < off {
			return nil, base.Corruptf(file, statsComponent, int64(off), "component %d ends before it starts", typ)
		}
		if v.MetadataChecksum {
			cd := base.NewDecbuf(b[e:e+4], file, statsComponent, int64(e))
			if want := cd.U32(); crc32.ChecksumIEEE(b[off:e]) != want {
				return nil, base.Corruptf(file, statsComponent, int64(off), "component %d fails its CRC32", typ)
			}
		}
		cd := base.NewDecbuf(b[off:e], file, statsComponent, int64(off))
		switch typ {
		case metaValidation:
			st.Partitioner = cd.UTF()
			st.BloomFilterFPChance = cd.F64()
		case metaCompaction:
			st.Compaction = parseCompaction(&cd)
		case metaStats:
			st.Stats = parseStats(&cd, v)
		case metaHeader:
			st.Header = parseHeader(&cd)
		}
		if cd.Err() == nil && cd.Len() != 0 {
			cd.Fail("%d bytes after component %d", cd.Len(), typ)
		}
		if err := cd.Err(); err != nil {
			return nil, fmt.Errorf("parse Statistics.db: %w", err)
		}
	}
	if _, ok := offsets[metaHeader]; !ok {
		return nil, base.Corruptf(file, statsComponent, 0, "no serialization header")
	}
	return st, nil
}

// checkCRC reads a CRC32 at the current position and compares it with the
// checksum of covered.
func checkCRC(d *base.Decbuf, covered []byte) {
	pos := d.Pos()
	if want := d.U32(); d.Err() == nil && crc32.ChecksumIEEE(covered) != want {
		d.Fail("CRC32 mismatch at %d", pos)
	}
}

func parseHeader(d *base.Decbuf) SerializationHeader {
	var h SerializationHeader
	// NB: unsigned vints of a signed delta: a timestamp before 2015 (as
	// USING TIMESTAMP 1000) is a negative delta written as 2^64 - x, and
	// adding it back wraps to the right value.
	h.MinTimestamp = int64(d.UVint() + TimestampEpochMicros)
	h.MinLocalDeletionTime = int64(d.UVint() + DeletionTimeEpoch)
	h.MinTTL = int64(d.UVint())
	h.KeyType = vintString(d)
	n := d.UVint32()
	for i := 0; i < n && d.Err() == nil; i++ {
		h.ClusteringTypes = append(h.ClusteringTypes, vintString(d))
	}
	h.StaticColumns = columnTypes(d)
	h.RegularColumns = columnTypes(d)
	if d.Err() == nil && d.Len() != 0 {
		d.Fail("%d bytes after the serialization header", d.Len())
	}
	return h
}

func columnTypes(d *base.Decbuf) []ColumnType {
	n := d.UVint32()
	var out []ColumnType
	for i := 0; i < n && d.Err() == nil; i++ {
		name := vintString(d)
		out = append(out, ColumnType{Name: name, Type: vintString(d)})
	}
	return out
}

func vintString(d *base.Decbuf) string { return string(d.Bytes(d.UVint32())) }
