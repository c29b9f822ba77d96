package reconcile

import "github.com/sstable-flight/sstable-flight/sstable"

// The single-SSTable path: with one source there is nothing to order or
// merge, so partitions and rows are taken as the scanner returns them.
// Every rule still applies: partition and range deletions, row deletions,
// TTL expiry, static rows (Cassandra's trap of skipping reconciliation for
// a lone SSTable is not taken here).

func (m *Merger) startSingle() bool {
	src := m.srcs[0]
	if !src.has {
		return false
	}
	src.in = true
	src.open = sstable.LiveDeletion
	m.key, m.token, m.tokenSet = src.key, 0, false
	m.partDel = src.s.Partition().Deletion
	m.emitted = false
	m.advanceUnfiltered(src)
	m.mergeStatic()
	m.inPartition = true
	return m.err == nil
}

func (m *Merger) nextRowSingle() bool {
	src := m.srcs[0]
	if src.consumed {
		src.consumed = false
		m.advanceUnfiltered(src)
	}
	for m.err == nil {
		u := src.u
		if u == nil {
			return false
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
