package bti

import (
	"context"
	"encoding/binary"

	"github.com/sstable-flight/sstable-flight/sstable/internal/base"
	"github.com/sstable-flight/sstable-flight/token"
)

// PartitionIndex is an opened Partitions.db. It is safe for concurrent
// use (its page cache is a region's).
type PartitionIndex struct {
	trie *region // [0, first key position): the trie nodes
	f    footer
}

// OpenPartitionIndex reads the footer of Partitions.db: the root, the key
// count and the first and last partition keys. The trie is read lazily,
// by lookups that each wait for the file no longer than their context.
func OpenPartitionIndex(r base.Readable) (*PartitionIndex, error) {
	f, err := readFooter(context.Background(), newRegion(r, partitionsComponent, r.Size()))
	if err != nil {
		return nil, err
	}
	return &PartitionIndex{trie: newRegion(r, partitionsComponent, f.firstKeyPos), f: f}, nil
}

// KeyCount is the number of partitions, as the footer states it.
func (p *PartitionIndex) KeyCount() int64 { return p.f.keyCount }

// FirstKey and LastKey are the serialized partition keys of the SSTable's
// first and last partitions (in token order).
func (p *PartitionIndex) FirstKey() []byte { return p.f.firstKey }
func (p *PartitionIndex) LastKey() []byte  { return p.f.lastKey }

// Payload is what the partition index maps a key prefix to.
type Payload struct {
	// Pos is the raw stored position: >= 0 is an entry in Rows.db, < 0
	// is ^(partition start in Data.db).
	Pos int64
	// Hash is the low byte of the second 64-bit half of the key's
	// MurmurHash3 x64_128 (Cassandra's filterHashLowerBits), when HasHash.
	// It lets a lookup reject most wrong candidates without reading the key.
	Hash    byte
	HasHash bool
}

// InRows reports whether the partition has a Rows.db entry (at RowsPos).
func (pl Payload) InRows() bool { return pl.Pos >= 0 }

// RowsPos is the partition's entry in Rows.db; valid when InRows.
func (pl Payload) RowsPos() int64 { return pl.Pos }

// DataPos is the partition's start in the uncompressed Data.db; valid when
// !InRows (otherwise the Rows.db entry holds it).
func (pl Payload) DataPos() int64 { return ^pl.Pos }

// payloadAt decodes the payload of nd (PartitionIndex.getIndexPos).
func (p *PartitionIndex) payloadAt(ctx context.Context, nd *node) (Payload, error) {
	bits := nd.flags
	var pl Payload
	n := bits
	if bits >= 8 {
		pl.HasHash = true
		n = bits - 7
	}
	size := n
	if pl.HasHash {
		size++
	}
	b, err := p.trie.read(ctx, nd.ppos, size, "partition index payload")
	if err != nil {
		return pl, err
	}
	if pl.HasHash {
		pl.Hash, b = b[0], b[1:]
	}
	pl.Pos = beInt(b, n)
	return pl, nil
}

// Lookup returns the candidate payload for the byte-comparable decorated
// key (see DecoratedKey): the entry whose stored unique prefix the key
// follows. found is false when no stored prefix matches. A candidate may
// still be another partition; callers must compare the key stored at the
// position (and may first compare Hash). Its reads wait no longer than
// ctx.
func (p *PartitionIndex) Lookup(ctx context.Context, key []byte) (pl Payload, found bool, err error) {
	pl, _, found, err = p.LookupPrefix(ctx, key)
	return pl, found, err
}

// LookupPrefix is Lookup that also returns how many bytes of key the
// matched entry's stored prefix covers: the partition at the payload must
// share that prefix with key (whether or not it is key), which lets a
// caller tell a damaged trie from an absent key.
func (p *PartitionIndex) LookupPrefix(ctx context.Context, key []byte) (pl Payload, n int, found bool, err error) {
	g := p.trie
	nd, err := readNode(ctx, g, p.f.root)
	if err != nil {
		return pl, 0, false, err
	}
	c := endOfKey
	depth := 0
	for ; ; depth++ {
		c = endOfKey
		if depth < len(key) {
			c = int(key[depth])
		}
		ci := nd.search(c)
		if ci < 0 {
			break
		}
		pos, _, err := nd.child(g, ci)
		if err != nil {
			return pl, 0, false, err
		}
		if nd, err = readNode(ctx, g, pos); err != nil {
			return pl, 0, false, err
		}
	}
	// Stopping short of the key's end is a match only at a leaf: an inner
	// node's prefix is shared by several keys and so stands for none.
	if (c != endOfKey && nd.n > 0) || nd.flags == 0 {
		return pl, 0, false, nil
	}
	pl, err = p.payloadAt(ctx, &nd)
	return pl, min(depth, len(key)), err == nil, err
}

// Iterator lists partition payloads in key (token) order.
//
//	it := idx.Iter(ctx)
//	for it.Next() { use(it.Payload()) }
//	if err := it.Err(); err != nil { ... }
type Iterator struct {
	p     *PartitionIndex
	w     *walk
	pl    Payload
	count int64
	full  bool // a whole-trie walk, whose count must match the footer
	err   error
}

// Iter lists every partition. At the end it checks that the count matches
// the footer's key count. Its reads wait no longer than ctx.
func (p *PartitionIndex) Iter(ctx context.Context) *Iterator {
	return &Iterator{p: p, w: newWalk(ctx, p.trie, p.f.root), full: true}
}

// Ceiling lists partitions from the first one whose key may be >= key
// (a byte-comparable decorated key or a prefix of one, e.g. 0x40 and a
// token's 8 bytes for a token bound). Since only prefixes are stored, the
// first payload may stand for a key below the bound: callers check the
// real key and skip it. Its reads wait no longer than ctx.
func (p *PartitionIndex) Ceiling(ctx context.Context, key []byte) *Iterator {
	return &Iterator{p: p, w: newWalkFrom(ctx, p.trie, p.f.root, key)}
}

// Next advances to the next partition.
func (it *Iterator) Next() bool {
	if it.err != nil {
		return false
	}
	if !it.w.next() {
		it.err = it.w.err
		if it.err == nil && it.full && it.count != it.p.f.keyCount {
			it.err = it.p.trie.corrupt(it.p.f.root, "iterate partition index: %d entries, footer says %d", it.count, it.p.f.keyCount)
		}
		return false
	}
	it.count++
	if it.count > it.p.f.keyCount {
		it.err = it.p.trie.corrupt(it.w.cur.pos, "iterate partition index: more entries than the footer's %d", it.p.f.keyCount)
		return false
	}
	it.pl, it.err = it.p.payloadAt(it.w.ctx, &it.w.cur)
	return it.err == nil
}

// Payload is the current partition's payload.
func (it *Iterator) Payload() Payload { return it.pl }

// Prefix is the stored unique prefix of the current partition's
// byte-comparable key. It is valid until the next call to Next.
func (it *Iterator) Prefix() []byte { return it.w.curPath }

// Err is the error that ended the iteration, if any.
func (it *Iterator) Err() error { return it.err }

// DecoratedKey appends to dst the byte-comparable form of a Murmur3
// decorated key, as the partition index sorts and stores it
// (DecoratedKey.asComparableBytes, ByteComparable version OSS50):
// 0x40, the token with its sign bit flipped (8 bytes, big-endian), 0x40,
// the key bytes with each run of k zero bytes written as 00 FE^(k-1) FF
// (00 FE^k when the run ends the key), an 0x00 escape unless the key ended
// in zeros, and the 0x38 terminator.
func DecoratedKey(dst []byte, t token.Token, key []byte) []byte {
	dst = append(dst, 0x40)
	dst = binary.BigEndian.AppendUint64(dst, uint64(t)^(1<<63))
	dst = append(dst, 0x40)
	zeros := false // inside a run of zeros, after its first 00
	for _, b := range key {
		switch {
		case b != 0 && zeros:
			dst = append(dst, 0xff, b)
			zeros = false
		case b == 0 && zeros:
			dst = append(dst, 0xfe)
		default:
			dst = append(dst, b)
			zeros = b == 0
		}
	}
	if zeros {
		// A trailing zero run ends in FE, which also serves as the end
		// of the component (the FE is above every separator).
		return append(dst, 0xfe, 0x38)
	}
	return append(dst, 0x00, 0x38)
}
