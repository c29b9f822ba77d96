package writer

import (
	"encoding/binary"
)

// summaryBuilder samples Index.db as IndexSummaryBuilder does at full
// sampling (level 128): the entry of every interval-th partition from
// the first, with its Index.db position.
type summaryBuilder struct {
	interval int
	count    int // partitions seen
	offsets  []byte
	entries  []byte
}

// add records the partition key whose Index.db entry starts at len(index)
// and returns index unchanged.
func (s *summaryBuilder) add(index, key []byte) []byte {
	if s.count%s.interval == 0 {
		s.offsets = binary.LittleEndian.AppendUint32(s.offsets, uint32(len(s.entries)))
		s.entries = append(s.entries, key...)
		s.entries = binary.LittleEndian.AppendUint64(s.entries, uint64(len(index)))
	}
	s.count++
	return index
}

// finish returns Summary.db: the header, the offsets (counted from the
// start of the offsets array, little-endian as 5.0 writes them), the
// entries, and the first and last keys.
func (s *summaryBuilder) finish(first, last []byte) []byte {
	n := len(s.offsets) / 4
	b := binary.BigEndian.AppendUint32(nil, uint32(s.interval))
	b = binary.BigEndian.AppendUint32(b, uint32(n))
	b = binary.BigEndian.AppendUint64(b, uint64(len(s.offsets)+len(s.entries)))
	b = binary.BigEndian.AppendUint32(b, 128) // sampling level
	b = binary.BigEndian.AppendUint32(b, uint32((s.count+s.interval-1)/s.interval))
	for i := 0; i < n; i++ {
		b = binary.LittleEndian.AppendUint32(b, binary.LittleEndian.Uint32(s.offsets[4*i:])+uint32(4*n))
	}
	b = append(b, s.entries...)
	for _, k := range [][]byte{first, last} {
		b = binary.BigEndian.AppendUint32(b, uint32(len(k)))
		b = append(b, k...)
	}
	return b
}
