package reconcile

import (
	"github.com/sstable-flight/sstable-flight/sstable"
)

// fastRow evaluates a row that only one source holds and whose cells are
// all simple, non-counter cells: the common case of a table read from a
// single SSTable, or of a partition only one generation touched. The
// rules are the general path's (liveness, the covering deletion, TTL
// expiry per cell) without the per-column merge bookkeeping. It returns
// handled=false for rows it leaves to the general path.
func (m *Merger) fastRow(src *source, u *sstable.Unfiltered, rtDel sstable.DeletionTime) (live, handled bool) {
	cols := src.cols[0]
	for i := range u.Cells {
		if col := cols[u.Cells[i].Column]; col < 0 || !m.plain[col] {
			return false, false // multi-cell, counter or dropped: the general path
		}
	}
	del := m.partDel
	if supersedes(rtDel, del) {
		del = rtDel
	}
	if supersedes(u.Deletion, del) {
		del = u.Deletion
	}
	vals := m.row.Values
	if m.fastValid {
		for _, i := range m.fastSet {
			vals[i] = Value{Timestamp: NoTimestamp}
		}
	} else {
		// The general path wrote every regular value: clear them all once.
		for i, c := range m.t.Columns {
			if !c.Static {
				vals[i] = Value{Timestamp: NoTimestamp}
			}
		}
		m.fastValid = true
	}
	m.fastSet = m.fastSet[:0]
	now := m.opts.Now
	live = livenessLive(u.Liveness, now) && !deletes(del, u.Liveness.Timestamp)
	for i := range u.Cells {
		c := &u.Cells[i]
		if deletes(del, c.Timestamp) || !cellLive(c, now) {
			continue
		}
		col := cols[c.Column]
		b := c.Value
		if b == nil {
			b = emptyValue
		}
		vals[col] = Value{Bytes: b, Timestamp: c.Timestamp}
		if c.IsExpiring() {
			vals[col].TTL, vals[col].LocalExpirationTime = c.TTL, c.LocalDeletionTime
		}
		m.fastSet = append(m.fastSet, col)
		live = true
	}
	if live {
		m.fillRow(u.Clustering, false)
	}
	return live, true
}
