package sstable

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/sstable-flight/sstable-flight/sstable/big"
	"github.com/sstable-flight/sstable-flight/sstable/bti"
	"github.com/sstable-flight/sstable-flight/sstable/internal/base"
	"github.com/sstable-flight/sstable-flight/token"
)

// indexes are what Open loads to find partitions without scanning:
// Summary.db and Filter.db (BIG) are parsed, Index.db opened unread; for
// BTI only Partitions.db's footer is read. Opening thus costs O(summary).
type indexes struct {
	summary *big.Summary
	filter  *big.Filter
	index   base.Readable // Index.db
	parts   *bti.PartitionIndex
	rows    *bti.RowIndex
}

func (r *Reader) openIndexes() error {
	open := func(component string) (base.Readable, error) {
		f, c, err := r.open(component)
		if err != nil {
			return nil, err
		}
		r.closers = append(r.closers, c)
		return f, nil
	}
	var err error
	if r.Version.BTI {
		if r.has("Partitions.db") {
			f, err := open("Partitions.db")
			if err != nil {
				return err
			}
			if r.idx.parts, err = bti.OpenPartitionIndex(f); err != nil {
				return err
			}
		}
		if r.has("Rows.db") {
			f, err := open("Rows.db")
			if err != nil {
				return err
			}
			r.idx.rows = bti.OpenRowIndex(f)
		}
	} else {
		if r.has("Summary.db") && r.has("Index.db") {
			b, err := r.holdComponent("Summary.db")
			if err != nil {
				return err
			}
			if r.idx.summary, err = big.ParseSummary(b, r.path("Summary.db")); err != nil {
				return err
			}
			if r.idx.index, err = open("Index.db"); err != nil {
				return err
			}
		}
	}
	if r.has("Filter.db") {
		b, err := r.holdComponent("Filter.db")
		if err != nil {
			return err
		}
		if r.Version.OldBloomFilter {
			r.idx.filter, err = big.ParseOldFilter(b, r.path("Filter.db"))
		} else {
			r.idx.filter, err = big.ParseFilter(b, r.path("Filter.db"))
		}
		if err != nil {
			return err
		}
	}
	return err
}

// check is what the index claims about the partition at a position it
// returned: its exact key (Index.db, Rows.db) or a prefix of its
// byte-comparable decorated key (the partition trie). The scanner checks
// the claim against the partition header it reads, so a damaged index
// fails as corruption instead of silently returning other partitions.
type check struct {
	key       []byte
	prefix    []byte
	component string
}

func (c check) verify(r *Reader, at int64, key []byte) error {
	switch {
	case c.key != nil && !bytes.Equal(c.key, key):
		return base.Corruptf(r.path(c.component), c.component, 0, "index entry for key %x points to Data.db offset %d, which holds key %x", c.key, at, key)
	case c.prefix != nil && !bytes.HasPrefix(bti.DecoratedKey(nil, token.Of(key), key), c.prefix):
		return base.Corruptf(r.path(c.component), c.component, 0, "trie entry %x points to Data.db offset %d, whose key %x does not follow it", c.prefix, at, key)
	}
	return nil
}

// pastEnd is the error for a claim whose position is at or past the end
// of Data.db's data, where no partition can start.
func (c check) pastEnd(r *Reader, at int64) error {
	what, b := "key", c.key
	if c.key == nil {
		what, b = "trie entry", c.prefix
	}
	return base.Corruptf(r.path(c.component), c.component, 0, "index entry for %s %x points to Data.db offset %d, at or past the end of its %d bytes of data", what, b, at, r.data.DataLength())
}

// firstAfter returns the Data.db position of the first partition whose
// token is > after, or a position at or before it (callers skip
// partitions at or below the bound); DataLength when there is none.
func (r *Reader) firstAfter(ctx context.Context, after token.Token) (int64, check, error) {
	if after == token.Max {
		return r.data.DataLength(), check{}, nil
	}
	switch {
	case r.idx.parts != nil:
		// Stored trie entries are unique prefixes, so the ceiling's first
		// entry may stand for a key below the bound: the scanner checks.
		bound := bti.DecoratedKey(nil, after+1, nil)[:9]
		it := r.idx.parts.Ceiling(ctx, bound)
		if !it.Next() {
			if err := it.Err(); err != nil {
				return 0, check{}, err
			}
			return r.data.DataLength(), check{}, nil
		}
		pos, c, err := r.dataPos(ctx, it.Payload())
		if c.key == nil {
			c = check{prefix: append([]byte(nil), it.Prefix()...), component: "Partitions.db"}
		}
		return pos, c, err
	case r.idx.summary != nil:
		i := r.idx.summary.Search(func(k []byte) int {
			if token.Of(k) <= after {
				return -1
			}
			return 1
		})
		it, err := r.indexFrom(ctx, i)
		if err != nil {
			return 0, check{}, err
		}
		defer it.release()
		var prev entryRef
		for it.Next() {
			e := it.Entry()
			if token.Of(e.Key) > after {
				// The entry before the start must be intact too, or a
				// damaged one could make the range start late.
				return e.DataPosition, check{key: append([]byte(nil), e.Key...), component: "Index.db"}, r.verifyEntry(ctx, prev)
			}
			prev = entryRef{append(prev.key[:0], e.Key...), e.DataPosition, true}
		}
		if err := it.Err(); err != nil {
			return 0, check{}, err
		}
		return r.data.DataLength(), check{}, r.verifyLast(ctx, prev)
	}
	return 0, check{}, nil // no index: scan from the start, filtering by token
}

// indexFrom reads Index.db from summary entry i (the start for i < 0),
// checking that the entry there has the summary's key: a damaged summary
// must not silently start a read past the partitions it should cover.
// NB: a mismatch is reported in Index.db, at the offset that lacks the
// key, naming the Summary.db entry too: either file may be the damaged
// one, and Index.db is the one read at a known offset (a truncated or
// overwritten Index.db is what makes a summary that was read whole at
// open disagree later).
func (r *Reader) indexFrom(ctx context.Context, i int) (*indexIter, error) {
	start := int64(0)
	if i >= 0 {
		start = r.idx.summary.IndexPosition(i)
	}
	buf, _ := indexBufs.Get().(*[]byte)
	if buf == nil {
		buf = new([]byte)
	}
	it := &indexIter{IndexReader: big.NewIndexReader(ctx, r.idx.index, start, big.IndexOptions{UIntDeletionTime: r.Version.UIntDeletionTime, Promoted: big.PromotedSkip, ReadSize: 4 << 10, Buf: *buf}), buf: buf}
	if i < 0 {
		return it, nil
	}
	if !it.IndexReader.Next() {
		if err := it.Err(); err != nil {
			return nil, err
		}
		return nil, base.Corruptf(r.path("Index.db"), "Index.db", start, "ends before offset %d, where %s entry %d points", start, r.path("Summary.db"), i)
	}
	if want := r.idx.summary.Key(i); !bytes.Equal(it.Entry().Key, want) {
		return nil, base.Corruptf(r.path("Index.db"), "Index.db", start, "holds key %x, where %s entry %d points for key %x", it.Entry().Key, r.path("Summary.db"), i, want)
	}
	it.pending = true
	return it, nil
}

// indexIter is an Index.db reader whose first entry may already have been
// read (to check it) and is then returned by the first Next.
type indexIter struct {
	*big.IndexReader
	pending bool
	buf     *[]byte // from indexBufs
}

// indexBufs recycles point lookups' Index.db read buffers: one per
// lookup was half of a lookup's allocated bytes.
var indexBufs sync.Pool

// release returns the buffer; the iterator and its entries are dead.
func (it *indexIter) release() {
	if it.buf != nil {
		*it.buf = it.IndexReader.Buffer()
		indexBufs.Put(it.buf)
		it.buf = nil
	}
}

func (it *indexIter) Next() bool {
	if it.pending {
		it.pending = false
		return true
	}
	return it.IndexReader.Next()
}

// dataPos resolves a trie payload to a Data.db position; a Rows.db entry
// also names its partition's key, which becomes the check.
func (r *Reader) dataPos(ctx context.Context, pl bti.Payload) (int64, check, error) {
	if !pl.InRows() {
		return pl.DataPos(), check{}, nil
	}
	if r.idx.rows == nil {
		return 0, check{}, base.Corruptf(r.path("Partitions.db"), "Partitions.db", 0, "payload points into Rows.db, which the TOC does not list")
	}
	e, err := r.idx.rows.Entry(ctx, pl.RowsPos())
	if err != nil {
		return 0, check{}, err
	}
	return e.DataPos, check{key: append([]byte(nil), e.Key...), component: "Rows.db"}, nil
}

// locate returns the Data.db position of the partition with this key and
// the index's claim about it, or false when the SSTable does not hold it:
// bloom filter, then the summary and Index.db (BIG) or the trie (BTI).
func (r *Reader) locate(ctx context.Context, key []byte) (int64, check, bool, error) {
	if r.idx.filter != nil && !r.idx.filter.MayContain(key) {
		return 0, check{}, false, nil
	}
	tok := token.Of(key)
	switch {
	case r.idx.parts != nil:
		dk := bti.DecoratedKey(nil, tok, key)
		pl, n, found, err := r.idx.parts.LookupPrefix(ctx, dk)
		if err != nil || !found {
			return 0, check{}, false, err
		}
		pos, c, err := r.dataPos(ctx, pl)
		if c.key == nil {
			// NB: the trie stores unique prefixes, so the partition there
			// may be another one that shares the prefix (the key is then
			// absent); one that does not share it means damage.
			c = check{prefix: dk[:n], component: "Partitions.db"}
		}
		return pos, c, err == nil, err
	case r.idx.summary != nil:
		if r.keys != nil {
			if e, ok := r.keys.get(r.id, tok, key); ok {
				return e.pos, check{key: e.key, component: "Index.db"}, true, nil
			}
		}
		floor := r.idx.summary.Floor(key)
		if pos, c, ok, err := r.findInInterval(ctx, floor, key); ok || err != nil {
			if ok && err == nil && r.keys != nil {
				// c.key is a copy of the key nobody writes to.
				r.keys.put(r.id, tok, c.key, pos)
			}
			return pos, c, ok, err
		}
		// Not in its summary interval: absent (a bloom filter false
		// positive). Scan again in order, to check the entries around
		// the place the key would have.
		it, err := r.indexFrom(ctx, floor)
		if err != nil {
			return 0, check{}, false, err
		}
		defer it.release()
		var prev entryRef
		for it.Next() {
			e := it.Entry()
			c := token.CompareDecorated(tok, key, token.Of(e.Key), e.Key)
			if c == 0 {
				return e.DataPosition, check{key: append([]byte(nil), e.Key...), component: "Index.db"}, true, nil
			}
			if c < 0 {
				// Absent, says Index.db: the entries on either side of the
				// key must be what Data.db holds, or a damaged entry may
				// be hiding it.
				return 0, check{}, false, errors.Join(r.verifyEntry(ctx, prev), r.verifyEntry(ctx, entryRef{append([]byte(nil), e.Key...), e.DataPosition, true}))
			}
			prev = entryRef{append(prev.key[:0], e.Key...), e.DataPosition, true}
		}
		if err := it.Err(); err != nil {
			return 0, check{}, false, err
		}
		return 0, check{}, false, r.verifyLast(ctx, prev)
	}
	return 0, check{}, false, fmt.Errorf("look up a key in %s: no partition index", r.dataPath)
}

// findInInterval looks for key among the Index.db entries of summary
// interval i (from its entry to the next one's) by bytes alone: equal
// keys are the same partition, so a key that is there is found without
// the Murmur3 hash of every entry before it that an ordered scan needs
// (3.4% of the server's CPU under point reads).
func (r *Reader) findInInterval(ctx context.Context, i int, key []byte) (int64, check, bool, error) {
	s := r.idx.summary
	end := r.idx.index.Size()
	if i+1 < s.Len() {
		end = s.IndexPosition(i + 1)
	}
	it, err := r.indexFrom(ctx, i)
	if err != nil {
		return 0, check{}, false, err
	}
	defer it.release()
	for it.Next() {
		e := it.Entry()
		if bytes.Equal(e.Key, key) {
			return e.DataPosition, check{key: append([]byte(nil), e.Key...), component: "Index.db"}, true, nil
		}
		if it.Pos() >= end { // the next entry is the next interval's
			break
		}
	}
	return 0, check{}, false, it.Err()
}

// entryRef is an Index.db entry kept for verification.
type entryRef struct {
	key []byte
	pos int64
	ok  bool
}

// verifyEntry checks that Data.db holds the entry's key at its position.
func (r *Reader) verifyEntry(ctx context.Context, e entryRef) error {
	if !e.ok {
		return nil
	}
	var s Scanner
	s.r, s.dc = r, decoder{schema: r.Schema, header: &r.Stats.Header, version: r.Version}
	s.st.ctx = ctx
	s.st.resetPoint(r.data, r.dataPath, e.pos, 512)
	s.verify = &check{key: e.key, component: "Index.db"}
	if !s.NextPartition() {
		if s.err != nil {
			return s.err
		}
		return base.Corruptf(r.path("Index.db"), "Index.db", 0, "entry for key %x points to Data.db offset %d, past the data", e.key, e.pos)
	}
	return nil
}

// verifyLast checks, when a search ran off the end of Index.db, that the
// last entry read is the SSTable's last key (as Summary.db records it): a
// truncated Index.db must not pass for one without the key.
func (r *Reader) verifyLast(ctx context.Context, last entryRef) error {
	if !last.ok {
		return nil
	}
	if want := r.idx.summary.LastKey(); !bytes.Equal(last.key, want) {
		return base.Corruptf(r.path("Index.db"), "Index.db", 0, "ends at key %x, but the SSTable's last key is %x", last.key, want)
	}
	return r.verifyEntry(ctx, last)
}
