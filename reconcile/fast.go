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
	if !src.plain && !m.plainCells(src) {
		return false, false // multi-cell, counter or dropped: the general path
	}
	del := m.partDel
	if supersedes(rtDel, del) {
		del = rtDel
	}
	if supersedes(u.Deletion, del) {
		del = u.Deletion
	}
	m.clearFastValues()
	now := m.opts.Now
	live = livenessLive(u.Liveness, now) && !deletes(del, u.Liveness.Timestamp)
	want := m.opts.Columns
	for i := range u.Cells {
		c := &u.Cells[i]
		if deletes(del, c.Timestamp) || !cellLive(c, now) {
			continue
		}
		live = true
		if col := cols[c.Column]; want == nil || want[col] {
			m.setValue(col, c)
		}
	}
	if live {
		m.fillRow(u.Clustering, false)
	}
	return live, true
}

// fastMerge is fastRow for a row several sources hold, when every cell of
// every version is a plain simple cell: per column the versions reconcile
// with Cells.resolveRegular, the liveness infos with
// LivenessInfo.supersedes and the row deletions by DeletionTime order, as
// on the general path, without its per-column bookkeeping.
func (m *Merger) fastMerge(at []*source, rtDel sstable.DeletionTime) (live, handled bool) {
	for _, src := range at {
		if !src.plain && !m.plainCells(src) {
			return false, false
		}
	}
	// NB: the general path (and the static row) leave winners behind in
	// m.simple; clear them before reusing it.
	m.resetRow()
	liveness := sstable.LivenessInfo{Timestamp: sstable.NoTimestamp}
	del := m.partDel
	if supersedes(rtDel, del) {
		del = rtDel
	}
	winners := m.simple
	touched := m.touched[:0]
	for _, src := range at {
		u := src.u
		if livenessSupersedes(u.Liveness, liveness) {
			liveness = u.Liveness
		}
		if supersedes(u.Deletion, del) {
			del = u.Deletion
		}
		cols := src.cols[0]
		for i := range u.Cells {
			c := &u.Cells[i]
			col := cols[c.Column]
			if w := winners[col]; w == nil {
				winners[col] = c
				touched = append(touched, col)
			} else {
				winners[col] = resolveRegular(w, c)
			}
		}
	}
	m.clearFastValues()
	now := m.opts.Now
	live = livenessLive(liveness, now) && !deletes(del, liveness.Timestamp)
	want := m.opts.Columns
	for _, col := range touched {
		c := winners[col]
		winners[col] = nil
		if deletes(del, c.Timestamp) || !cellLive(c, now) {
			continue
		}
		live = true
		if want == nil || want[col] {
			m.setValue(col, c)
		}
	}
	m.touched = touched[:0]
	if live {
		m.fillRow(at[0].u.Clustering, false)
	}
	return live, true
}

// plainCells reports whether every cell of the source's current row is of
// a plain column (simple, not a counter, never dropped).
func (m *Merger) plainCells(src *source) bool {
	cols := src.cols[0]
	for i := range src.u.Cells {
		if col := cols[src.u.Cells[i].Column]; col < 0 || !m.plain[col] {
			return false
		}
	}
	return true
}

// clearFastValues nulls the regular values the last fast row set (all of
// them after a general-path row, which writes every one).
func (m *Merger) clearFastValues() {
	vals := m.row.Values
	if m.fastValid {
		for _, i := range m.fastSet {
			vals[i] = Value{Timestamp: NoTimestamp}
		}
	} else {
		for i, c := range m.t.Columns {
			if !c.Static {
				vals[i] = Value{Timestamp: NoTimestamp}
			}
		}
		m.fastValid = true
	}
	m.fastSet = m.fastSet[:0]
}

// setValue records a live simple cell as the column's value; its bytes
// alias the source's buffer.
func (m *Merger) setValue(col int, c *sstable.Cell) {
	b := c.Value
	if b == nil {
		b = emptyValue // empty, not null
	}
	v := &m.row.Values[col]
	*v = Value{Bytes: b, Timestamp: c.Timestamp}
	if c.IsExpiring() {
		v.TTL, v.LocalExpirationTime = c.TTL, c.LocalDeletionTime
	}
	m.fastSet = append(m.fastSet, col)
}
