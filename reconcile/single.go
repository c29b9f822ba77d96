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
// row. Per row it tests one flag, calls the scanner once and evaluates the
// row; partition starts and ends, and the key, token and static values
// rows share, are kept out of it.
func (m *Merger) Next() bool {
	if len(m.srcs) != 1 {
		return m.nextMerged()
	}
	src := m.srcs[0]
	s := src.s
	for {
		var u *sstable.Unfiltered
		if src.pending {
			if !m.inPartition && !m.startSingle(src) {
				return false
			}
			src.pending = false
			u = src.u
		} else if s.NextUnfiltered() {
			// The row returned last was valid until here.
			u = s.Unfiltered()
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

// startSingle enters the source's next partition: its deletion, its
// static row, and its first unfiltered read ahead (src.u, pending). False
// at the end of the data or on an error.
func (m *Merger) startSingle(src *source) bool {
	if src.done {
		// Left only now: the static-only row returned last aliased the
		// finished partition's key.
		src.done = false
		m.advancePartition(src)
		if m.err != nil {
			return false
		}
	}
	if !src.has {
		return false
	}
	src.in, src.open = true, sstable.LiveDeletion
	m.row.Key, m.row.tokenSet = src.key, false
	m.partDel = src.s.Partition().Deletion
	m.emitted = false
	m.advanceUnfiltered(src)
	if m.err != nil {
		return false
	}
	if m.hasStaticCols {
		m.mergeStatic()
		if m.err != nil {
			return false
		}
		m.beginRows()
	}
	m.inPartition = true
	return true
}

// endSingle leaves the partition the source finished; true when it
// returns the partition's static-only row.
func (m *Merger) endSingle(src *source) bool {
	if err := src.s.Err(); err != nil {
		m.err = err
		return false
	}
	m.inPartition, src.done, src.pending = false, true, true
	if !m.emitted && m.hasStatic && !m.noStaticOnly {
		m.fillStaticOnly()
		return true
	}
	return false
}
