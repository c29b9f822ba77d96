package writer

import (
	"encoding/binary"
	"hash/crc32"
	"math"
	"slices"

	"github.com/sstable-flight/sstable-flight/sstable"
	"github.com/sstable-flight/sstable-flight/sstable/marshal"
	"github.com/sstable-flight/sstable-flight/sstable/metadata"
)

// collector gathers the STATS component as io/sstable/metadata's
// MetadataCollector does while Data.db is written.
type collector struct {
	schema             *sstable.Schema
	minTS, maxTS       int64
	tsSet              bool
	minLDT, maxLDT     int64
	ldtSet             bool
	ldtNone            bool // a value without deletion time was seen
	minTTL, maxTTL     int64
	ttlSet             bool
	partitionSizes     histogram
	cellsPerPartition  histogram
	tombstones         map[int64]int64 // rounded drop time → count
	partCells          int64
	totalColumnsSet    int64
	totalRows          int64
	partitionDeletions bool
	// The covered slice: the lowest and highest clustering or bound,
	// kept as unfiltereds for compareUnfiltered.
	lo, hi, cur   sstable.Unfiltered
	loBuf, hiBuf  []byte
	hasClustering bool
}

func (c *collector) init(s *sstable.Schema) {
	c.schema = s
	c.partitionSizes = newHistogram(155)
	c.cellsPerPartition = newHistogram(118)
	c.tombstones = map[int64]int64{}
}

func (c *collector) timestamp(ts int64) {
	if !c.tsSet {
		c.minTS, c.maxTS, c.tsSet = ts, ts, true
		return
	}
	c.minTS, c.maxTS = min(c.minTS, ts), max(c.maxTS, ts)
}

// localDeletionTime records a tombstone's deletion time or an expiring
// value's expiration, which the tombstone drop-time histogram counts.
func (c *collector) localDeletionTime(ldt int64) {
	if !c.ldtSet {
		c.minLDT, c.maxLDT, c.ldtSet = ldt, ldt, true
	} else {
		c.minLDT, c.maxLDT = min(c.minLDT, ldt), max(c.maxLDT, ldt)
	}
	// StreamingTombstoneHistogramBuilder rounds points up to 60 seconds.
	c.tombstones[(ldt+59)/60*60]++
}

// noDeletionTime records a value that neither expires nor deletes:
// Cassandra tracks its NO_DELETION_TIME, which makes the maximum "none".
func (c *collector) noDeletionTime() {
	c.ldtNone = true
}

func (c *collector) ttl(ttl int64) {
	if !c.ttlSet {
		c.minTTL, c.maxTTL, c.ttlSet = ttl, ttl, true
		return
	}
	c.minTTL, c.maxTTL = min(c.minTTL, ttl), max(c.maxTTL, ttl)
}

func (c *collector) deletion(d sstable.DeletionTime) {
	if d.Live() {
		return
	}
	c.timestamp(d.MarkedForDeleteAt)
	c.localDeletionTime(d.LocalDeletionTime)
}

func (c *collector) partition(key []byte, del sstable.DeletionTime) {
	c.deletion(del)
	if !del.Live() {
		c.partitionDeletions = true
	}
	c.partCells = 0
}

func (c *collector) endPartition(size int64) {
	c.partitionSizes.add(size)
	c.cellsPerPartition.add(c.partCells)
}

func (c *collector) unfiltered(u *sstable.Unfiltered, present []int) {
	if u.Marker {
		c.deletion(u.MarkerDel)
		if u.Kind.IsBoundary() {
			c.deletion(u.MarkerEndDel)
		}
		c.clustering(u.Clustering, u.Kind)
		return
	}
	if u.Static && len(u.Cells) == 0 && len(u.Complex) == 0 && u.Deletion.Live() && u.Liveness.Timestamp == sstable.NoTimestamp {
		return // an empty static row is not collected
	}
	if u.Liveness.Timestamp != sstable.NoTimestamp {
		c.timestamp(u.Liveness.Timestamp)
		if u.Liveness.TTL != 0 {
			c.ttl(u.Liveness.TTL)
			c.localDeletionTime(u.Liveness.LocalExpirationTime)
		} else {
			c.ttl(0)
			c.noDeletionTime()
		}
	}
	c.deletion(u.Deletion)
	for _, cd := range u.Complex {
		c.deletion(cd.Deletion)
	}
	for i := range u.Cells {
		cl := &u.Cells[i]
		c.timestamp(cl.Timestamp)
		switch {
		case cl.IsTombstone():
			c.localDeletionTime(cl.LocalDeletionTime)
			c.ttl(0)
		case cl.IsExpiring():
			c.localDeletionTime(cl.LocalDeletionTime)
			c.ttl(cl.TTL)
		default:
			c.ttl(0)
			c.noDeletionTime()
		}
	}
	c.partCells += int64(len(u.Cells))
	// Rows.collectStats counts simple columns, and complex ones with cells.
	for i := range u.Cells {
		if i == 0 || u.Cells[i].Column != u.Cells[i-1].Column {
			c.totalColumnsSet++
		}
	}
	c.totalRows++
	if !u.Static {
		c.clustering(u.Clustering, sstable.ClusteringKind)
	}
}

// clustering widens the covered clustering slice to a row's clustering
// or a marker's bound. The bounds are kept by copy in reused buffers.
func (c *collector) clustering(vals [][]byte, kind sstable.BoundKind) {
	c.cur.Clustering, c.cur.Marker, c.cur.Kind = vals, kind != sstable.ClusteringKind, kind
	if !c.hasClustering || sstable.CompareUnfiltered(c.schema.Clustering, &c.cur, &c.lo) < 0 {
		c.lo.Clustering = keepValues(c.lo.Clustering[:0], &c.loBuf, vals)
		c.lo.Marker, c.lo.Kind = c.cur.Marker, kind
	}
	if !c.hasClustering || sstable.CompareUnfiltered(c.schema.Clustering, &c.cur, &c.hi) > 0 {
		c.hi.Clustering = keepValues(c.hi.Clustering[:0], &c.hiBuf, vals)
		c.hi.Marker, c.hi.Kind = c.cur.Marker, kind
	}
	c.hasClustering = true
	c.cur.Clustering = nil
}

// keepValues copies vals into *buf, reusing it, and returns out holding
// slices of it.
func keepValues(out [][]byte, buf *[]byte, vals [][]byte) [][]byte {
	b := (*buf)[:0]
	for _, v := range vals {
		b = append(b, v...)
	}
	*buf = b
	off := 0
	for _, v := range vals {
		if v == nil {
			out = append(out, nil)
			continue
		}
		out = append(out, b[off:off+len(v):off+len(v)])
		off += len(v)
	}
	return out
}

// histogram is utils/EstimatedHistogram without zeroes: bucket i counts
// values in (offsets[i-1], offsets[i]], the last one the overflow.
type histogram struct {
	offsets []int64
	counts  []int64
}

func newHistogram(size int) histogram {
	h := histogram{offsets: make([]int64, size), counts: make([]int64, size+1)}
	last := int64(1)
	h.offsets[0] = last
	for i := 1; i < size; i++ {
		next := int64(math.Round(float64(last) * 1.2))
		if next == last {
			next++
		}
		h.offsets[i] = next
		last = next
	}
	return h
}

func (h *histogram) add(v int64) {
	i, _ := slices.BinarySearch(h.offsets, v)
	h.counts[i]++
}

// appendTo writes int32 bucket count, then per bucket int64 offset (the
// first offset twice) and int64 count.
func (h *histogram) appendTo(b []byte) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(len(h.counts)))
	for i, n := range h.counts {
		off := h.offsets[max(0, i-1)]
		b = binary.BigEndian.AppendUint64(b, uint64(off))
		b = binary.BigEndian.AppendUint64(b, uint64(n))
	}
	return b
}

// Statistics.db component types.
const (
	metaValidation = 0
	metaCompaction = 1
	metaStats      = 2
	metaHeader     = 3
)

// tombstoneMaxBins is SSTable.TOMBSTONE_HISTOGRAM_BIN_SIZE.
const tombstoneMaxBins = 100

// statistics returns Statistics.db as MetadataSerializer writes it for oa:
// the count and the table of contents, each followed by a CRC32 (the
// second covering the count too), then the components, each followed by
// its CRC32.
func (w *Writer) statistics() []byte {
	comps := [4][]byte{
		w.validation(),
		nil,
		w.statsComponent(),
		w.headerComponent(),
	}
	card := cardinality(w.keyHashes)
	comps[metaCompaction] = append(binary.BigEndian.AppendUint32(nil, uint32(len(card))), card...)
	b := binary.BigEndian.AppendUint32(nil, uint32(len(comps)))
	b = binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
	tocAt := len(b)
	pos := 4 + 4 + 8*len(comps) + 4
	for typ, c := range comps {
		b = binary.BigEndian.AppendUint32(b, uint32(typ))
		b = binary.BigEndian.AppendUint32(b, uint32(pos))
		pos += len(c) + 4
	}
	covered := append(append([]byte{}, b[:4]...), b[tocAt:]...)
	b = binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(covered))
	for _, c := range comps {
		b = append(b, c...)
		b = binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(c))
	}
	return b
}

func (w *Writer) validation() []byte {
	b := binary.BigEndian.AppendUint16(nil, uint16(len(Murmur3Partitioner)))
	b = append(b, Murmur3Partitioner...)
	return binary.BigEndian.AppendUint64(b, math.Float64bits(w.opts.BloomFilterFPChance))
}

// Epochs of the serialization header's minima (db/rows/EncodingStats).
const (
	timestampEpochMicros = 1442880000 * 1000000
	deletionTimeEpoch    = 1442880000
)

func appendVintBytes(b []byte, s []byte) []byte {
	return append(marshal.AppendUvint(b, uint64(len(s))), s...)
}

// headerComponent is SerializationHeader.Component.
func (w *Writer) headerComponent() []byte {
	h := &w.opts.Header
	b := marshal.AppendUvint(nil, uint64(h.MinTimestamp-timestampEpochMicros))
	b = marshal.AppendUvint(b, uint64(h.MinLocalDeletionTime-deletionTimeEpoch))
	b = marshal.AppendUvint(b, uint64(h.MinTTL))
	b = appendVintBytes(b, []byte(h.KeyType))
	b = marshal.AppendUvint(b, uint64(len(h.ClusteringTypes)))
	for _, t := range h.ClusteringTypes {
		b = appendVintBytes(b, []byte(t))
	}
	for _, cols := range [][]metadata.ColumnType{h.StaticColumns, h.RegularColumns} {
		b = marshal.AppendUvint(b, uint64(len(cols)))
		for _, c := range cols {
			b = appendVintBytes(b, []byte(c.Name))
			b = appendVintBytes(b, []byte(c.Type))
		}
	}
	return b
}

func appendPosition(b []byte, p metadata.CommitLogPosition) []byte {
	b = binary.BigEndian.AppendUint64(b, uint64(p.SegmentID))
	return binary.BigEndian.AppendUint32(b, uint32(p.Position))
}

func appendBool(b []byte, v bool) []byte {
	if v {
		return append(b, 1)
	}
	return append(b, 0)
}

// noPosition is CommitLogPosition.NONE.
var noPosition = metadata.CommitLogPosition{SegmentID: -1, Position: 0}

// statsComponent is StatsMetadata for oa (metadata/stats_metadata.go
// draws the layout).
func (w *Writer) statsComponent() []byte {
	c := &w.stats
	b := c.partitionSizes.appendTo(nil)
	b = c.cellsPerPartition.appendTo(b)
	lower, upper := noPosition, noPosition
	for i, iv := range w.opts.CommitLogIntervals {
		if i == 0 || comparePosition(iv.Start, lower) < 0 {
			lower = iv.Start
		}
		if i == 0 || comparePosition(iv.End, upper) > 0 {
			upper = iv.End
		}
	}
	b = appendPosition(b, upper)
	minTS, maxTS := int64(math.MaxInt64), int64(math.MinInt64)
	if c.tsSet {
		minTS, maxTS = c.minTS, c.maxTS
	}
	b = binary.BigEndian.AppendUint64(b, uint64(minTS))
	b = binary.BigEndian.AppendUint64(b, uint64(maxTS))
	minLDT, maxLDT := uint32(math.MaxUint32), uint32(math.MaxUint32)
	if c.ldtSet {
		minLDT, maxLDT = uint32(c.minLDT), uint32(c.maxLDT)
	}
	if c.ldtNone {
		maxLDT = math.MaxUint32
	}
	b = binary.BigEndian.AppendUint32(b, minLDT)
	b = binary.BigEndian.AppendUint32(b, maxLDT)
	var minTTL, maxTTL int64
	if c.ttlSet {
		minTTL, maxTTL = c.minTTL, c.maxTTL
	}
	b = binary.BigEndian.AppendUint32(b, uint32(minTTL))
	b = binary.BigEndian.AppendUint32(b, uint32(maxTTL))
	b = binary.BigEndian.AppendUint64(b, math.Float64bits(-1)) // no compression
	bins := c.tombstoneBins()
	// NB: the field Cassandra reads as the maximum bin count holds the
	// number of bins.
	b = binary.BigEndian.AppendUint32(b, uint32(len(bins)))
	b = binary.BigEndian.AppendUint32(b, uint32(len(bins)))
	for _, bin := range bins {
		b = binary.BigEndian.AppendUint64(b, uint64(bin.Point))
		b = binary.BigEndian.AppendUint32(b, uint32(bin.Count))
	}
	b = binary.BigEndian.AppendUint32(b, 0) // level
	b = binary.BigEndian.AppendUint64(b, uint64(w.opts.RepairedAt))
	// Clustering types and the covered slice.
	h := &w.opts.Header
	b = marshal.AppendUvint(b, uint64(len(h.ClusteringTypes)))
	for _, t := range h.ClusteringTypes {
		b = appendVintBytes(b, []byte(t))
	}
	b = w.coveredSlice(b)
	b = appendBool(b, false) // legacy counter shards
	b = binary.BigEndian.AppendUint64(b, uint64(c.totalColumnsSet))
	b = binary.BigEndian.AppendUint64(b, uint64(c.totalRows))
	b = appendPosition(b, lower)
	b = binary.BigEndian.AppendUint32(b, uint32(len(w.opts.CommitLogIntervals)))
	for _, iv := range w.opts.CommitLogIntervals {
		b = appendPosition(appendPosition(b, iv.Start), iv.End)
	}
	b = append(b, 0)         // no pending repair
	b = appendBool(b, false) // not transient
	if id := w.opts.OriginatingHostID; id != nil {
		b = append(append(b, 1), id[:]...)
	} else {
		b = append(b, 0)
	}
	b = appendBool(b, c.partitionDeletions)
	b = appendVintBytes(b, w.firstKey)
	b = appendVintBytes(b, w.lastKey)
	// NB: a flush records no token space coverage (NaN) unless the node
	// knows its local ranges; the writer does not.
	b = binary.BigEndian.AppendUint64(b, math.Float64bits(math.NaN()))
	// NB: Cassandra sizes the component at 16 bytes per tombstone bin and
	// writes 12, leaving 4 zero bytes per bin at the end.
	return append(b, make([]byte, 4*len(bins))...)
}

func comparePosition(a, b metadata.CommitLogPosition) int {
	if a.SegmentID != b.SegmentID {
		if a.SegmentID < b.SegmentID {
			return -1
		}
		return 1
	}
	return int(a.Position) - int(b.Position)
}

// coveredSlice appends the covered clustering slice: two bounds (kind,
// u16 count, values). Rows' clusterings become inclusive bounds; with no
// clustering at all the slice is everything (empty bounds).
func (w *Writer) coveredSlice(b []byte) []byte {
	c := &w.stats
	startKind, endKind := sstable.InclStartBound, sstable.InclEndBound
	var lo, hi [][]byte
	if c.hasClustering {
		lo, hi = c.lo.Clustering, c.hi.Clustering
		if c.lo.Marker {
			startKind = c.lo.Kind
		}
		if c.hi.Marker {
			endKind = c.hi.Kind
		}
	}
	for _, bound := range []struct {
		kind sstable.BoundKind
		vals [][]byte
	}{{startKind, lo}, {endKind, hi}} {
		b = append(b, byte(bound.kind))
		b = binary.BigEndian.AppendUint16(b, uint16(len(bound.vals)))
		b, _ = w.enc.clusteringValues(b, bound.vals)
	}
	return b
}

// tombstoneBins is the drop-time histogram, merged to at most
// tombstoneMaxBins bins as StreamingTombstoneHistogramBuilder does: the
// two closest bins become one at their weighted mean.
func (c *collector) tombstoneBins() []metadata.TombstoneBin {
	bins := make([]metadata.TombstoneBin, 0, len(c.tombstones))
	for p, n := range c.tombstones {
		bins = append(bins, metadata.TombstoneBin{Point: p, Count: n})
	}
	slices.SortFunc(bins, func(a, b metadata.TombstoneBin) int { return int(a.Point - b.Point) })
	for len(bins) > tombstoneMaxBins {
		at := 0
		for i := 1; i+1 < len(bins); i++ {
			if bins[i+1].Point-bins[i].Point < bins[at+1].Point-bins[at].Point {
				at = i
			}
		}
		a, z := bins[at], bins[at+1]
		n := a.Count + z.Count
		bins[at] = metadata.TombstoneBin{Point: (a.Point*a.Count + z.Point*z.Count) / n, Count: n}
		bins = slices.Delete(bins, at+1, at+2)
	}
	return bins
}
