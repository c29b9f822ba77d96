package reconcile

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
)

// Counter contexts (db/context/CounterContext): a header (int16 count of
// global and local shard indexes, then those int16 indexes, global ones
// stored as index + math.MinInt16) and a body of shards, each a 16-byte
// counter id, an int64 logical clock and an int64 count, sorted by id.
//
// Merging contexts keeps, per counter id: global over anything, the
// higher clock between two globals (on equal clocks the higher count),
// the sum between two locals, local over remote, and between remotes the
// higher clock. The value CQL returns is the sum of the merged counts.

const (
	counterIDLen = 16
	shardLen     = counterIDLen + 8 + 8
)

type shardKind uint8

const (
	shardRemote shardKind = iota
	shardLocal
	shardGlobal
)

type shard struct {
	id           []byte
	clock, count int64
	kind         shardKind
}

// parseContext appends the context's shards to out.
func parseContext(out []shard, ctx []byte) ([]shard, error) {
	if len(ctx) < 2 {
		return out, fmt.Errorf("counter context of %d bytes", len(ctx))
	}
	n := int(int16(binary.BigEndian.Uint16(ctx)))
	if n < 0 {
		n = -n
	}
	hdr := 2 + 2*n
	if hdr > len(ctx) || (len(ctx)-hdr)%shardLen != 0 {
		return out, fmt.Errorf("counter context of %d bytes with %d header entries", len(ctx), n)
	}
	body := ctx[hdr:]
	for i := 0; len(body) > 0; i++ {
		out = append(out, shard{
			id:    body[:counterIDLen],
			clock: int64(binary.BigEndian.Uint64(body[counterIDLen:])),
			count: int64(binary.BigEndian.Uint64(body[counterIDLen+8:])),
			kind:  kindOf(ctx[2:hdr], i),
		})
		body = body[shardLen:]
	}
	return out, nil
}

// kindOf finds shard i in the header's index list: global indexes are
// stored as i + math.MinInt16, local ones as i; absent means remote.
func kindOf(header []byte, i int) shardKind {
	for h := 0; h+1 < len(header); h += 2 {
		switch int(int16(binary.BigEndian.Uint16(header[h:]))) {
		case i + math.MinInt16:
			return shardGlobal
		case i:
			return shardLocal
		}
	}
	return shardRemote
}

// mergeShard is CounterContext.compare plus the merge of two shards of
// one counter id.
func mergeShard(l, r shard) shard {
	switch {
	case l.kind == shardGlobal || r.kind == shardGlobal:
		if l.kind != r.kind {
			if l.kind == shardGlobal {
				return l
			}
			return r
		}
		if l.clock != r.clock {
			if l.clock > r.clock {
				return l
			}
			return r
		}
		if l.count >= r.count {
			return l
		}
		return r
	case l.kind == shardLocal || r.kind == shardLocal:
		if l.kind == r.kind {
			return shard{id: l.id, clock: l.clock + r.clock, count: l.count + r.count, kind: shardLocal}
		}
		if l.kind == shardLocal {
			return l
		}
		return r
	}
	if l.clock == r.clock {
		if l.count >= r.count {
			return l
		}
		return r
	}
	if (l.clock >= 0 && r.clock > 0 && l.clock >= r.clock) || (l.clock < 0 && (r.clock > 0 || l.clock < r.clock)) {
		return l
	}
	return r
}

// counterTotal merges the contexts of one counter cell's versions and
// returns the total count. scratch is reused between calls.
func counterTotal(scratch []shard, contexts [][]byte) (int64, []shard, error) {
	shards := scratch[:0]
	var err error
	for _, c := range contexts {
		if shards, err = parseContext(shards, c); err != nil {
			return 0, shards, err
		}
	}
	// Few shards per cell: a quadratic merge by id allocates nothing.
	var total int64
	for i := range shards {
		if shards[i].id == nil {
			continue
		}
		m := shards[i]
		for j := i + 1; j < len(shards); j++ {
			if shards[j].id != nil && bytes.Equal(shards[j].id, m.id) {
				m = mergeShard(m, shards[j])
				shards[j].id = nil
			}
		}
		total += m.count
	}
	return total, shards, nil
}
