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
	if !src.plain && !m.plainCells(src.cols[0], u) {
		return false, false // multi-cell, counter or dropped: the general path
	}
	del := m.partDel
	if !rtDel.Live() && supersedes(rtDel, del) {
		del = rtDel
	}
	if !u.Deletion.Live() && supersedes(u.Deletion, del) {
		del = u.Deletion
	}
	now := m.opts.Now
	live = livenessLive(u.Liveness, now) && !deletes(del, u.Liveness.Timestamp)
	// Rows of a table mostly set the same columns as the row before:
	// while they do (k counts them; -1 once they differ), values are
	// overwritten in place and nothing is nulled. m.fastSet lists the last
	// row's columns in order.
	prev, k := m.fastSet, -1
	if m.fastValid {
		k = 0
	}
	show, vals := src.show, m.row.Values
	for i := range u.Cells {
		c := &u.Cells[i]
		if !cellLive(c, now) || deletes(del, c.Timestamp) {
			continue
		}
		live = true
		col := show[c.Column]
		if col < 0 {
			continue // left out by Options.Columns
		}
		setValue(&vals[col], c)
		if k >= 0 && k < len(prev) && prev[k] == col {
			k++
		} else {
			k = -1
		}
	}
	if k != len(prev) {
		m.refitFastSet(src.cols[0], u, del)
	}
	if live {
		m.fillRow(u.Clustering)
	}
	return live, true
}

// refitFastSet is fastRow's slow step when a row sets other columns than
// the row before: it nulls the regular values the row left unset and
// records the columns it set.
func (m *Merger) refitFastSet(cols []int, u *sstable.Unfiltered, del sstable.DeletionTime) {
	now, want := m.opts.Now, m.opts.Columns
	cur := m.fastNext[:0]
	for i := range u.Cells {
		c := &u.Cells[i]
		if col := cols[c.Column]; cellLive(c, now) && !deletes(del, c.Timestamp) && (want == nil || want[col]) {
			cur = append(cur, col)
			m.isSet[col] = true
		}
	}
	vals := m.row.Values
	if m.fastValid {
		for _, i := range m.fastSet {
			if !m.isSet[i] {
				vals[i] = Value{Timestamp: NoTimestamp}
			}
		}
	} else {
		// After a general-path row any regular value may be set.
		for i, c := range m.t.Columns {
			if !c.Static && !m.isSet[i] {
				vals[i] = Value{Timestamp: NoTimestamp}
			}
		}
	}
	for _, i := range cur {
		m.isSet[i] = false
	}
	m.fastSet, m.fastNext = cur, m.fastSet[:0]
	m.fastValid = true
}

// fastMerge is fastRow for a row several sources hold, when every cell of
// every version is a plain simple cell: per column the versions reconcile
// with Cells.resolveRegular, the liveness infos with
// LivenessInfo.supersedes and the row deletions by DeletionTime order, as
// on the general path, without its per-column bookkeeping.
func (m *Merger) fastMerge(at []*source, rtDel sstable.DeletionTime) (live, handled bool) {
	for _, src := range at {
		if !src.plain && !m.plainCells(src.cols[0], src.u) {
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
			m.fastSet = append(m.fastSet, col)
		}
	}
	m.touched = touched[:0]
	if live {
		m.fillRow(at[0].u.Clustering)
	}
	return live, true
}

// plainCells reports whether every cell of the row is of a plain column
// (simple, not a counter, never dropped); cols maps its source's header.
func (m *Merger) plainCells(cols []int, u *sstable.Unfiltered) bool {
	for i := range u.Cells {
		if col := cols[u.Cells[i].Column]; col < 0 || !m.plain[col] {
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
	setValue(&m.row.Values[col], c)
}

// setValue writes a live simple cell into v.
func setValue(v *Value, c *sstable.Cell) {
	b := c.Value
	if b == nil {
		b = emptyValue // empty, not null
	}
	*v = Value{Bytes: b, Timestamp: c.Timestamp}
	if c.IsExpiring() {
		v.TTL, v.LocalExpirationTime = c.TTL, c.LocalDeletionTime
	}
}
