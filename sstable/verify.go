package sstable

import (
	"bytes"
	"context"
	"fmt"
	"hash/crc32"
	"io"
	"strconv"
	"strings"

	"github.com/sstable-flight/sstable-flight/sstable/big"
	"github.com/sstable-flight/sstable-flight/sstable/bti"
	"github.com/sstable-flight/sstable-flight/sstable/internal/base"
)

// VerifyDigest checks the whole Data.db file (as stored, compressed or
// not) against the CRC32 that Cassandra wrote to Digest.crc32. Chunk CRCs
// already guard every read; this whole-file check also covers bytes no
// read touches, which is what an operator wants before trusting a copy.
func (r *Reader) VerifyDigest() error {
	if !r.has("Digest.crc32") {
		return fmt.Errorf("verify %s: the TOC lists no Digest.crc32", r.dataPath)
	}
	b, err := r.readSmall("Digest.crc32")
	if err != nil {
		return fmt.Errorf("read digest: %w", err)
	}
	want, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 32)
	if err != nil {
		return base.Corruptf(r.path("Digest.crc32"), "Digest.crc32", 0, "not a decimal CRC32: %q", b)
	}
	f, c, err := r.open("Data.db")
	if err != nil {
		return fmt.Errorf("open Data.db: %w", err)
	}
	defer c.Close()
	h := crc32.NewIEEE()
	if _, err := io.Copy(h, io.NewSectionReader(f, 0, f.Size())); err != nil {
		return fmt.Errorf("read Data.db: %w", err)
	}
	if got := h.Sum32(); uint64(got) != want {
		return base.Corruptf(r.dataPath, "Data.db", 0, "file CRC32 %d, Digest.crc32 says %d", got, want)
	}
	return nil
}

// VerifyIndexes cross-checks every index component against Data.db:
// every partition's key passes the bloom filter, Index.db (BIG) lists
// exactly Data.db's partitions at their positions and every Summary.db
// entry points at the Index.db entry of its key, and the partition trie
// (BTI) finds every partition at its position. Cassandra's format carries
// no checksum for Filter.db, Summary.db, Index.db or the tries, so damage
// there can hide a key from a point read; this is how to find it. It reads
// the whole SSTable.
func (r *Reader) VerifyIndexes() error {
	if !r.Murmur3() {
		return r.errPartitioner("verify indexes")
	}
	var idx *big.IndexReader
	if r.idx.summary != nil {
		idx = big.NewIndexReader(context.Background(), r.idx.index, 0, big.IndexOptions{UIntDeletionTime: r.Version.UIntDeletionTime, Promoted: big.PromotedSkip})
	}
	var trie *bti.Iterator
	if r.idx.parts != nil {
		trie = r.idx.parts.Iter(context.Background())
	}
	s := r.Scan()
	n := 0
	var last []byte
	for s.NextPartition() {
		ph := s.Partition()
		key := ph.Key
		if r.idx.filter != nil && !r.idx.filter.MayContain(key) {
			return base.Corruptf(r.path("Filter.db"), "Filter.db", 0, "bloom filter rejects key %x, which Data.db holds at %d", key, ph.Position)
		}
		if idx != nil {
			if !idx.Next() {
				if err := idx.Err(); err != nil {
					return err
				}
				return base.Corruptf(r.path("Index.db"), "Index.db", 0, "ends after %d entries; Data.db has more (key %x at %d)", n, key, ph.Position)
			}
			e := idx.Entry()
			if !bytes.Equal(e.Key, key) || e.DataPosition != ph.Position {
				return base.Corruptf(r.path("Index.db"), "Index.db", idx.Pos(), "entry %d is key %x at %d; Data.db has key %x at %d", n, e.Key, e.DataPosition, key, ph.Position)
			}
		}
		if trie != nil {
			if !trie.Next() {
				if err := trie.Err(); err != nil {
					return err
				}
				return base.Corruptf(r.path("Partitions.db"), "Partitions.db", 0, "ends after %d entries; Data.db has more (key %x at %d)", n, key, ph.Position)
			}
			pos, c, err := r.dataPos(context.Background(), trie.Payload())
			if err != nil {
				return err
			}
			if c.key == nil {
				c = check{prefix: append([]byte(nil), trie.Prefix()...), component: "Partitions.db"}
			}
			if pos != ph.Position {
				return base.Corruptf(r.path("Partitions.db"), "Partitions.db", 0, "entry %d points to %d; Data.db has key %x at %d", n, pos, key, ph.Position)
			}
			if err := c.verify(r, pos, key); err != nil {
				return err
			}
		}
		// Every key must also be found the way a point read finds it.
		k := append(last[:0], key...)
		last = k
		got, _, found, err := r.locate(context.Background(), k)
		if err != nil {
			return err
		}
		if !found || got != ph.Position {
			return base.Corruptf(r.path(r.indexComponent()), r.indexComponent(), 0, "point lookup of key %x finds %v at %d; Data.db has it at %d", k, found, got, ph.Position)
		}
		n++
	}
	if err := s.Err(); err != nil {
		return err
	}
	if idx != nil && idx.Next() {
		return base.Corruptf(r.path("Index.db"), "Index.db", idx.Pos(), "has entries after Data.db's %d partitions", n)
	}
	if trie != nil && trie.Next() {
		return base.Corruptf(r.path("Partitions.db"), "Partitions.db", 0, "has entries after Data.db's %d partitions", n)
	}
	if r.idx.summary != nil && n > 0 && r.idx.summary.Len() == 0 {
		return base.Corruptf(r.path("Summary.db"), "Summary.db", 0, "no entries for %d partitions", n)
	}
	return nil
}

func (r *Reader) indexComponent() string {
	if r.Version.BTI {
		return "Partitions.db"
	}
	return "Index.db"
}
