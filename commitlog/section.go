package commitlog

import (
	"encoding/binary"
	"hash/crc32"
)

// A segment is a chain of sync sections after its header
// (CommitLogSegment.writeSyncMarker, CommitLogSegmentReader):
//
//	uncompressed:  [int32 next][int32 crc]                      entries up to next
//	compressed:    [int32 next][int32 crc][int32 uncompressed]  compressed bytes up to next
//
// next is the file offset of the following marker. The CRC covers the
// low and the high 32 bits of the segment id and the marker's own file
// offset, each as 4 big-endian bytes — not next, so that a marker can be
// rewritten. The chain ends at an all-zero marker (the writer zeroes the
// slot after each new section) or where fewer than 8 bytes remain.
const (
	markerSize           = 8
	compressedMarkerSize = 12
)

// marker is one decoded sync marker.
type marker struct {
	next    int64 // file offset of the following marker
	crc     uint32
	want    uint32 // the CRC the marker's offset and the segment id call for
	ulen    int64  // compressed segments: the section's uncompressed length
	hasULen bool
}

func (m marker) valid() bool { return m.crc == m.want }

// zero is the end of the chain: a slot the writer has cleared, or never
// written.
func (m marker) zero() bool { return m.next == 0 && m.crc == 0 }

// markerCRC is the CRC a sync marker at file offset off must carry.
func markerCRC(id int64, off int64) uint32 {
	var b [12]byte
	binary.BigEndian.PutUint32(b[0:], uint32(id))
	binary.BigEndian.PutUint32(b[4:], uint32(id>>32))
	binary.BigEndian.PutUint32(b[8:], uint32(off))
	return crc32.ChecksumIEEE(b[:])
}

// decodeMarker decodes the marker in b (8 or 12 bytes) found at file
// offset off.
func decodeMarker(b []byte, id, off int64) marker {
	m := marker{
		next: int64(int32(binary.BigEndian.Uint32(b))),
		crc:  binary.BigEndian.Uint32(b[4:]),
		want: markerCRC(id, off),
	}
	if len(b) >= compressedMarkerSize {
		m.ulen, m.hasULen = int64(int32(binary.BigEndian.Uint32(b[8:]))), true
	}
	return m
}
