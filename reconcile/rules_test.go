package reconcile

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/sstable-flight/sstable-flight/sstable"
)

func live(ts int64, v string) *sstable.Cell {
	return &sstable.Cell{Timestamp: ts, Value: []byte(v)}
}

func expiring(ts, ldt int64, v string) *sstable.Cell {
	return &sstable.Cell{Timestamp: ts, Flags: 0x02, TTL: 10, LocalDeletionTime: ldt, Value: []byte(v)}
}

func tombstone(ts, ldt int64) *sstable.Cell {
	return &sstable.Cell{Timestamp: ts, Flags: 0x01, LocalDeletionTime: ldt}
}

// Cells.resolveRegular, each branch, both argument orders (it is
// commutative).
func TestResolveRegular(t *testing.T) {
	cases := []struct {
		rule string
		a, b *sstable.Cell
		want string // which wins: "a" or "b"
	}{
		{"later timestamp wins", live(2, "x"), live(1, "z"), "a"},
		{"later timestamp wins over a tombstone", live(2, "x"), tombstone(1, 100), "a"},
		{"tie: a tombstone beats a live cell", tombstone(5, 100), live(5, "zzz"), "a"},
		{"tie: an expiring cell beats a plain live cell (CASSANDRA-14592)", expiring(5, 100, "a"), live(5, "zzz"), "a"},
		{"tie: a tombstone beats an expiring cell", tombstone(5, 50), expiring(5, 100, "zzz"), "a"},
		{"tie between expiring cells: later local deletion time", expiring(5, 200, "a"), expiring(5, 100, "zzz"), "a"},
		{"tie between tombstones: later local deletion time", tombstone(5, 200), tombstone(5, 100), "a"},
		{"tie between plain cells: greater value (unsigned bytes)", live(5, "\xff"), live(5, "\x7f\xff"), "a"},
		{"tie between equal expiring cells: greater value", expiring(5, 100, "b"), expiring(5, 100, "a"), "a"},
	}
	for _, c := range cases {
		t.Run(c.rule, func(t *testing.T) {
			w := c.a
			if c.want == "b" {
				w = c.b
			}
			if got := resolveRegular(c.a, c.b); got != w {
				t.Errorf("%s: resolve(a, b) picked the wrong cell", c.rule)
			}
			if got := resolveRegular(c.b, c.a); got != w {
				t.Errorf("%s: resolve(b, a) picked the wrong cell", c.rule)
			}
		})
	}
}

// DeletionTime.supersedes and deletes: a later mark wins, then a later
// local deletion time; a deletion shadows writes at or before its mark.
func TestDeletionRules(t *testing.T) {
	a := sstable.DeletionTime{MarkedForDeleteAt: 10, LocalDeletionTime: 1}
	b := sstable.DeletionTime{MarkedForDeleteAt: 9, LocalDeletionTime: 99}
	c := sstable.DeletionTime{MarkedForDeleteAt: 10, LocalDeletionTime: 2}
	if !supersedes(a, b) || supersedes(b, a) || !supersedes(c, a) {
		t.Error("DeletionTime.supersedes: mark first, then local deletion time")
	}
	if maxDeletion(sstable.LiveDeletion, a) != a || maxDeletion(a, sstable.LiveDeletion) != a {
		t.Error("any deletion supersedes LIVE")
	}
	if !deletes(a, 10) || !deletes(a, 9) || deletes(a, 11) {
		t.Error("DeletionTime.deletes: a deletion wins a tie with a write")
	}
	if deletes(sstable.LiveDeletion, math.MinInt64+1) {
		t.Error("LIVE deletes nothing")
	}
}

// LivenessInfo.supersedes and isLive.
func TestLivenessRules(t *testing.T) {
	plain := sstable.LivenessInfo{Timestamp: 5}
	exp := sstable.LivenessInfo{Timestamp: 5, TTL: 10, LocalExpirationTime: 100}
	later := sstable.LivenessInfo{Timestamp: 6}
	if !livenessSupersedes(later, exp) || !livenessSupersedes(exp, plain) || livenessSupersedes(plain, exp) {
		t.Error("LivenessInfo.supersedes: timestamp, then expiring over plain")
	}
	if !livenessSupersedes(plain, sstable.LivenessInfo{Timestamp: sstable.NoTimestamp}) {
		t.Error("any liveness supersedes none")
	}
	if !livenessLive(exp, 99) || livenessLive(exp, 100) {
		t.Error("LivenessInfo.isLive: expiring info dies when now reaches its expiration")
	}
	if livenessLive(sstable.LivenessInfo{Timestamp: sstable.NoTimestamp}, 0) {
		t.Error("an empty liveness info is not live (UPDATE-only rows)")
	}
	c := expiring(1, 100, "v")
	if !cellLive(c, 99) || cellLive(c, 100) || cellLive(tombstone(1, 100), 0) {
		t.Error("Cell.isLive: expiring cells die at their local deletion time; tombstones never live")
	}
}

func counterContext(shards ...shard) []byte {
	var hdr []byte
	n := 0
	for i, s := range shards {
		switch s.kind {
		case shardGlobal:
			hdr = binary.BigEndian.AppendUint16(hdr, uint16(int16(i+math.MinInt16)))
			n++
		case shardLocal:
			hdr = binary.BigEndian.AppendUint16(hdr, uint16(i))
			n++
		}
	}
	b := binary.BigEndian.AppendUint16(nil, uint16(n))
	b = append(b, hdr...)
	for _, s := range shards {
		b = append(b, s.id...)
		b = binary.BigEndian.AppendUint64(b, uint64(s.clock))
		b = binary.BigEndian.AppendUint64(b, uint64(s.count))
	}
	return b
}

// CounterContext.merge and total.
func TestCounterMerge(t *testing.T) {
	id1, id2 := make([]byte, 16), make([]byte, 16)
	id1[15], id2[15] = 1, 2
	g := func(id []byte, clock, count int64) shard {
		return shard{id: id, clock: clock, count: count, kind: shardGlobal}
	}
	l := func(id []byte, clock, count int64) shard {
		return shard{id: id, clock: clock, count: count, kind: shardLocal}
	}
	r := func(id []byte, clock, count int64) shard {
		return shard{id: id, clock: clock, count: count, kind: shardRemote}
	}
	for _, tc := range []struct {
		rule string
		ctxs [][]byte
		want int64
	}{
		{"global + global: the higher clock", [][]byte{counterContext(g(id1, 3, 10)), counterContext(g(id1, 5, 7))}, 7},
		{"global + global, equal clocks: the higher count", [][]byte{counterContext(g(id1, 5, 10)), counterContext(g(id1, 5, 7))}, 10},
		{"different ids add up", [][]byte{counterContext(g(id1, 1, 10)), counterContext(g(id2, 1, 5))}, 15},
		{"global beats local", [][]byte{counterContext(l(id1, 9, 100)), counterContext(g(id1, 1, 1))}, 1},
		{"local + local: summed", [][]byte{counterContext(l(id1, 1, 4)), counterContext(l(id1, 2, 6))}, 10},
		{"local beats remote", [][]byte{counterContext(r(id1, 9, 100)), counterContext(l(id1, 1, 2))}, 2},
		{"remote + remote: the higher clock", [][]byte{counterContext(r(id1, 2, 100)), counterContext(r(id1, 3, 1))}, 1},
		{"one context, several shards", [][]byte{counterContext(g(id1, 1, 10), g(id2, 1, -3))}, 7},
	} {
		t.Run(tc.rule, func(t *testing.T) {
			got, _, err := counterTotal(nil, tc.ctxs)
			if err != nil || got != tc.want {
				t.Errorf("%s: total %d (%v), want %d", tc.rule, got, err, tc.want)
			}
		})
	}
	if _, _, err := counterTotal(nil, [][]byte{{0, 1, 0x80}}); err == nil {
		t.Error("a truncated context must be an error")
	}
}
