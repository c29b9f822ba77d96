package reconcile

import "github.com/sstable-flight/sstable-flight/sstable"

// This file is the merger's loop: Next, the entry point of every read,
// and the single-SSTable path it runs itself (the fast path). With
// several SSTables Next hands over to nextMerged (merge.go).

// Next moves to the next live row; false at the end or on an error.
//
// Over one SSTable there is nothing to order or merge, so one loop takes
// partitions and rows as the scanner returns them. Every rule still
// applies: partition and range deletions, row deletions, TTL expiry,
// static rows and the static-only row (Cassandra's trap of skipping
// reconciliation for a lone SSTable is not taken here).
//
// NB: this is the fast path's hot loop. The commonest row (plain cells,
// no deletion over it, nothing in it that deletes or expires:
// sstable.Unfiltered.Simple) is evaluated here, to save a call per row;
// everything else (partition starts and ends, range tombstone markers,
// other rows) is turnSingle's or singleSlow's. Per row it tests two
// flags, calls the scanner once and writes the values.
func (m *Merger) Next() bool {
	src := m.single
	if src == nil {
		return m.nextMerged()
	}
	for {
		var u *sstable.Unfiltered
		if m.inPartition && src.s.NextUnfiltered() {
			// The row returned last was valid until here.
			u = src.s.Unfiltered()
		} else if m.inPartition && !m.hasStaticCols && src.s.NextPartition() {
			// The commonest turn to the next partition, without a call:
			// a table without static columns (so no static-only row to
			// return) and no error (NextPartition would be false, and
			// false again when turnSingle asks).
			m.enter(src)
			continue
		} else {
			switch m.turnSingle(src) {
			case slowRow:
				return true
			case slowDone:
				return false
			case slowNone:
				continue
			}
			u = src.u // slowAhead
		}
		if !u.Simple() || !m.hot {
			switch m.singleSlow(src, u) {
			case slowRow:
				return true
			case slowDone:
				return false
			}
			continue
		}
		// Nothing deletes or expires: every cell is live, and the row is
		// live through its liveness or any cell (fastRow's rules, with
		// the covering deletion live and no TTL).
		var set uint64 // the columns the row sets (< 64: m.hot)
		show, vals, cells := src.show, m.row.Values, u.Cells
		for i := range cells {
			c := &cells[i]
			if col := show[c.Column]; col >= 0 {
				setValue(&vals[col], c)
				set |= 1 << (uint(col) & 63)
			}
		}
		if set != m.setBits[0] {
			m.refit(show, u, sstable.LiveDeletion)
		}
		if len(cells) > 0 || u.Liveness.Timestamp != sstable.NoTimestamp {
			if m.clustered {
				// NB: never nil here; a table without clustering
				// columns keeps the empty clustering newMerger set.
				m.row.Clustering = u.Clustering
			}
			m.emitted = true
			return true
		}
	}
}

// What turnSingle and singleSlow did: returned a row, reached the end
// (or an error), moved on without a row, or read the partition's first
// unfiltered after its static row (src.u) ahead.
const (
	slowNone = iota
	slowRow
	slowDone
	slowAhead
)

// singleSlow is Next's step for a range tombstone marker or a row that is
// not the common one: fastRow's, or the general path's.
func (m *Merger) singleSlow(src *source, u *sstable.Unfiltered) int {
	if u.Static {
		// Only a table without static columns gets here (turnSingle
		// takes the static row): its cells are of dropped columns.
		return slowNone
	}
	if u.Marker {
		m.applyMarker(src, u)
		m.cover = maxDeletion(m.partDel, src.open)
		m.updateHot()
		return slowNone
	}
	live, ok := m.fastRow(src, u, m.cover)
	if !ok {
		m.fastValid = false
		m.resetRow()
		m.collect(src, u)
		live = m.evaluate(maxDeletion(m.cover, m.rowDel), u.Clustering)
		if m.err != nil {
			m.inPartition, src.has = false, false
			return slowDone
		}
	}
	// fastRow leaves the values valid for the next simple row; the
	// general path does not.
	m.updateHot()
	if live {
		m.emitted = true
		return slowRow
	}
	return slowNone
}

// turnSingle is Next's step when the scanner has no unfiltered: it leaves
// the partition that ended, returning its static-only row if it has one,
// and enters the next (the first one New read already): its deletion
// and, when the table has static columns, its static row, with the first
// other unfiltered read ahead.
func (m *Merger) turnSingle(src *source) int {
	s := src.s
	switch {
	case m.inPartition:
		m.inPartition = false
		if err := s.Err(); err != nil {
			m.err, src.has = err, false
			return slowDone
		}
		if m.hasStatic && !m.emitted && !m.noStaticOnly {
			// NB: the row aliases the partition's key: the scanner moves
			// on at the next call.
			src.done = true
			m.fillStaticOnly()
			return slowRow
		}
		src.has = s.NextPartition()
	case m.err != nil:
		return slowDone
	case src.done:
		// After a static-only row, whose nil clustering the next rows
		// must not keep.
		src.done = false
		src.has = s.NextPartition()
		m.row.Clustering = m.noClustering[:]
	}
	if !src.has {
		m.err = s.Err()
		return slowDone
	}
	m.enter(src)
	m.inPartition = true
	if !m.hasStaticCols {
		return slowNone
	}
	m.advanceUnfiltered(src)
	m.mergeStatic()
	m.beginRows()
	switch {
	case m.err != nil:
		m.inPartition, src.has = false, false
		return slowDone
	case src.u == nil:
		return slowNone // only static data: NextUnfiltered ends the partition
	}
	return slowAhead
}

// enter takes the scanner's new partition: its key and deletion.
func (m *Merger) enter(src *source) {
	// NB: the scanner keeps the key intact until its next partition.
	ph := src.s.Partition()
	m.row.Key, m.row.tokenSet = ph.Key, false
	del := ph.Deletion
	m.partDel, m.cover = del, del
	m.updateHot()
	m.emitted = false
	if !src.open.Live() {
		src.open = sstable.LiveDeletion // a marker left open at the partition's end
	}
}

// updateHot decides whether Next may take the next simple row itself: a
// plain source, nothing covering the rows, values fit for overwriting.
func (m *Merger) updateHot() { m.hot = m.plainSrc && m.cover.Live() && m.fastValid }
