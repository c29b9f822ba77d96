package commitlog

import (
	"slices"

	"github.com/sstable-flight/sstable-flight/sstable/metadata"
)

// Persisted is the part of the commit log that a table's SSTables already
// hold, as Cassandra's replay decides it (CommitLogReplayer.construct and
// persistedIntervals, IntervalSet): the union of the commitLogIntervals
// (Statistics.db) of the table's live SSTables that this node wrote, and
// everything up to the table's truncation. An update of the table at a
// position it covers is in the SSTables and is not served from the log;
// one it does not cover is not flushed yet.
//
// Only SSTables whose originating host id is this node's count: the
// intervals of an SSTable streamed, restored or imported from another node
// speak of that node's commit log, and an SSTable of a format without the
// field (before nb, but me) cannot say whose log it speaks of. Cassandra
// skips both, with a warning; so does NewPersisted (it returns them).
//
// Intervals are closed: both ends are covered (IntervalSet.contains).
type Persisted struct {
	spans []span // sorted by start, disjoint, not adjacent
}

type span struct{ lo, hi Position }

// NoPosition is CommitLogPosition.NONE, before every position of every
// segment.
var NoPosition = Position{SegmentID: -1, Offset: 0}

// NewPersisted builds what a table's SSTables hold of this node's commit
// log: stats are their Statistics.db STATS components, host this node's
// host id, and truncatedAt the table's truncation position (system.local's
// truncated_at; NoPosition when never truncated). skipped lists the
// indexes of the SSTables left out for another or no originating host.
func NewPersisted(host metadata.UUID, stats []*metadata.StatsMetadata, truncatedAt Position) (p Persisted, skipped []int) {
	var spans []span
	if truncatedAt.Compare(NoPosition) > 0 {
		spans = append(spans, span{NoPosition, truncatedAt})
	}
	for i, st := range stats {
		if st.OriginatingHostID == nil || *st.OriginatingHostID != host {
			skipped = append(skipped, i)
			continue
		}
		for _, iv := range st.CommitLogIntervals {
			lo, hi := positionOf(iv.Start), positionOf(iv.End)
			if lo.Compare(hi) <= 0 {
				spans = append(spans, span{lo, hi})
			}
		}
	}
	slices.SortFunc(spans, func(a, b span) int { return a.lo.Compare(b.lo) })
	for _, s := range spans {
		if n := len(p.spans); n > 0 && s.lo.Compare(p.spans[n-1].hi) <= 0 {
			if s.hi.Compare(p.spans[n-1].hi) > 0 {
				p.spans[n-1].hi = s.hi
			}
			continue
		}
		p.spans = append(p.spans, s)
	}
	return p, skipped
}

func positionOf(c metadata.CommitLogPosition) Position {
	return Position{SegmentID: c.SegmentID, Offset: int64(c.Position)}
}

// Covers reports whether the SSTables hold the update at pos (an entry's
// end: Entry.Position).
func (p Persisted) Covers(pos Position) bool {
	i, _ := slices.BinarySearchFunc(p.spans, pos, func(s span, pos Position) int {
		if s.hi.Compare(pos) < 0 {
			return -1
		}
		return 1
	})
	return i < len(p.spans) && p.spans[i].lo.Compare(pos) <= 0
}
