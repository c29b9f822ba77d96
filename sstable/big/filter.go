package big

import (
	"github.com/sstable-flight/sstable-flight/sstable/internal/base"
	"github.com/sstable-flight/sstable-flight/token/murmur3"
)

const filterComponent = "Filter.db"

// maxHashCount bounds the hash count a Filter.db may declare. Cassandra's
// BloomCalculations never picks more than about 20 (its table of optimal
// k stops there); a larger count is damage, and would make MayContain
// loop for as long as the count says.
const maxHashCount = 64

// Filter is a partition-key bloom filter (Filter.db): MayContain is false
// only for keys the SSTable does not hold. The bits alias the file's bytes.
type Filter struct {
	HashCount int
	bits      []byte
	nbits     int64
	// oldWords: the bits are big-endian 64-bit words (before na), so bit
	// i is in byte 8*(i/64) + 7 - (i%64)/8 rather than byte i/8.
	oldWords bool
}

// ParseFilter decodes a Filter.db written by version na or later: the
// hash count, the word count, then the bit set's bytes as held in memory.
func ParseFilter(b []byte, file string) (*Filter, error) { return parseFilter(b, file, false) }

// ParseOldFilter decodes a Filter.db of versions ma..me, whose bit set is
// written as big-endian 64-bit words.
func ParseOldFilter(b []byte, file string) (*Filter, error) { return parseFilter(b, file, true) }

func parseFilter(b []byte, file string, old bool) (*Filter, error) {
	d := base.NewDecbuf(b, file, filterComponent, 0)
	k := d.I32()
	words := d.I32()
	if err := d.Err(); err != nil {
		return nil, err
	}
	switch {
	case k <= 0 || k > maxHashCount:
		return nil, base.Corruptf(file, filterComponent, 0, "read bloom filter: hash count %d not in 1..%d", k, maxHashCount)
	case words <= 0 || int64(words)*8 != int64(d.Len()):
		// Cassandra never writes an empty bit set: even a filter for no
		// keys has 20 spare bits, so at least one word.
		return nil, base.Corruptf(file, filterComponent, 4, "read bloom filter: %d words, but %d bytes follow", words, d.Len())
	}
	bits := d.Bytes(d.Len())
	return &Filter{HashCount: int(k), bits: bits, nbits: int64(len(bits)) * 8, oldWords: old}, nil
}

// MayContain reports whether the SSTable may hold the partition key
// (serialized, as in Index.db). It does not allocate.
//
// BloomFilter.indexes: with (h1, h2) Cassandra's 128-bit murmur3 of the
// key, index i is |(h2 + i*h1) % bits| in Java long arithmetic, which
// wraps as Go's int64 does and whose % keeps the dividend's sign as Go's
// does. Since version ma h2 is the base and h1 the step.
func (f *Filter) MayContain(key []byte) bool {
	h1, h2 := murmur3.Sum128(key)
	idx, step := int64(h2), int64(h1)
	for range f.HashCount {
		i := idx % f.nbits
		if i < 0 {
			i = -i
		}
		var byteAt int64
		if f.oldWords {
			byteAt = (i>>6)<<3 + 7 - ((i >> 3) & 7)
		} else {
			byteAt = i >> 3
		}
		if f.bits[byteAt]&(1<<(i&7)) == 0 {
			return false
		}
		idx += step
	}
	return true
}

// Bits is the filter's size in bits.
func (f *Filter) Bits() int64 { return f.nbits }
