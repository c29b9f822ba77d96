package lru

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// removals records what a Map's onRemove callback is given.
type removals struct{ keys, vals []int }

func (r *removals) record(k, v int) { r.keys, r.vals = append(r.keys, k), append(r.vals, v) }

func newMap(max int64) (*Map[int, int], *removals) {
	r := &removals{}
	m := &Map[int, int]{}
	m.Init(max, r.record)
	return m, r
}

// TestMapEvictionOrder: eviction takes the least recently used first,
// Get makes an entry the most recent and Peek does not, and every
// evicted entry reaches the callback once, with its value, in the order
// it left.
func TestMapEvictionOrder(t *testing.T) {
	m, r := newMap(3)
	for k := 1; k <= 3; k++ {
		m.Add(k, k*10, 1)
	}
	if v, ok := m.Get(1); !ok || v != 10 { // order, most recent first: 1 3 2
		t.Fatalf("Get(1) = %d, %v", v, ok)
	}
	if v, ok := m.Peek(2); !ok || v != 20 { // leaves 2 the least recent
		t.Fatalf("Peek(2) = %d, %v", v, ok)
	}
	if n, ok := m.Add(4, 40, 1); n != 1 || !ok {
		t.Fatalf("Add(4) evicted %d, stored %v; want 1, true", n, ok)
	}
	if n, ok := m.Add(5, 50, 2); n != 2 || !ok { // 4 1 3: 3 and 1 go
		t.Fatalf("Add(5) evicted %d, stored %v; want 2, true", n, ok)
	}
	if want := []int{2, 3, 1}; !slices.Equal(r.keys, want) || !slices.Equal(r.vals, []int{20, 30, 10}) {
		t.Fatalf("removed keys %v values %v, want keys %v", r.keys, r.vals, want)
	}
	for k, want := range map[int]bool{1: false, 2: false, 3: false, 4: true, 5: true} {
		t.Run(fmt.Sprint(k), func(t *testing.T) {
			if _, ok := m.Peek(k); ok != want {
				t.Errorf("key %d cached %v, want %v", k, ok, want)
			}
		})
	}
	if m.Len() != 2 || m.Weight() != 3 {
		t.Fatalf("%d entries weighing %d, want 2 and 3", m.Len(), m.Weight())
	}
}

// TestMapWeight: the weight is the sum of the entries' weights through
// replacement (the old value goes to the callback but is not counted as
// evicted), entries over the whole budget (refused, the old value kept),
// zero weights, MakeRoom and RemoveIf.
func TestMapWeight(t *testing.T) {
	m, r := newMap(9)
	m.Add(1, 1, 4)
	m.Add(2, 2, 4)
	if n, ok := m.Add(1, 11, 6); n != 1 || !ok || m.Weight() != 6 || m.Len() != 1 {
		t.Fatalf("replace 1 (weight 4 by 6) next to 2 (4): evicted %d, stored %v, weight %d, %d entries; want 1, true, 6, 1",
			n, ok, m.Weight(), m.Len())
	}
	if !slices.Equal(r.keys, []int{1, 2}) || !slices.Equal(r.vals, []int{1, 2}) {
		t.Fatalf("removed %v %v, want the replaced 1 then the evicted 2", r.keys, r.vals)
	}
	if n, ok := m.Add(1, 12, 10); n != 0 || ok {
		t.Fatalf("Add over the budget: evicted %d, stored %v", n, ok)
	}
	if v, _ := m.Peek(1); v != 11 || m.Weight() != 6 {
		t.Fatalf("a refused Add changed the map: value %d, weight %d", v, m.Weight())
	}
	for k := 20; k < 25; k++ {
		m.Add(k, k, 0) // weigh nothing, evict nothing
	}
	if m.Len() != 6 || m.Weight() != 6 {
		t.Fatalf("%d entries weighing %d, want 6 and 6", m.Len(), m.Weight())
	}
	if n, ok := m.MakeRoom(4); n != 1 || !ok || m.Weight() != 0 || m.Len() != 5 {
		t.Fatalf("MakeRoom(4): evicted %d, %v, weight %d, %d entries; want 1 (key 1), true, 0, 5", n, ok, m.Weight(), m.Len())
	}
	if _, ok := m.MakeRoom(10); ok {
		t.Fatal("MakeRoom over the budget succeeded")
	}
	r.keys, r.vals = nil, nil
	if n := m.RemoveIf(func(k int) bool { return k%2 == 0 }); n != 3 {
		t.Fatalf("RemoveIf removed %d, want 3", n)
	}
	slices.Sort(r.keys)
	if !slices.Equal(r.keys, []int{20, 22, 24}) || m.Len() != 2 {
		t.Fatalf("RemoveIf: callback got %v, %d left", r.keys, m.Len())
	}
}

// TestMapNegativeBudget: a budget below zero caches nothing, not even
// entries that weigh nothing.
func TestMapNegativeBudget(t *testing.T) {
	m, _ := newMap(-1)
	if _, ok := m.Add(1, 1, 0); ok || m.Len() != 0 {
		t.Fatalf("stored %v, %d entries", ok, m.Len())
	}
}

// TestMapModel runs random operations against a Map and a plain slice in
// order of use: after each, both hold the same entries in the same order
// (read through eviction), the same weight, and the callback has seen
// exactly the entries that left.
func TestMapModel(t *testing.T) {
	type ent struct{ k, v, w int }
	const max = 50
	rng := rand.New(rand.NewPCG(1, 2))
	m, r := newMap(max)
	var model []ent // most recent first
	var left []int  // keys the model removed, in order
	find := func(k int) int {
		return slices.IndexFunc(model, func(e ent) bool { return e.k == k })
	}
	weight := func() (w int64) {
		for _, e := range model {
			w += int64(e.w)
		}
		return w
	}
	for step := range 20000 {
		k := rng.IntN(40)
		switch op := rng.IntN(10); {
		case op < 5: // Add
			v, w := rng.Int(), rng.IntN(max/4)
			if step%97 == 0 {
				w = max + 1
			}
			if w > max {
				m.Add(k, v, int64(w))
				break
			}
			if i := find(k); i >= 0 {
				left = append(left, k)
				model = slices.Delete(model, i, i+1)
			}
			for weight()+int64(w) > max {
				left = append(left, model[len(model)-1].k)
				model = model[:len(model)-1]
			}
			model = slices.Insert(model, 0, ent{k, v, w})
			m.Add(k, v, int64(w))
		case op < 8: // Get
			v, ok := m.Get(k)
			i := find(k)
			if ok != (i >= 0) || ok && v != model[i].v {
				t.Fatalf("step %d: Get(%d) = %d, %v; model %v", step, k, v, ok, i >= 0)
			}
			if ok {
				e := model[i]
				model = slices.Insert(slices.Delete(model, i, i+1), 0, e)
			}
		case op < 9: // Peek
			v, ok := m.Peek(k)
			if i := find(k); ok != (i >= 0) || ok && v != model[i].v {
				t.Fatalf("step %d: Peek(%d) = %d, %v", step, k, v, ok)
			}
		default: // RemoveIf, one residue class of keys
			mod := 5 + rng.IntN(5)
			m.RemoveIf(func(key int) bool { return key%mod == k%mod })
			var gone []int
			model = slices.DeleteFunc(model, func(e ent) bool {
				if e.k%mod == k%mod {
					gone = append(gone, e.k)
					return true
				}
				return false
			})
			// RemoveIf goes in map order: compare its removals as a set.
			got := r.keys[len(r.keys)-len(gone):]
			slices.Sort(got)
			slices.Sort(gone)
			left = append(left, gone...)
		}
		if !slices.Equal(r.keys, left) {
			t.Fatalf("step %d: callback saw %v, want %v", step, r.keys, left)
		}
		if m.Len() != len(model) || m.Weight() != weight() {
			t.Fatalf("step %d: %d entries weighing %d, model %d weighing %d", step, m.Len(), m.Weight(), len(model), weight())
		}
	}
	// The order, least recent first, is the order MakeRoom evicts in.
	r.keys = nil
	m.MakeRoom(max)
	var want []int
	for i, w := len(model)-1, weight(); w > 0; i-- {
		want = append(want, model[i].k)
		w -= int64(model[i].w)
	}
	if !slices.Equal(r.keys, want) {
		t.Fatalf("eviction order %v, want %v", r.keys, want)
	}
}

// TestMapAddNoAllocs: in a full Map, an Add that evicts reuses the
// evicted entry, so the steady state of a cache allocates nothing in the
// Map; the reused entry holds no value while it waits.
func TestMapAddNoAllocs(t *testing.T) {
	m := &Map[int, *[64]byte]{}
	m.Init(100, nil)
	for k := range 100 {
		m.Add(k, new([64]byte), 1)
	}
	v, k := new([64]byte), 100
	if allocs := testing.AllocsPerRun(1000, func() {
		m.Add(k, v, 1)
		k++
	}); allocs != 0 {
		t.Errorf("Add into a full map: %v allocations", allocs)
	}
	m.MakeRoom(1)
	if m.spare == nil || m.spare.val != nil || m.spare.key != 0 {
		t.Fatalf("spare entry %+v holds an evicted key or value", m.spare)
	}
}

func ExampleMap() {
	var m Map[string, []byte]
	m.Init(8, func(k string, v []byte) { fmt.Printf("%s leaves (%d bytes)\n", k, len(v)) })
	m.Add("a", make([]byte, 4), 4)
	m.Add("b", make([]byte, 4), 4)
	m.Get("a")
	m.Add("c", make([]byte, 2), 2)
	fmt.Println(m.Len(), m.Weight())
	// Output:
	// b leaves (4 bytes)
	// 2 6
}
