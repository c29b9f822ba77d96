package reconcile

import "github.com/sstable-flight/sstable-flight/sstable"

// nextSingle is Next for a merge over one SSTable: nothing to order or
// merge, so one loop takes partitions and rows as the scanner returns
// them. Every rule still applies: partition and range deletions, row
// deletions, TTL expiry, static rows and the static-only row (Cassandra's
// trap of skipping reconciliation for a lone SSTable is not taken here).
func (m *Merger) nextSingle() bool {
	src := m.srcs[0]
	s := src.s
	for m.err == nil {
		if !m.inPartition {
			if src.done {
				// Left only now: the static-only row returned last
				// aliased this partition's key.
				src.done = false
				m.advancePartition(src)
				if m.err != nil {
					return false
				}
			}
			if !src.has {
				return false
			}
			src.in, src.open, src.consumed = true, sstable.LiveDeletion, false
			m.key, m.token, m.tokenSet = src.key, 0, false
			m.partDel = s.Partition().Deletion
			m.emitted = false
			m.advanceUnfiltered(src)
			if m.hasStaticCols {
				m.mergeStatic()
			}
			m.inPartition = true
		} else if src.consumed {
			src.consumed = false
			m.advanceUnfiltered(src)
		}
		u := src.u
		if u == nil {
			m.inPartition, src.in, src.done = false, false, true
			if m.err == nil && !m.emitted && m.hasStatic && !m.noStaticOnly {
				m.fillRow(nil, true)
				return true
			}
			continue
		}
		if u.Marker {
			m.applyMarker(src)
			m.advanceUnfiltered(src)
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
			src.consumed = true
			m.emitted = true
			return true
		}
		m.advanceUnfiltered(src)
	}
	return false
}
