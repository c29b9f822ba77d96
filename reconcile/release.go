package reconcile

import "github.com/sstable-flight/sstable-flight/internal/invariants"

// retire is the end of Release in invariants builds. It poisons the
// arenas the rows' assembled values alias (dead after Release, like the
// rows) and returns a copy of the merger to pool in its place, leaving m
// released for good: a second Release through the caller's pointer then
// panics even after a later merge took the pooled scratch, where
// checking m.t alone would see that merge's table and release its
// scanners under it.
func (m *Merger) retire() *Merger {
	invariants.Poison(m.arena[:cap(m.arena)])
	invariants.Poison(m.staticArena[:cap(m.staticArena)])
	n := new(Merger)
	*n = *m
	*m = Merger{}
	return n
}
