package metadata

import (
	"encoding/hex"
	"math"
	"slices"

	"github.com/sstable-flight/sstable-flight/sstable/internal/base"
	"github.com/sstable-flight/sstable-flight/sstable/internal/clustering"
	"github.com/sstable-flight/sstable-flight/sstable/marshal"
)

// The STATS component (io/sstable/metadata/StatsMetadata), in order:
//
//	EstimatedHistogram partition sizes, cells per partition
//	CommitLogPosition commit log upper bound       int64 segment, int32 position
//	int64 min, max timestamp
//	int32 min, max local deletion time              before oa: MaxInt32 = none
//	                                                oa+/da: uint32, 0xffffffff = none
//	int32 min, max TTL
//	float64 compression ratio
//	tombstone drop-time histogram                   int32 max bins, int32 count, bins:
//	                                                before oa: (float64 point, int64 count)
//	                                                oa+/da: (int64 point, int32 count)
//	int32 level, int64 repairedAt
//	[m*, n*]  int32 count, u16-length min clustering values; same for max
//	[oa+, da] clustering types, covered clustering slice
//	bool hasLegacyCounterShards
//	int64 totalColumnsSet, totalRows
//	[mb+, da] CommitLogPosition lower bound
//	[mc+, da] int32 count, (CommitLogPosition, CommitLogPosition) intervals
//	[na+, da] byte 1 + 16-byte time UUID pending repair, or byte 0; bool isTransient
//	[me, nb+, da] byte 1 + 16-byte originating host id, or byte 0
//	[nc+, da] bool hasPartitionLevelDeletions
//	[nc]      clustering types, covered clustering slice
//	[nc+, da] vint-length first key, last key
//	[oa+, da] float64 token space coverage
//	[oa+, da] 4 zero bytes per tombstone bin (Cassandra's size overcount)
//
// EstimatedHistogram: int32 bucket count n ≥ 1, then n × (int64 offset,
// int64 count). Bucket 0 counts values ≤ its offset; bucket i > 0 counts
// values above its offset and up to the next bucket's; the last bucket
// is the overflow.
//
// Clustering types: vint count, vint-length type strings. A slice is two
// bounds: byte kind, u16 value count, then the values as Data.db writes a
// clustering prefix.

// StatsMetadata is Statistics.db's STATS component.
type StatsMetadata struct {
	PartitionSizes      []HistogramBucket // bytes per partition
	CellsPerPartition   []HistogramBucket // cells ("column count") per partition
	CommitLogUpperBound CommitLogPosition
	CommitLogLowerBound CommitLogPosition // zero before mb
	// CommitLogIntervals are the commit log ranges the SSTable covers
	// (mc+); before, the one range from the lower to the upper bound.
	CommitLogIntervals []CommitLogInterval
	MinTimestamp       int64 // µs
	MaxTimestamp       int64 // µs
	// Local deletion times in seconds since the epoch; NoDeletionTime
	// when the SSTable has no tombstone or expiring cell.
	MinLocalDeletionTime int64
	MaxLocalDeletionTime int64
	MinTTL               int32 // seconds
	MaxTTL               int32 // seconds
	CompressionRatio     float64
	// TombstoneDropTimes maps local deletion times (seconds) to counts.
	TombstoneDropTimes     []TombstoneBin
	TombstoneMaxBins       int32
	Level                  int32
	RepairedAt             int64 // ms since the epoch; 0 when unrepaired
	HasLegacyMinMax        bool  // MinClusteringValues/MaxClusteringValues were read (before oa)
	MinClusteringValues    [][]byte
	MaxClusteringValues    [][]byte
	HasCoveredClustering   bool // ClusteringTypes and CoveredClustering were read (nc+, da)
	ClusteringTypes        []string
	CoveredClustering      [2]ClusteringBound // start, end
	HasLegacyCounterShards bool
	TotalColumnsSet        int64
	TotalRows              int64
	PendingRepair          *UUID // a time UUID, nil when none
	IsTransient            bool
	OriginatingHostID      *UUID // nil when absent
	// HasPartitionLevelDeletions: read from nc on; before, true unless the
	// SSTable has no deletion at all (as Cassandra assumes).
	HasPartitionLevelDeletions bool
	FirstKey, LastKey          []byte  // nc+, da; raw partition keys
	TokenSpaceCoverage         float64 // oa+, da; NaN when not recorded
}

// NoDeletionTime is Cell.NO_DELETION_TIME: no deletion time recorded.
const NoDeletionTime = math.MaxInt64

// HistogramBucket is one serialized EstimatedHistogram entry: the offset
// written with the bucket (its upper bound for bucket 0, else the previous
// bucket's upper bound) and the count.
type HistogramBucket struct {
	Offset int64
	Count  int64
}

// CommitLogPosition is a position in a commit log segment.
type CommitLogPosition struct {
	SegmentID int64
	Position  int32
}

// CommitLogInterval is a covered commit log range.
type CommitLogInterval struct {
	Start, End CommitLogPosition
}

// TombstoneBin is one bin of the tombstone drop-time histogram.
type TombstoneBin struct {
	Point int64 // local deletion time, seconds
	Count int64
}

// ClusteringBound is a bound of the covered clustering slice: its kind and
// raw values (nil for a null value). No values with a start kind is the
// bottom, with an end kind the top.
type ClusteringBound struct {
	Kind   clustering.Kind
	Values [][]byte
}

// UUID is a raw 16-byte UUID.
type UUID [16]byte

func (u UUID) String() string {
	h := hex.EncodeToString(u[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// CompactionMetadata is Statistics.db's COMPACTION component: the
// serialized HyperLogLogPlus estimating the partition count, kept raw.
type CompactionMetadata struct {
	Cardinality []byte
}

func parseCompaction(d *base.Decbuf) CompactionMetadata {
	n := int(d.I32())
	if d.Err() == nil && (n < 0 || n > d.Len()) {
		d.Fail("cardinality estimator of %d bytes, %d left", n, d.Len())
	}
	return CompactionMetadata{Cardinality: slices.Clone(d.Bytes(n))}
}

func parseStats(d *base.Decbuf, v Version) StatsMetadata {
	var s StatsMetadata
	s.PartitionSizes = estimatedHistogram(d)
	s.CellsPerPartition = estimatedHistogram(d)
	s.CommitLogUpperBound = commitLogPosition(d)
	s.MinTimestamp = d.I64()
	s.MaxTimestamp = d.I64()
	s.MinLocalDeletionTime = statsDeletionTime(d, v)
	s.MaxLocalDeletionTime = statsDeletionTime(d, v)
	s.MinTTL = d.I32()
	s.MaxTTL = d.I32()
	s.CompressionRatio = d.F64()
	s.TombstoneMaxBins, s.TombstoneDropTimes = tombstoneHistogram(d, v)
	s.Level = d.I32()
	s.RepairedAt = d.I64()
	if v.LegacyMinMax {
		s.HasLegacyMinMax = true
		s.MinClusteringValues = shortLengthValues(d)
		s.MaxClusteringValues = shortLengthValues(d)
	} else if v.ImprovedMinMax {
		coveredClustering(d, &s)
	}
	s.HasLegacyCounterShards = d.Bool()
	s.TotalColumnsSet = d.I64()
	s.TotalRows = d.I64()
	if v.CommitLogLowerBound {
		s.CommitLogLowerBound = commitLogPosition(d)
	}
	if v.CommitLogIntervals {
		n := int(d.I32())
		if d.Err() == nil && (n < 0 || n > d.Len()/24) {
			d.Fail("%d commit log intervals in %d bytes", n, d.Len())
		}
		for i := 0; i < n && d.Err() == nil; i++ {
			start := commitLogPosition(d)
			s.CommitLogIntervals = append(s.CommitLogIntervals, CommitLogInterval{start, commitLogPosition(d)})
		}
	} else {
		s.CommitLogIntervals = []CommitLogInterval{{s.CommitLogLowerBound, s.CommitLogUpperBound}}
	}
	if v.PendingRepair {
		s.PendingRepair = optionalUUID(d)
		s.IsTransient = d.Bool()
	}
	if v.OriginatingHostID {
		s.OriginatingHostID = optionalUUID(d)
	}
	s.HasPartitionLevelDeletions = s.MinLocalDeletionTime != NoDeletionTime
	if v.PartitionDeletionsPresent {
		s.HasPartitionLevelDeletions = d.Bool()
	}
	if v.ImprovedMinMax && v.LegacyMinMax {
		coveredClustering(d, &s)
	}
	if v.KeyRange {
		s.FirstKey = slices.Clone(d.Bytes(d.UVint32()))
		s.LastKey = slices.Clone(d.Bytes(d.UVint32()))
	}
	s.TokenSpaceCoverage = math.NaN()
	if v.TokenSpaceCoverage {
		s.TokenSpaceCoverage = d.F64()
	}
	// NB: from oa, Cassandra sizes the component counting 16 bytes per
	// tombstone bin (the legacy width) but writes 12, so the component
	// ends with 4 zero bytes per bin. Accept that padding, or none.
	if pad := d.Len(); d.Err() == nil && pad != 0 {
		if !v.UIntDeletionTime || pad != 4*len(s.TombstoneDropTimes) || slices.ContainsFunc(d.Bytes(pad), func(c byte) bool { return c != 0 }) {
			d.Fail("%d bytes after the stats metadata", pad)
		}
	}
	return s
}

func estimatedHistogram(d *base.Decbuf) []HistogramBucket {
	n := int(d.I32())
	if d.Err() != nil {
		return nil
	}
	// NB: Cassandra allocates n-1 offsets, so an empty histogram fails.
	if n < 1 || n > d.Len()/16 {
		d.Fail("estimated histogram of %d buckets in %d bytes", n, d.Len())
		return nil
	}
	h := make([]HistogramBucket, n)
	for i := range h {
		h[i] = HistogramBucket{Offset: d.I64(), Count: d.I64()}
	}
	return h
}

func commitLogPosition(d *base.Decbuf) CommitLogPosition {
	seg := d.I64()
	return CommitLogPosition{SegmentID: seg, Position: d.I32()}
}

func statsDeletionTime(d *base.Decbuf, v Version) int64 {
	u := d.U32()
	if v.UIntDeletionTime {
		if u == math.MaxUint32 {
			return NoDeletionTime
		}
		return int64(u)
	}
	if int32(u) == math.MaxInt32 {
		return NoDeletionTime
	}
	return int64(int32(u))
}

func tombstoneHistogram(d *base.Decbuf, v Version) (int32, []TombstoneBin) {
	maxBins := d.I32()
	n := int(d.I32())
	width := 16
	if v.UIntDeletionTime {
		width = 12
	}
	if d.Err() != nil {
		return 0, nil
	}
	if n < 0 || n > d.Len()/width {
		d.Fail("tombstone histogram of %d bins in %d bytes", n, d.Len())
		return 0, nil
	}
	bins := make([]TombstoneBin, n)
	for i := range bins {
		if v.UIntDeletionTime {
			bins[i] = TombstoneBin{Point: d.I64(), Count: int64(d.I32())}
		} else {
			// NB: Cassandra truncates both to int.
			p := d.F64()
			bins[i] = TombstoneBin{Point: int64(int32(clampInt32(p))), Count: int64(int32(d.I64()))}
		}
	}
	return maxBins, bins
}

// clampInt32 is Java's (int) of a double: NaN is 0, out of range saturates.
func clampInt32(f float64) int32 {
	switch {
	case f != f:
		return 0
	case f >= math.MaxInt32:
		return math.MaxInt32
	case f <= math.MinInt32:
		return math.MinInt32
	}
	return int32(f)
}

// shortLengthValues reads an int32 count and u16-length values.
func shortLengthValues(d *base.Decbuf) [][]byte {
	n := int(d.I32())
	if d.Err() == nil && (n < 0 || n > d.Len()/2) {
		d.Fail("%d clustering values in %d bytes", n, d.Len())
	}
	var out [][]byte
	for i := 0; i < n && d.Err() == nil; i++ {
		out = append(out, slices.Clone(d.Bytes(int(d.U16()))))
	}
	return out
}

func optionalUUID(d *base.Decbuf) *UUID {
	if d.Byte() == 0 {
		return nil
	}
	var u UUID
	if b := d.Bytes(16); b != nil {
		copy(u[:], b)
		return &u
	}
	return nil
}

func coveredClustering(d *base.Decbuf, s *StatsMetadata) {
	s.HasCoveredClustering = true
	n := d.UVint32()
	if d.Err() == nil && n > d.Len() {
		d.Fail("%d clustering types in %d bytes", n, d.Len())
	}
	types := make([]*marshal.Type, 0, min(n, d.Len()))
	for i := 0; i < n && d.Err() == nil; i++ {
		ts := vintString(d)
		if d.Err() != nil {
			break
		}
		t, err := marshal.Parse(ts)
		if err != nil {
			d.Fail("clustering type %d: %v", i, err)
			break
		}
		s.ClusteringTypes = append(s.ClusteringTypes, ts)
		types = append(types, t)
	}
	for i := range s.CoveredClustering {
		s.CoveredClustering[i] = clusteringBound(d, types)
	}
}

func clusteringBound(d *base.Decbuf, types []*marshal.Type) ClusteringBound {
	kind := d.Byte()
	n := int(d.U16())
	if d.Err() != nil {
		return ClusteringBound{}
	}
	switch clustering.Kind(kind) {
	case clustering.ExclEndBound, clustering.InclStartBound, clustering.InclEndBound, clustering.ExclStartBound:
	default:
		d.Fail("clustering bound of kind %d", kind)
		return ClusteringBound{}
	}
	if n > len(types) {
		d.Fail("clustering bound with %d values, %d clustering types", n, len(types))
		return ClusteringBound{}
	}
	b := ClusteringBound{Kind: clustering.Kind(kind), Values: clustering.Values(d, types, nil, n)}
	for i, v := range b.Values {
		if v != nil {
			b.Values[i] = slices.Clone(v) // kept past d's buffer
		}
	}
	return b
}
