package flightserver

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sstable-flight/sstable-flight/flightserver/request"
	"github.com/sstable-flight/sstable-flight/flightserver/tables"
)

// TestQueryPinsCapAndTTL: an id's pin keeps its first plan's read time
// for later plans; past the cap the oldest pin is dropped (and counted),
// past the TTL from its first plan a pin is gone, so the id pins anew at
// the time of its next plan, never earlier; a table's first epoch wins
// over a later one.
func TestQueryPinsCapAndTTL(t *testing.T) {
	t0 := time.Unix(1_800_000_000, 0)
	q := newQueryPins(3, time.Minute)
	a := q.pin("a", t0)
	if a.now != t0.Unix() {
		t.Fatalf("first plan of a: read time %d, want %d", a.now, t0.Unix())
	}
	if got := q.pin("a", t0.Add(30*time.Second)); got != a || got.now != t0.Unix() {
		t.Fatalf("a 30s later: read time %d, want its first plan's %d", got.now, t0.Unix())
	}
	tbl := tables.Name{Keyspace: "ks", Table: "t"}
	if id := q.setEpoch(a, tbl, "e1"); id != "e1" {
		t.Fatalf("first epoch of ks.t: %q pinned, want e1", id)
	}
	if id := q.setEpoch(a, tbl, "e2"); id != "e1" {
		t.Fatalf("a later epoch of ks.t: %q pinned, want the first, e1", id)
	}
	if id, ok := q.epoch(a, tables.Name{Keyspace: "ks", Table: "u"}); ok {
		t.Fatalf("ks.u has epoch %q pinned, never planned", id)
	}

	// The cap: b, c, then d drops a, the oldest.
	q.pin("b", t0.Add(time.Second))
	q.pin("c", t0.Add(2*time.Second))
	q.pin("d", t0.Add(3*time.Second))
	if n, evicted := q.stats(); n != 3 || evicted != 1 {
		t.Fatalf("after 4 ids under a cap of 3: %d pins, %d evicted, want 3 and 1", n, evicted)
	}
	later := t0.Add(4 * time.Second)
	if a2 := q.pin("a", later); a2 == a || a2.now != later.Unix() {
		t.Fatalf("a after its eviction: read time %d, want a new pin at %d", a2.now, later.Unix())
	}
	if n, evicted := q.stats(); n != 3 || evicted != 2 {
		t.Fatalf("a pinned again: %d pins, %d evicted, want 3 and 2 (b dropped)", n, evicted)
	}

	// The TTL runs from the first plan: c (pinned at t0+2s) is gone a
	// minute later however it was used, and expired pins are not counted
	// as evicted.
	c := q.pin("c", t0.Add(59*time.Second))
	if c.now != t0.Add(2*time.Second).Unix() {
		t.Fatalf("c within its TTL: read time %d, want %d", c.now, t0.Add(2*time.Second).Unix())
	}
	end := t0.Add(2*time.Second + time.Minute)
	if c2 := q.pin("c", end); c2 == c || c2.now != end.Unix() {
		t.Fatalf("c a minute after its first plan: read time %d, want a new pin at %d", c2.now, end.Unix())
	}
	if n, evicted := q.stats(); n != 3 || evicted != 2 {
		t.Fatalf("after c's TTL: %d pins (d, a and the new c), %d evicted, want 3 and 2", n, evicted)
	}

	// Memory stays within the cap whatever the number of ids.
	for i := range 1000 {
		q.pin(request.QueryID(fmt.Sprint("q", i)), end)
	}
	if n, _ := q.stats(); n != 3 || len(q.byID) != 3 {
		t.Fatalf("1000 ids under a cap of 3: %d pins, %d in the index", n, len(q.byID))
	}
}

// TestQueryIDChecked: a query_id is 1 to 128 printable ASCII characters;
// anything else is refused, and the message does not quote it.
func TestQueryIDChecked(t *testing.T) {
	cmd := func(id string) []byte {
		return []byte(`{"version":1,"keyspace":"ks","table":"t","query_id":` + id + `}`)
	}
	for _, ok := range []string{`"a"`, `"20250101_120000_00001_abcde"`, `" ~!"`, `"` + strings.Repeat("x", request.MaxQueryIDLen) + `"`, `null`} {
		if _, err := request.ParseCommand(cmd(ok)); err != nil {
			t.Errorf("query_id %s refused: %v", ok, err)
		}
	}
	for _, bad := range []string{`""`, `"` + strings.Repeat("x", request.MaxQueryIDLen) + `x"`, `"a\nb"`, `"caf\u00e9"`, `"é"`, `7`, `["a"]`, `"\u0000"`} {
		_, err := request.ParseCommand(cmd(bad))
		if err == nil {
			t.Errorf("query_id %s accepted", bad)
			continue
		}
		if len(bad) > 6 && strings.Contains(err.Error(), bad[1:6]) {
			t.Errorf("query_id %s: the message quotes it: %v", bad, err)
		}
	}
}
