package reconcile

import (
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/sstable-flight/sstable-flight/sstable"
	"github.com/sstable-flight/sstable-flight/sstable/marshal"
)

// rowState is the merge of one row's versions across the sources.
type rowState struct {
	liveness sstable.LivenessInfo
	rowDel   sstable.DeletionTime
	touched  []int
}

func (m *Merger) resetRow() {
	for _, i := range m.touched {
		m.simple[i] = nil
		m.complex[i] = m.complex[i][:0]
		m.cdel[i] = sstable.LiveDeletion
	}
	m.touched = m.touched[:0]
	m.liveness = sstable.LivenessInfo{Timestamp: sstable.NoTimestamp}
	m.rowDel = sstable.LiveDeletion
}

func (m *Merger) touch(col int) {
	if m.simple[col] == nil && len(m.complex[col]) == 0 && m.cdel[col].Live() {
		m.touched = append(m.touched, col)
	}
}

// collect adds one source's version of the current row (or static row).
func (m *Merger) collect(src *source, u *sstable.Unfiltered) {
	if livenessSupersedes(u.Liveness, m.liveness) {
		m.liveness = u.Liveness
	}
	m.rowDel = maxDeletion(m.rowDel, u.Deletion)
	k := 0
	if u.Static {
		k = 1
	}
	for _, cd := range u.Complex {
		col := src.cols[k][cd.Column]
		if col < 0 {
			continue
		}
		m.touch(col)
		m.cdel[col] = maxDeletion(m.cdel[col], cd.Deletion)
	}
	for i := range u.Cells {
		c := &u.Cells[i]
		col := src.cols[k][c.Column]
		if col < 0 || c.Timestamp <= m.dropped[col] {
			continue // a dropped column's cell (Cassandra's dropped_columns rule)
		}
		t := m.t.Columns[col].Type
		m.touch(col)
		switch {
		case t.IsMultiCell() || t.Kind == marshal.Counter:
			// All versions are kept: paths are merged, counter contexts
			// summed, when the row is resolved.
			m.complex[col] = append(m.complex[col], cellRef{c})
		case m.simple[col] == nil:
			m.simple[col] = c
		default:
			m.simple[col] = resolveRegular(m.simple[col], c)
		}
	}
}

// evaluate applies the deletion covering the row and reports whether it
// is live; a live row is written to m.row.
func (m *Merger) evaluate(del sstable.DeletionTime, clustering [][]byte) bool {
	m.arena = m.arena[:0]
	m.arena = m.resolve(m.arena, m.row.Values, del, false)
	live := livenessLive(m.liveness, m.opts.Now) && !deletes(del, m.liveness.Timestamp) || m.hiddenLive
	if !live {
		for i, c := range m.t.Columns {
			if !c.Static && m.row.Values[i].Bytes != nil {
				live = true
				break
			}
		}
	}
	if live {
		m.fillRow(clustering)
	}
	return live
}

// beginRows sets the static values every row of the partition shares;
// no row's resolution overwrites them.
func (m *Merger) beginRows() {
	for _, i := range m.statics {
		m.row.Values[i] = m.staticVals[i]
	}
}

// fillRow completes m.row with a live row's clustering; its regular
// values are already resolved (or null).
func (m *Merger) fillRow(clustering [][]byte) {
	// NB: a table without clustering columns has empty, non-nil
	// clustering, so its rows are told from a static-only row. The
	// values alias the source's buffer, valid until the next Next.
	if clustering == nil {
		clustering = m.noClustering[:]
	}
	m.row.Clustering = clustering
}

// fillStaticOnly makes m.row the static-only row of a partition with
// static data and no live row: no clustering, null regular values.
func (m *Merger) fillStaticOnly() {
	r := &m.row
	r.Clustering = nil
	for i, c := range m.t.Columns {
		if !c.Static {
			r.Values[i] = Value{Timestamp: NoTimestamp}
		}
	}
}

// resolve computes the values of the static (static=true) or regular
// columns from the collected cells under the covering deletion, appending
// value bytes to arena.
func (m *Merger) resolve(arena []byte, vals []Value, del sstable.DeletionTime, static bool) []byte {
	m.hiddenLive = false
	for i, c := range m.t.Columns {
		if c.Static != static {
			continue
		}
		vals[i] = Value{Timestamp: NoTimestamp}
		if m.opts.Columns != nil && !m.opts.Columns[i] {
			m.hiddenLive = m.hiddenLive || m.liveOnly(i, c.Type, del)
			continue
		}
		var err error
		switch {
		case c.Type.Kind == marshal.Counter:
			arena, err = m.resolveCounter(arena, &vals[i], i, del)
		case c.Type.IsMultiCell():
			arena, err = m.resolveComplex(arena, &vals[i], i, c.Type, maxDeletion(del, m.cdel[i]))
		default:
			cell := m.simple[i]
			if cell == nil || deletes(del, cell.Timestamp) || !cellLive(cell, m.opts.Now) {
				continue
			}
			b := cell.Value
			if static {
				// Static values outlive the static row's buffer: copy.
				start := len(arena)
				arena = append(arena, cell.Value...)
				b = arena[start:len(arena):len(arena)]
			}
			if b == nil {
				// NB: an empty value (0x, '') is not null; appending nothing
				// to a nil arena, or an empty cell, yields nil.
				b = emptyValue
			}
			vals[i] = Value{Bytes: b, Timestamp: cell.Timestamp}
			if cell.IsExpiring() {
				vals[i].TTL, vals[i].LocalExpirationTime = cell.TTL, cell.LocalDeletionTime
			}
		}
		if err != nil && m.err == nil {
			m.err = fmt.Errorf("reconcile column %s of partition %x: %w", c.Name, m.row.Key, err)
		}
	}
	return arena
}

// resolveCounter is Cells.resolveCounter over every version: a tombstone
// wins whatever its timestamp; otherwise the contexts merge and the row's
// deletion applies to the latest write.
func (m *Merger) resolveCounter(arena []byte, v *Value, col int, del sstable.DeletionTime) ([]byte, error) {
	refs := m.complex[col]
	if len(refs) == 0 {
		return arena, nil
	}
	latest := refs[0].c.Timestamp
	m.ctxs = m.ctxs[:0]
	for _, r := range refs {
		if r.c.IsTombstone() {
			return arena, nil
		}
		latest = max(latest, r.c.Timestamp)
		m.ctxs = append(m.ctxs, r.c.Value)
	}
	if deletes(del, latest) {
		return arena, nil
	}
	total, shards, err := counterTotal(m.shards, m.ctxs)
	m.shards = shards
	if err != nil {
		return arena, err
	}
	start := len(arena)
	arena = binary.BigEndian.AppendUint64(arena, uint64(total))
	*v = Value{Bytes: arena[start:len(arena):len(arena)], Timestamp: latest}
	return arena, nil
}

// resolveComplex merges a multi-cell column's cells by path (the latest
// version of each element wins, as for simple cells), drops deleted and
// expired ones, and serializes the live elements as CQL sends the value:
// a list's values, a set's elements, a map's entries, a UDT's fields.
func (m *Merger) resolveComplex(arena []byte, v *Value, col int, t *marshal.Type, del sstable.DeletionTime) ([]byte, error) {
	refs := m.mergePaths(col, t)
	if len(refs) == 0 {
		return arena, nil
	}
	n := 0
	for _, r := range refs {
		if !deletes(del, r.c.Timestamp) && cellLive(r.c, m.opts.Now) {
			n++
		}
	}
	if n == 0 {
		return arena, nil
	}
	start := len(arena)
	if t.Kind == marshal.UDT {
		// Every field in declaration order; fields without a live cell
		// are null.
		for f := range t.Elems {
			var cell *sstable.Cell
			for _, r := range refs {
				if len(r.c.Path) == 2 && int(binary.BigEndian.Uint16(r.c.Path)) == f && !deletes(del, r.c.Timestamp) && cellLive(r.c, m.opts.Now) {
					cell = r.c
				}
			}
			arena = appendElem(arena, cell)
		}
		*v = Value{Bytes: arena[start:len(arena):len(arena)], Timestamp: NoTimestamp}
		return arena, nil
	}
	arena = binary.BigEndian.AppendUint32(arena, uint32(n))
	for _, r := range refs {
		if deletes(del, r.c.Timestamp) || !cellLive(r.c, m.opts.Now) {
			continue
		}
		switch t.Kind {
		case marshal.List:
			arena = appendBytes(arena, r.c.Value)
		case marshal.Set:
			arena = appendBytes(arena, r.c.Path)
		case marshal.Map:
			arena = appendBytes(arena, r.c.Path)
			arena = appendBytes(arena, r.c.Value)
		}
	}
	*v = Value{Bytes: arena[start:len(arena):len(arena)], Timestamp: NoTimestamp}
	return arena, nil
}

// mergePaths sorts a multi-cell column's cells by path and keeps, per
// path, the winning version.
func (m *Merger) mergePaths(col int, t *marshal.Type) []cellRef {
	refs := m.complex[col]
	if len(refs) == 0 {
		return refs
	}
	pt := pathType(t)
	slices.SortStableFunc(refs, func(a, b cellRef) int { return marshal.Compare(pt, a.c.Path, b.c.Path) })
	w := 0
	for i := 0; i < len(refs); i++ {
		if w > 0 && marshal.Compare(pt, refs[w-1].c.Path, refs[i].c.Path) == 0 {
			refs[w-1].c = resolveRegular(refs[w-1].c, refs[i].c)
			continue
		}
		refs[w] = refs[i]
		w++
	}
	return refs[:w]
}

// liveOnly reports whether a column left out of Options.Columns has a
// live value, by the rules resolve applies, without building it.
func (m *Merger) liveOnly(col int, t *marshal.Type, del sstable.DeletionTime) bool {
	now := m.opts.Now
	switch {
	case t.Kind == marshal.Counter:
		refs := m.complex[col]
		if len(refs) == 0 {
			return false
		}
		latest := refs[0].c.Timestamp
		for _, r := range refs {
			if r.c.IsTombstone() {
				return false
			}
			latest = max(latest, r.c.Timestamp)
		}
		return !deletes(del, latest)
	case t.IsMultiCell():
		del = maxDeletion(del, m.cdel[col])
		for _, r := range m.mergePaths(col, t) {
			if !deletes(del, r.c.Timestamp) && cellLive(r.c, now) {
				return true
			}
		}
		return false
	default:
		c := m.simple[col]
		return c != nil && !deletes(del, c.Timestamp) && cellLive(c, now)
	}
}

func appendBytes(b, v []byte) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(len(v)))
	return append(b, v...)
}

// appendElem writes a UDT field: the live cell's value, or null (-1).
func appendElem(b []byte, c *sstable.Cell) []byte {
	if c == nil {
		return binary.BigEndian.AppendUint32(b, 0xffffffff)
	}
	return appendBytes(b, c.Value)
}

// pathType is the order of a multi-cell column's cell paths.
func pathType(t *marshal.Type) *marshal.Type {
	switch t.Kind {
	case marshal.List:
		return timeUUIDType
	case marshal.Set, marshal.Map:
		return t.Elems[0]
	}
	return blobType // UDT field indexes: big-endian non-negative shorts
}

// emptyValue is a present, empty value (an empty text or blob), never null.
var emptyValue = []byte{}

var (
	timeUUIDType = &marshal.Type{Kind: marshal.TimeUUID}
	blobType     = &marshal.Type{Kind: marshal.Blob}
)
