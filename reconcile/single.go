package reconcile

import "github.com/sstable-flight/sstable-flight/sstable"

// Next moves to the next live row; false at the end or on an error.
//
// Over one SSTable there is nothing to order or merge, so one loop takes
// partitions and rows as the scanner returns them. Every rule still
// applies: partition and range deletions, row deletions, TTL expiry,
// static rows and the static-only row (Cassandra's trap of skipping
// reconciliation for a lone SSTable is not taken here).
//
// NB: this is the fast path's hot loop, in Next itself to save a call per
// row. Per row it tests two flags, calls the scanner once and evaluates
// the row; partition starts and ends, and the key, token and static values
// rows share, are kept out of it.
func (m *Merger) Next() bool {
	if len(m.srcs) != 1 {
		return m.nextMerged()
	}
	src := m.srcs[0]
	s := src.s
	for {
		var u *sstable.Unfiltered
		switch {
		case src.pending:
			src.pending = false
			u = src.u
		case m.inPartition:
			// The row returned last was valid until here.
			if s.NextUnfiltered() {
				u = s.Unfiltered()
			}
		default:
			if !m.enterSingle(src) {
				return false
			}
			continue
		}
		if u == nil {
			if m.endSingle(src) {
				return true
			}
			if m.err != nil {
				return false
			}
			continue
		}
		if u.Marker {
			m.applyMarker(src, u)
			continue
		}
		live, ok := m.fastRow(src, u, src.open)
		if !ok {
			m.fastValid = false
			m.fastSet = m.fastSet[:0]
			m.resetRow()
			m.collect(src, u)
			live = m.evaluate(maxDeletion(maxDeletion(m.partDel, src.open), m.rowDel), u.Clustering)
		}
		if live {
			m.emitted = true
			return true
		}
	}
}

// enterSingle enters the source's next partition (the first one New read
// already): its deletion and, when the table has static columns, its
// static row, with the first other unfiltered read ahead (src.u,
// pending). False at the end of the data or on an error.
func (m *Merger) enterSingle(src *source) bool {
	s := src.s
	if src.done {
		src.done = false
		src.has = s.NextPartition()
	}
	if !src.has {
		if err := s.Err(); err != nil {
			m.err = err
		}
		return false
	}
	// NB: the scanner keeps the key intact until its next partition.
	ph := s.Partition()
	m.row.Key, m.row.tokenSet = ph.Key, false
	m.partDel = ph.Deletion
	m.emitted, m.inPartition = false, true
	src.in, src.open = true, sstable.LiveDeletion
	if m.hasStaticCols {
		m.advanceUnfiltered(src)
		m.mergeStatic()
		m.beginRows()
		src.pending = m.err == nil
	}
	return m.err == nil
}

// endSingle leaves the partition the source finished; true when it
// returns the partition's static-only row.
func (m *Merger) endSingle(src *source) bool {
	if err := src.s.Err(); err != nil {
		m.err = err
		return false
	}
	m.inPartition, src.done = false, true
	if !m.emitted && m.hasStatic && !m.noStaticOnly {
		m.fillStaticOnly()
		return true
	}
	return false
}
