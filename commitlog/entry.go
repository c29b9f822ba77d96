package commitlog

import (
	"encoding/binary"
	"hash/crc32"
)

// An entry inside a section (CommitLog.add, CommitLogReader.readSection),
// big-endian, packed back to back with no padding:
//
//	int32  size       length of the serialized Mutation
//	int32  sizeCRC    CRC32 of the 4 bytes of size
//	bytes  mutation   size bytes, at the segment's messaging version
//	int32  dataCRC    CRC32 of the 4 bytes of size, then the mutation
//
// NB: dataCRC continues the CRC of size; it does not cover sizeCRC.
// A size of 0 ends the data (CommitLogReader's end-of-segment marker);
// sizes below 10 are never written (CommitLogReader, CASSANDRA-2128). The
// entry's CommitLogPosition is the position just past dataCRC.
const (
	entryHeader   = 8
	entryOverhead = 12 // CommitLogSegment.ENTRY_OVERHEAD_SIZE
	minEntrySize  = 10
)

// entryFault says why the bytes at the start of b are not a whole entry.
type entryFault int

const (
	entryOK      entryFault = iota
	entryEnd                // size 0: the end of the data
	entryShort              // fewer bytes than an entry header
	entrySizeBad            // size below 10 or negative
	entrySizeCRC            // size fails its CRC
	entryPastEnd            // the entry runs past the section's end
	entryDataCRC            // the mutation fails its CRC
)

// decodeEntry reads the entry at the start of b. It returns the mutation
// bytes (aliasing b) and the entry's whole length.
func decodeEntry(b []byte) (mutation []byte, n int, fault entryFault, size int64) {
	if len(b) < 4 {
		return nil, 0, entryShort, 0
	}
	size = int64(int32(binary.BigEndian.Uint32(b)))
	if size == 0 {
		return nil, 0, entryEnd, 0
	}
	if len(b) < entryHeader {
		return nil, 0, entryShort, size
	}
	if crc32.ChecksumIEEE(b[:4]) != binary.BigEndian.Uint32(b[4:]) {
		return nil, 0, entrySizeCRC, size
	}
	if size < minEntrySize {
		return nil, 0, entrySizeBad, size
	}
	if size > int64(len(b)-entryOverhead) {
		return nil, 0, entryPastEnd, size
	}
	end := entryHeader + int(size)
	crc := crc32.Update(crc32.ChecksumIEEE(b[:4]), crc32.IEEETable, b[entryHeader:end])
	if crc != binary.BigEndian.Uint32(b[end:]) {
		return nil, 0, entryDataCRC, size
	}
	return b[entryHeader:end], end + 4, entryOK, size
}
