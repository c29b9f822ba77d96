package sstable

import (
	"bytes"
	"fmt"
	"math"

	"github.com/sstable-flight/sstable-flight/sstable/big"
	"github.com/sstable-flight/sstable-flight/sstable/bti"
	"github.com/sstable-flight/sstable-flight/sstable/internal/base"
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
		f, c, err := base.OpenFile(r.path(component))
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
			b, err := r.readSmall("Summary.db")
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
		b, err := r.readSmall("Filter.db")
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

// firstAfter returns the Data.db position of the first partition whose
// token is > after, or a position at or before it (callers skip
// partitions at or below the bound); DataLength when there is none.
func (r *Reader) firstAfter(after int64) (int64, error) {
	if after == math.MaxInt64 {
		return r.data.DataLength(), nil
	}
	switch {
	case r.idx.parts != nil:
		// Stored trie entries are unique prefixes, so the ceiling's first
		// entry may stand for a key below the bound: the scanner checks.
		bound := bti.DecoratedKey(nil, after+1, nil)[:9]
		it := r.idx.parts.Ceiling(bound)
		if !it.Next() {
			if err := it.Err(); err != nil {
				return 0, err
			}
			return r.data.DataLength(), nil
		}
		return r.dataPos(it.Payload())
	case r.idx.summary != nil:
		i := r.idx.summary.Search(func(k []byte) int {
			if big.Token(k) <= after {
				return -1
			}
			return 1
		})
		start := int64(0)
		if i >= 0 {
			start = r.idx.summary.IndexPosition(i)
		}
		it := big.NewIndexReader(r.idx.index, start, big.IndexOptions{UIntDeletionTime: r.Version.UIntDeletionTime, Promoted: big.PromotedSkip})
		for it.Next() {
			if e := it.Entry(); big.Token(e.Key) > after {
				return e.DataPosition, nil
			}
		}
		if err := it.Err(); err != nil {
			return 0, err
		}
		return r.data.DataLength(), nil
	}
	return 0, nil // no index: scan from the start, filtering by token
}

func (r *Reader) dataPos(pl bti.Payload) (int64, error) {
	if !pl.InRows() {
		return pl.DataPos(), nil
	}
	if r.idx.rows == nil {
		return 0, base.Corruptf(r.path("Partitions.db"), "Partitions.db", 0, "payload points into Rows.db, which the TOC does not list")
	}
	e, err := r.idx.rows.Entry(pl.RowsPos())
	if err != nil {
		return 0, err
	}
	return e.DataPos, nil
}

// locate returns the Data.db position of the partition with this key, or
// false when the SSTable does not hold it: bloom filter, then the summary
// and Index.db (BIG) or the partition trie (BTI).
func (r *Reader) locate(key []byte) (int64, bool, error) {
	if r.idx.filter != nil && !r.idx.filter.MayContain(key) {
		return 0, false, nil
	}
	tok := Murmur3Token(key)
	switch {
	case r.idx.parts != nil:
		pl, found, err := r.idx.parts.Lookup(bti.DecoratedKey(nil, tok, key))
		if err != nil || !found {
			return 0, false, err
		}
		pos, err := r.dataPos(pl)
		return pos, err == nil, err
	case r.idx.summary != nil:
		it := big.NewIndexReader(r.idx.index, r.idx.summary.ScanPosition(key), big.IndexOptions{UIntDeletionTime: r.Version.UIntDeletionTime, Promoted: big.PromotedSkip, ReadSize: 4 << 10})
		for it.Next() {
			e := it.Entry()
			c := compareDecorated(tok, key, big.Token(e.Key), e.Key)
			if c == 0 {
				return e.DataPosition, true, nil
			}
			if c < 0 {
				return 0, false, nil
			}
		}
		return 0, false, it.Err()
	}
	return 0, false, fmt.Errorf("look up a key in %s: no partition index", r.dataPath)
}

// compareDecorated orders keys as Cassandra does: by token, then bytes.
func compareDecorated(ta int64, a []byte, tb int64, b []byte) int {
	switch {
	case ta < tb:
		return -1
	case ta > tb:
		return 1
	}
	return bytes.Compare(a, b)
}
