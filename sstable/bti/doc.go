// Package bti reads the two trie indexes of Cassandra 5.0's BTI SSTable
// format ("da"): the partition index (Partitions.db) and the row index
// (Rows.db). Data.db is the same as in the BIG format and is not read here.
//
// Both files hold on-disk tries written bottom-up, so every child node sits
// before its parent and pointers are stored as positive distances back
// from the parent. Nodes are typed (see node.go): PAYLOAD_ONLY, SINGLE,
// SPARSE and DENSE with pointers of 4, 8, 12, 16, 24, 32, 40 or 64 bits.
// Each node's first byte is 4 type bits and 4 payload bits; a payload, if
// any, follows the node's transitions.
//
//	Partitions.db
//	+---------------------------------------------+ 0
//	| trie node pages (4 KiB, nodes never cross)  |
//	| ... root node somewhere in the last page    |
//	+---------------------------------------------+ firstKeyPos
//	| u16 len, first partition key bytes          |
//	| u16 len, last partition key bytes           |
//	+---------------------------------------------+ size-24
//	| i64 firstKeyPos | i64 keyCount | i64 root   |
//	+---------------------------------------------+ size
//
//	partition trie key: the byte-comparable decorated key, of which only
//	the shortest prefix unique among the SSTable's keys is stored:
//	  0x40, token^(1<<63) as 8 big-endian bytes,
//	  0x40, key bytes with 0x00 escaped as 00 FF (runs: 00 FE.. FF), 0x00,
//	  0x38
//	partition payload (payload bits pb):
//	  pb 1..7:  pb-byte signed big-endian position
//	  pb 8..15: 1 hash byte, then (pb-7)-byte signed big-endian position
//	  position >= 0: offset of the partition's entry in Rows.db
//	  position <  0: ^position is the partition's offset in Data.db
//
//	Rows.db: one entry per partition with more than one index block,
//	each page-aligned:
//	+---------------------------------------------+
//	| row trie nodes (separators -> blocks)       |
//	+---------------------------------------------+ entry (index points here)
//	| u16 len, partition key bytes                |
//	| uvint partition start in Data.db            | <- base
//	| vint  trie root - base (negative)           |
//	| uvint index block count                     |
//	| deletion time: 0x80 (live) or i64 + u32     |
//	+---------------------------------------------+
//
//	row trie key: a byte-comparable clustering separator, greater than the
//	previous block's last clustering and <= this block's first.
//	row payload (payload bits pb): (pb&7)-byte signed offset of the block
//	relative to the partition start; if pb&8, the deletion time open at
//	the block's start follows (same encoding as above).
//
// The trie stores prefixes only, so a partition lookup yields a candidate
// that the caller must confirm against the key stored in Data.db or Rows.db.
//
// Every decode failure is a *base.CorruptionError naming the file, the
// component and the offset. Walks are bounded by the file's size, so no
// input makes a reader loop or recurse without end.
package bti
