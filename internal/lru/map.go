package lru

// Map maps K to V within a weight budget, least recently used out
// first. Not safe for concurrent use: its owner locks around it. The
// zero Map is not ready; Init it in place and do not copy it after (its
// list's sentinel points at itself).
type Map[K comparable, V any] struct {
	max      int64
	weight   int64
	m        map[K]*entry[K, V]
	lru      entry[K, V] // sentinel: lru.next is the most recent
	onRemove func(K, V)
	// spare is the last evicted entry, zeroed, for the next Add: a full
	// cache's Add evicts about one entry per entry added, so the steady
	// state allocates no entries.
	spare *entry[K, V]
}

type entry[K comparable, V any] struct {
	key        K
	val        V
	weight     int64
	prev, next *entry[K, V]
}

// Init readies m, empty, with its budget and its remove callback.
// onRemove, if not nil, is called with every entry that leaves m
// (evicted, replaced or removed), inside the call that removes it, so
// under the owner's lock: it releases what the value holds, exactly
// once. It must not call m's methods.
func (m *Map[K, V]) Init(maxWeight int64, onRemove func(K, V)) {
	*m = Map[K, V]{max: maxWeight, m: map[K]*entry[K, V]{}, onRemove: onRemove}
	m.lru.next, m.lru.prev = &m.lru, &m.lru
}

// MaxWeight is the budget given to Init.
func (m *Map[K, V]) MaxWeight() int64 { return m.max }

// Weight is the summed weight of the entries.
func (m *Map[K, V]) Weight() int64 { return m.weight }

// Len is the number of entries.
func (m *Map[K, V]) Len() int { return len(m.m) }

// Get returns the value under k and makes it the most recent.
func (m *Map[K, V]) Get(k K) (V, bool) {
	e, ok := m.m[k]
	if !ok {
		var zero V
		return zero, false
	}
	e.unlink()
	m.pushFront(e)
	return e.val, true
}

// Peek returns the value under k and leaves the order as it is.
func (m *Map[K, V]) Peek(k K) (V, bool) {
	e, ok := m.m[k]
	if !ok {
		var zero V
		return zero, false
	}
	return e.val, true
}

// MakeRoom evicts the least recent entries until w more fits in the
// budget and returns how many it evicted; false, evicting nothing, when
// w is over the whole budget. An owner that must free resources (the
// chunk cache's slots) before it can build the value calls it before
// Add.
func (m *Map[K, V]) MakeRoom(w int64) (evicted int, ok bool) {
	if w > m.max {
		return 0, false
	}
	for m.weight+w > m.max {
		m.discard(m.lru.prev)
		evicted++
	}
	return evicted, true
}

// Add stores v of weight w under k as the most recent entry, replacing
// the one there, and evicts the least recent entries to make room. It
// returns how many it evicted (the replaced entry not counted); false,
// changing nothing, when w is over the whole budget.
func (m *Map[K, V]) Add(k K, v V, w int64) (evicted int, ok bool) {
	if w > m.max {
		return 0, false
	}
	if old, ok := m.m[k]; ok {
		m.discard(old)
	}
	evicted, _ = m.MakeRoom(w)
	e := m.spare
	if e != nil {
		m.spare = nil
	} else {
		e = new(entry[K, V])
	}
	e.key, e.val, e.weight = k, v, w
	m.pushFront(e)
	m.m[k] = e
	m.weight += w
	return evicted, true
}

// RemoveIf removes every entry whose key f accepts and returns how many.
func (m *Map[K, V]) RemoveIf(f func(K) bool) int {
	n := 0
	for k, e := range m.m {
		if f(k) {
			m.remove(e)
			n++
		}
	}
	return n
}

func (m *Map[K, V]) remove(e *entry[K, V]) {
	e.unlink()
	delete(m.m, e.key)
	m.weight -= e.weight
	if m.onRemove != nil {
		m.onRemove(e.key, e.val)
	}
}

// discard removes e and keeps it, zeroed so that it holds no key or
// value, as the spare.
func (m *Map[K, V]) discard(e *entry[K, V]) {
	m.remove(e)
	*e = entry[K, V]{}
	m.spare = e
}

func (m *Map[K, V]) pushFront(e *entry[K, V]) {
	e.prev, e.next = &m.lru, m.lru.next
	m.lru.next.prev = e
	m.lru.next = e
}

func (e *entry[K, V]) unlink() {
	e.prev.next, e.next.prev = e.next, e.prev
	e.prev, e.next = nil, nil
}
