package compress

import (
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"io"

	"github.com/sstable-flight/sstable-flight/sstable/internal/base"
)

const crcComponent = "CRC.db"

// CRCInfo is the content of CRC.db, written beside an uncompressed
// Data.db (every field big-endian):
//
//	+-----------------+---------------+---------------+-----+
//	| chunk size: i32 | CRC32 chunk 0 | CRC32 chunk 1 | ... |
//	+-----------------+---------------+---------------+-----+
//
// one CRC32 per chunk of Data.db, possibly followed by checksums of empty
// buffers (see checkLength).
type CRCInfo struct {
	File      string
	ChunkSize int
	CRCs      []uint32
}

// ParseCRC decodes CRC.db.
func ParseCRC(b []byte, file string) (*CRCInfo, error) {
	d := base.NewDecbuf(b, file, crcComponent, 0)
	size := d.I32()
	if err := d.Err(); err != nil {
		return nil, err
	}
	if size <= 0 || size > maxChunkLength {
		return nil, base.Corruptf(file, crcComponent, 0, "parse CRC.db: chunk size %d out of range (0,%d]", size, maxChunkLength)
	}
	if d.Len()%4 != 0 {
		return nil, base.Corruptf(file, crcComponent, d.Pos(), "parse CRC.db: %d trailing bytes are not whole CRC32s", d.Len())
	}
	c := &CRCInfo{File: file, ChunkSize: int(size), CRCs: make([]uint32, d.Len()/4)}
	for i := range c.CRCs {
		c.CRCs[i] = d.U32()
	}
	return c, d.Err()
}

// emptyCRC is the CRC32 of no bytes: the checksum Cassandra's writer
// records for a flush of an empty buffer.
const emptyCRC = 0

// UncompressedReader serves an uncompressed Data.db, verifying each chunk
// against CRC.db unless Options.SkipCRC is set.
type UncompressedReader struct {
	data  base.Readable
	crc   *CRCInfo
	opts  Options
	size  int64
	cache chunkCache
	// lengthErr is checkLength's verdict, decided once: CRC.db and the
	// size of Data.db do not change under a reader.
	lengthErr error
}

// NewUncompressedReader reads data with the checksums in crc.
func NewUncompressedReader(data base.Readable, crc *CRCInfo, opts Options) *UncompressedReader {
	r := &UncompressedReader{data: data, crc: crc, opts: opts, size: data.Size()}
	r.cache.init(crc.ChunkSize, r.size)
	if !opts.SkipCRC {
		r.lengthErr = r.checkLength()
	}
	return r
}

// CheckLength reports a Data.db whose length disagrees with CRC.db's
// number of checksums: one of them is truncated or belongs to another
// SSTable. Reads check it too, but a Data.db cut to nothing has no chunk
// to read, and would read as an SSTable without partitions.
func (r *UncompressedReader) CheckLength() error { return r.lengthErr }

// checkLength compares CRC.db's checksums with Data.db's chunks.
//
// NB: Cassandra's ChecksummedSequentialWriter appends one checksum per
// flush of its buffer, whatever the buffer holds, and 3.x writers flush
// an empty buffer once more after the last chunk, so their CRC.db ends in
// the checksum of no bytes (00 00 00 00) beyond Data.db's last chunk.
// Cassandra's own ChecksumValidator reads the checksum of each chunk it
// validates and never looks past the last one. A checksum past the last
// chunk can only be of a flush that wrote nothing, so it must be the CRC32
// of no bytes; any other value is the checksum of data that is not in
// Data.db (Data.db truncated at a chunk boundary, or a CRC.db of another
// SSTable). Fewer checksums than chunks leaves data unverifiable.
func (r *UncompressedReader) checkLength() error {
	n := r.NumChunks()
	if len(r.crc.CRCs) < n {
		return base.Corruptf(r.crc.File, crcComponent, crcOffset(len(r.crc.CRCs)), "check CRC.db: %d checksums for a %d-byte Data.db in chunks of %d (%d chunks)", len(r.crc.CRCs), r.size, r.crc.ChunkSize, n)
	}
	for i := n; i < len(r.crc.CRCs); i++ {
		if c := r.crc.CRCs[i]; c != emptyCRC {
			return base.Corruptf(r.crc.File, crcComponent, crcOffset(i), "check CRC.db: checksum %d is %08x, but a %d-byte Data.db in chunks of %d has %d chunks, and a checksum past them must be of an empty buffer (%08x)", i, c, r.size, r.crc.ChunkSize, n, emptyCRC)
		}
	}
	return nil
}

// crcOffset is the offset in CRC.db of checksum i, after the 4-byte chunk
// size.
func crcOffset(i int) int64 { return 4 + 4*int64(i) }

// DataLength is the size of Data.db.
func (r *UncompressedReader) DataLength() int64 { return r.size }

// ChunkLength is the checksummed chunk size.
func (r *UncompressedReader) ChunkLength() int { return r.crc.ChunkSize }

// NumChunks is the number of chunks in Data.db.
func (r *UncompressedReader) NumChunks() int {
	return int((r.size + int64(r.crc.ChunkSize) - 1) / int64(r.crc.ChunkSize))
}

// ReadAt reads Data.db, verifying every chunk it touches.
func (r *UncompressedReader) ReadAt(p []byte, off int64) (int, error) {
	return r.ReadAtContext(context.Background(), p, off)
}

// ReadAtContext is ReadAt for a caller that waits for the file, and for
// other callers' reads, no longer than ctx.
func (r *UncompressedReader) ReadAtContext(ctx context.Context, p []byte, off int64) (int, error) {
	return r.cache.readAt(ctx, r, p, off)
}

// ReadChunk reads chunk i into dst (reused when large enough).
func (r *UncompressedReader) ReadChunk(i int, dst []byte) ([]byte, error) {
	ctx := context.Background()
	r.cache.lock(ctx)
	defer r.cache.unlock()
	return r.readChunkLocked(ctx, i, dst)
}

func (r *UncompressedReader) readChunkLocked(ctx context.Context, i int, dst []byte) ([]byte, error) {
	n := r.NumChunks()
	if i < 0 || i >= n {
		return dst[:0], fmt.Errorf("read Data.db chunk: index %d out of range [0,%d)", i, n)
	}
	if err := r.CheckLength(); err != nil {
		return dst[:0], err
	}
	start := int64(i) * int64(r.crc.ChunkSize)
	dst = grow(dst, int(min(int64(r.crc.ChunkSize), r.size-start)))
	if err := readFull(ctx, r.data, dst, start); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return dst[:0], base.Corruptf(r.data.Name(), dataComponent, start, "read chunk %d: file truncated: %w", i, err)
		}
		return dst[:0], fmt.Errorf("read Data.db chunk %d at offset %d: %w", i, start, err)
	}
	if !r.opts.SkipCRC {
		if got, want := crc32.ChecksumIEEE(dst), r.crc.CRCs[i]; got != want {
			return dst[:0], base.Corruptf(r.data.Name(), dataComponent, start, "read chunk %d: CRC32 mismatch with CRC.db: stored %08x, computed %08x", i, want, got)
		}
	}
	return dst, nil
}
