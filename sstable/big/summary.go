package big

import (
	"bytes"
	"encoding/binary"
	"math"
	"sync"

	"github.com/sstable-flight/sstable-flight/sstable/internal/base"
	"github.com/sstable-flight/sstable-flight/token"
)

const summaryComponent = "Summary.db"

// baseSamplingLevel is IndexSummary's BASE_SAMPLING_LEVEL: a sampling
// level is the number of entries kept out of every 128.
const baseSamplingLevel = 128

// summaryHeaderSize is the fixed header before the offsets.
const summaryHeaderSize = 4 + 4 + 8 + 4 + 4

// Summary is Summary.db: every minIndexInterval-th Index.db entry's key
// and Index.db position (fewer when downsampled), plus the SSTable's first
// and last partition keys. It keeps slices of the file's bytes rather than
// decoding entries, so it costs no more memory than the file and nothing
// per entry.
type Summary struct {
	MinIndexInterval   int // partitions between samples at full sampling
	SamplingLevel      int // entries kept out of every 128
	SizeAtFullSampling int // entry count the summary would have at level 128

	offsets []byte           // count int32s, each the start of an entry in entries
	entries []byte           // key bytes + 8-byte Index.db position, back to back
	order   binary.ByteOrder // of offsets and positions: the writer's native order
	count   int
	first   []byte
	last    []byte

	// tokens are the entries' Murmur3 tokens, computed on the first
	// Floor: a lookup then hashes only the key sought instead of one
	// summary key per step of the binary search.
	tokensOnce sync.Once
	tokens     []token.Token
}

// ParseSummary decodes Summary.db. b is kept, not copied: the Summary's
// keys alias it. file names the file in errors.
//
// All offsets are checked here, once, so that the accessors cannot fail.
func ParseSummary(b []byte, file string) (*Summary, error) {
	d := base.NewDecbuf(b, file, summaryComponent, 0)
	s := &Summary{}
	minInterval := d.I32()
	count := d.I32()
	offHeap := d.I64()
	sampling := d.I32()
	fullSize := d.I32()
	if err := d.Err(); err != nil {
		return nil, err
	}
	switch {
	case minInterval <= 0:
		return nil, base.Corruptf(file, summaryComponent, 0, "read summary header: min index interval %d", minInterval)
	case count < 0 || int64(count) > int64(d.Len()/4):
		// Each entry needs a 4-byte offset, so a count beyond the file's
		// size is damage; checking it first bounds every later loop.
		return nil, base.Corruptf(file, summaryComponent, 4, "read summary header: entry count %d for a %d-byte file", count, len(b))
	case offHeap < 4*int64(count) || offHeap > int64(d.Len()):
		return nil, base.Corruptf(file, summaryComponent, 8, "read summary header: offsets+entries size %d for %d entries and %d bytes left", offHeap, count, d.Len())
	case sampling <= 0 || sampling > baseSamplingLevel:
		return nil, base.Corruptf(file, summaryComponent, 16, "read summary header: sampling level %d not in 1..%d", sampling, baseSamplingLevel)
	case fullSize < 0:
		return nil, base.Corruptf(file, summaryComponent, 20, "read summary header: size at full sampling %d", fullSize)
	}
	s.MinIndexInterval, s.SamplingLevel, s.SizeAtFullSampling = int(minInterval), int(sampling), int(fullSize)
	s.count = int(count)
	offsetsAt := d.Pos()
	s.offsets = d.Bytes(4 * s.count)
	entriesAt := d.Pos()
	s.entries = d.Bytes(int(offHeap) - 4*s.count)
	s.first = readIntLengthKey(&d, "first key")
	s.last = readIntLengthKey(&d, "last key")
	if err := d.Err(); err != nil {
		return nil, err
	}
	if d.Len() != 0 {
		return nil, base.Corruptf(file, summaryComponent, d.Pos(), "read summary: %d bytes after the last key", d.Len())
	}
	if err := s.checkOffsets(file, offsetsAt, entriesAt); err != nil {
		return nil, err
	}
	return s, nil
}

func readIntLengthKey(d *base.Decbuf, what string) []byte {
	n := d.I32()
	if n < 0 {
		d.Fail("read summary %s: length %d", what, n)
		return nil
	}
	return d.Bytes(int(n))
}

// checkOffsets picks the byte order and checks that every entry lies in
// the entries region, after the previous one, with room for its 8-byte
// position. On disk offsets count from the start of the offsets array, so
// the first is 4*count.
func (s *Summary) checkOffsets(file string, offsetsAt, entriesAt int64) error {
	if s.count == 0 {
		if len(s.entries) != 0 {
			return base.Corruptf(file, summaryComponent, entriesAt, "read summary: %d entry bytes but no entries", len(s.entries))
		}
		return nil
	}
	want := uint32(4 * s.count)
	switch {
	case binary.LittleEndian.Uint32(s.offsets) == want:
		s.order = binary.LittleEndian
	case binary.BigEndian.Uint32(s.offsets) == want:
		// Written before 5.0 on a big-endian machine (native order).
		s.order = binary.BigEndian
	default:
		return base.Corruptf(file, summaryComponent, offsetsAt, "read summary offsets: first offset %#x, want %d in either byte order",
			binary.LittleEndian.Uint32(s.offsets), want)
	}
	limit := uint64(want) + uint64(len(s.entries))
	prev := uint64(want)
	for i := 1; i <= s.count; i++ {
		next := limit
		if i < s.count {
			next = uint64(s.order.Uint32(s.offsets[4*i:]))
		}
		if next < prev+8 || next > limit {
			return base.Corruptf(file, summaryComponent, offsetsAt+4*int64(i), "read summary offset %d: entry %d spans [%d, %d) of a %d-byte region and needs 8 bytes for its position",
				i, i-1, prev, next, limit)
		}
		prev = next
	}
	return nil
}

// Len is the number of entries.
func (s *Summary) Len() int { return s.count }

// span returns entry i's bounds within entries.
func (s *Summary) span(i int) (start, end int) {
	skip := 4 * s.count // offsets count from the start of the offsets array
	start = int(s.order.Uint32(s.offsets[4*i:])) - skip
	if i+1 < s.count {
		end = int(s.order.Uint32(s.offsets[4*i+4:])) - skip
	} else {
		end = len(s.entries)
	}
	return start, end
}

// Key is entry i's partition key (aliasing the file's bytes). It panics
// if i is not in [0, Len()).
func (s *Summary) Key(i int) []byte {
	start, end := s.span(i)
	return s.entries[start : end-8 : end-8]
}

// IndexPosition is the Index.db offset of entry i's partition.
func (s *Summary) IndexPosition(i int) int64 {
	_, end := s.span(i)
	p := s.order.Uint64(s.entries[end-8:])
	if p > math.MaxInt64 {
		// Cannot be a file offset; map it to one no file has so that a
		// reader seeking there reports an out-of-range position.
		return math.MaxInt64
	}
	return int64(p)
}

// FirstKey is the SSTable's first partition key.
func (s *Summary) FirstKey() []byte { return s.first }

// LastKey is the SSTable's last partition key.
func (s *Summary) LastKey() []byte { return s.last }

// Search returns the last entry i whose key is <= the sought key, or -1
// when every entry is greater. cmp(k) reports how k compares to the
// sought key (negative, zero, positive); it must be monotonic over the
// summary's order. A binary search: O(log Len()) calls of cmp.
func (s *Summary) Search(cmp func(key []byte) int) int {
	lo, hi := 0, s.count // invariant: entries < lo are <= key, entries >= hi are > key
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if cmp(s.Key(mid)) <= 0 {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo - 1
}

// Floor is Search in partitioner order: the last entry whose key sorts
// at or before key by (token, bytes).
func (s *Summary) Floor(key []byte) int {
	s.tokensOnce.Do(func() {
		s.tokens = make([]token.Token, s.count)
		for i := range s.tokens {
			s.tokens[i] = token.Of(s.Key(i))
		}
	})
	t := token.Of(key)
	lo, hi := 0, s.count // as Search, comparing tokens before bytes
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		tm := s.tokens[mid]
		c := 0 // entry mid vs key
		switch {
		case tm < t:
			c = -1
		case tm > t:
			c = 1
		default:
			c = bytes.Compare(s.Key(mid), key)
		}
		if c <= 0 {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo - 1
}

// ScanPosition is the Index.db offset from which a forward scan is sure
// to meet key if the SSTable holds it: the position of the floor entry,
// or 0 when key sorts before every entry (IndexSummary.getScanPosition).
func (s *Summary) ScanPosition(key []byte) int64 {
	i := s.Floor(key)
	if i < 0 {
		return 0
	}
	return s.IndexPosition(i)
}
