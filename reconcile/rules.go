package reconcile

import (
	"bytes"
	"math"

	"github.com/sstable-flight/sstable-flight/sstable"
)

// The rules below are Cassandra's, from db/DeletionTime, db/LivenessInfo
// and db/rows/Cells (5.0). Each names the method it follows.

// supersedes is DeletionTime.supersedes: a later mark wins; on equal marks
// the later local deletion time.
func supersedes(a, b sstable.DeletionTime) bool {
	return a.MarkedForDeleteAt > b.MarkedForDeleteAt ||
		(a.MarkedForDeleteAt == b.MarkedForDeleteAt && a.LocalDeletionTime > b.LocalDeletionTime)
}

func maxDeletion(a, b sstable.DeletionTime) sstable.DeletionTime {
	if supersedes(b, a) {
		return b
	}
	return a
}

// deletes is DeletionTime.deletes: a deletion shadows everything written
// at or before its timestamp. A live deletion's timestamp is
// math.MinInt64, so it shadows nothing a write can carry: no test of
// liveness is needed (nor does Cassandra make one).
func deletes(d sstable.DeletionTime, timestamp int64) bool {
	return timestamp <= d.MarkedForDeleteAt
}

// livenessSupersedes is LivenessInfo.supersedes for primary-key liveness:
// the later timestamp; on a tie an expiring info beats a plain one
// (CASSANDRA-14592), and between two expiring ones the later expiration.
func livenessSupersedes(a, b sstable.LivenessInfo) bool {
	if a.Timestamp != b.Timestamp {
		return a.Timestamp > b.Timestamp
	}
	ae, be := a.TTL > 0, b.TTL > 0
	if ae != be {
		return ae
	}
	return a.LocalExpirationTime > b.LocalExpirationTime
}

// livenessLive is LivenessInfo.isLive(now).
func livenessLive(l sstable.LivenessInfo, now int64) bool {
	return l.Timestamp != sstable.NoTimestamp && (l.TTL == 0 || now < l.LocalExpirationTime)
}

// cellLive is Cell.isLive(now): not a tombstone, and not expired.
func cellLive(c *sstable.Cell, now int64) bool {
	return !c.IsTombstone() && (!c.IsExpiring() || now < c.LocalDeletionTime)
}

// noDeletionTime is Cell.NO_DELETION_TIME: the local deletion time of a
// plain live cell.
const noDeletionTime = math.MaxInt64

func localDeletionTime(c *sstable.Cell) int64 {
	if c.IsTombstone() || c.IsExpiring() {
		return c.LocalDeletionTime
	}
	return noDeletionTime
}

// resolveRegular is Cells.resolveRegular: which of two versions of a
// non-counter cell wins. The later timestamp; on a tie a tombstone or
// expiring cell beats a plain live one, a tombstone beats an expiring one,
// then the later local deletion time, then the greater value (unsigned
// bytes).
func resolveRegular(l, r *sstable.Cell) *sstable.Cell {
	if l.Timestamp != r.Timestamp {
		if l.Timestamp > r.Timestamp {
			return l
		}
		return r
	}
	lldt, rldt := localDeletionTime(l), localDeletionTime(r)
	lx, rx := lldt != noDeletionTime, rldt != noDeletionTime
	if lx || rx {
		if lx != rx {
			if lx {
				return l
			}
			return r
		}
		lt, rt := !l.IsExpiring(), !r.IsExpiring()
		if lt != rt {
			if lt {
				return l
			}
			return r
		}
		if lldt != rldt {
			if lldt > rldt {
				return l
			}
			return r
		}
	}
	if bytes.Compare(l.Value, r.Value) >= 0 {
		return l
	}
	return r
}
