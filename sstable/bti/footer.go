package bti

import (
	"context"
	"encoding/binary"
	"math"
)

const (
	partitionsComponent = "Partitions.db"
	rowsComponent       = "Rows.db"
	footerLen           = 3 * 8
)

// footer is the tail of Partitions.db (PartitionIndexBuilder.complete).
type footer struct {
	firstKeyPos int64 // where the first and last keys start; also the end of the trie
	keyCount    int64
	root        int64
	firstKey    []byte
	lastKey     []byte
}

// readFooter reads the three longs and the two keys before them; nothing
// else of the file, so opening costs O(1) reads.
func readFooter(ctx context.Context, g *region) (footer, error) {
	var f footer
	size := g.limit
	if size < footerLen+4 {
		return f, g.corrupt(0, "read partition index footer: file of %d bytes is shorter than the %d-byte footer", size, footerLen+4)
	}
	b, err := g.read(ctx, size-footerLen, footerLen, "partition index footer")
	if err != nil {
		return f, err
	}
	f.firstKeyPos = int64(binary.BigEndian.Uint64(b))
	f.keyCount = int64(binary.BigEndian.Uint64(b[8:]))
	f.root = int64(binary.BigEndian.Uint64(b[16:]))
	keysEnd := size - footerLen
	switch {
	case f.firstKeyPos < 0 || f.firstKeyPos > keysEnd-4:
		return f, g.corrupt(size-footerLen, "read partition index footer: first key position %d outside [0,%d]", f.firstKeyPos, keysEnd-4)
	case f.root < 0 || f.root >= f.firstKeyPos:
		return f, g.corrupt(size-footerLen+16, "read partition index footer: root %d outside the trie [0,%d)", f.root, f.firstKeyPos)
	case keysEnd-f.firstKeyPos > 2*(2+math.MaxUint16):
		// Two u16-length keys cannot take more; refusing keeps Open O(1).
		return f, g.corrupt(size-footerLen, "read partition index footer: %d bytes of first and last key", keysEnd-f.firstKeyPos)
	case f.keyCount < 0 || f.keyCount > f.firstKeyPos:
		// Every key needs at least a payload byte in the trie.
		return f, g.corrupt(size-footerLen+8, "read partition index footer: key count %d for a %d-byte trie", f.keyCount, f.firstKeyPos)
	}
	keys, err := g.read(ctx, f.firstKeyPos, int(keysEnd-f.firstKeyPos), "first and last keys")
	if err != nil {
		return f, err
	}
	at := 0
	for i, k := range []*[]byte{&f.firstKey, &f.lastKey} {
		if len(keys)-at < 2 {
			return f, g.corrupt(f.firstKeyPos+int64(at), "read partition index footer: key %d length runs past the footer", i)
		}
		n := int(binary.BigEndian.Uint16(keys[at:]))
		at += 2
		if n > len(keys)-at {
			return f, g.corrupt(f.firstKeyPos+int64(at), "read partition index footer: key %d of %d bytes runs past the footer", i, n)
		}
		*k = keys[at : at+n : at+n]
		at += n
	}
	if at != len(keys) {
		return f, g.corrupt(f.firstKeyPos+int64(at), "read partition index footer: %d stray bytes between the last key and the footer", len(keys)-at)
	}
	return f, nil
}
