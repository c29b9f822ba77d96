package reconcile

import (
	"math/bits"

	"github.com/sstable-flight/sstable-flight/sstable"
)

// fastRow evaluates a row that only one source holds and whose cells are
// all simple, non-counter cells: the common case of a table read from a
// single SSTable, or of a partition only one generation touched. The
// rules are the general path's (liveness, the covering deletion, TTL
// expiry per cell) without the per-column merge bookkeeping. cover is the
// partition's deletion and the open range tombstone's, whichever
// supersedes. It returns handled=false for rows it leaves to the general
// path. (Next evaluates the commonest rows, with nothing to delete or
// expire, itself.)
func (m *Merger) fastRow(src *source, u *sstable.Unfiltered, cover sstable.DeletionTime) (live, handled bool) {
	if !src.plain && !m.plainCells(src.cols[0], u) {
		return false, false // multi-cell, counter or dropped: the general path
	}
	del := cover
	if supersedes(u.Deletion, del) {
		del = u.Deletion
	}
	now := m.opts.Now
	live = livenessLive(u.Liveness, now) && !deletes(del, u.Liveness.Timestamp)
	// Rows of a table mostly set the same columns as the row before: then
	// values are overwritten in place and nothing is nulled. set has the
	// columns this row sets, modulo 64 (a table of more columns leaves the
	// check to refit).
	var set uint64
	show, vals, cells := src.show, m.row.Values, u.Cells
	for i := range cells {
		c := &cells[i]
		if deletes(del, c.Timestamp) || !cellLive(c, now) {
			continue
		}
		live = true
		col := show[c.Column]
		if col < 0 {
			continue // left out by Options.Columns
		}
		setValue(&vals[col], c)
		set |= 1 << (uint(col) & 63)
	}
	if !m.fastValid || len(m.setBits) != 1 || set != m.setBits[0] {
		m.refit(show, u, del)
	}
	if live {
		m.fillRow(u.Clustering)
	}
	return live, true
}

// refit is fastRow's slow step when a row sets other columns than the row
// before (or the table has more than 64 columns): it nulls the regular
// values the row left unset and records the columns it set.
func (m *Merger) refit(show []int, u *sstable.Unfiltered, del sstable.DeletionTime) {
	now := m.opts.Now
	cur := m.nextBits
	clear(cur)
	for i := range u.Cells {
		c := &u.Cells[i]
		if col := show[c.Column]; col >= 0 && cellLive(c, now) && !deletes(del, c.Timestamp) {
			cur[col>>6] |= 1 << (uint(col) & 63)
		}
	}
	m.keepOnly(cur)
}

// keepOnly nulls the regular values that m.setBits (or, after a
// general-path row, the whole row) holds and keep does not, and makes
// keep (m.nextBits) the new m.setBits.
func (m *Merger) keepOnly(keep []uint64) {
	vals := m.row.Values
	if !m.fastValid {
		// After a general-path row any regular value may be set.
		for i, c := range m.t.Columns {
			if !c.Static && keep[i>>6]&(1<<(uint(i)&63)) == 0 {
				vals[i] = Value{Timestamp: NoTimestamp}
			}
		}
		m.fastValid = true
	} else {
		for w, set := range m.setBits {
			for gone := set &^ keep[w]; gone != 0; gone &= gone - 1 {
				vals[w<<6+bits.TrailingZeros64(gone)] = Value{Timestamp: NoTimestamp}
			}
		}
	}
	m.setBits, m.nextBits = keep, m.setBits
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
	clear(m.nextBits)
	m.keepOnly(m.nextBits) // none: the winners' bits are set below
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
			m.setBits[col>>6] |= 1 << (uint(col) & 63)
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

// setValue records a live simple cell as the column's value; its bytes
// alias the source's buffer.
func (m *Merger) setValue(col int, c *sstable.Cell) {
	setValue(&m.row.Values[col], c)
}

// setValue writes a live simple cell into v: field by field, as a
// struct literal would first zero v. The bytes alias the source's buffer;
// the decoder never leaves them nil (an empty value is not null).
func setValue(v *Value, c *sstable.Cell) {
	// NB: the decoder leaves TTL and LocalDeletionTime 0 on a live cell
	// that does not expire.
	v.Bytes, v.Timestamp, v.TTL, v.LocalExpirationTime = c.Value, c.Timestamp, c.TTL, c.LocalDeletionTime
}
