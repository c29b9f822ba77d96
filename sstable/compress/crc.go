package compress

import (
	"errors"
	"fmt"
	"hash/crc32"
	"io"

	"github.com/sstable-flight/sstable-flight/sstable/internal/base"
)

const crcComponent = "CRC.db"

// CRCInfo is the content of CRC.db, written beside an uncompressed
// Data.db: the chunk size, then one CRC32 per chunk of Data.db.
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

// UncompressedReader serves an uncompressed Data.db, verifying each chunk
// against CRC.db unless Options.SkipCRC is set.
type UncompressedReader struct {
	data  base.Readable
	crc   *CRCInfo
	opts  Options
	size  int64
	cache chunkCache
}

// NewUncompressedReader reads data with the checksums in crc.
func NewUncompressedReader(data base.Readable, crc *CRCInfo, opts Options) *UncompressedReader {
	r := &UncompressedReader{data: data, crc: crc, opts: opts, size: data.Size()}
	r.cache.init(crc.ChunkSize, r.size)
	return r
}

// CheckLength reports a Data.db whose length disagrees with CRC.db's
// number of checksums: one of them is truncated or belongs to another
// SSTable. Reads check it too, but a Data.db cut to nothing has no chunk
// to read, and would read as an SSTable without partitions.
func (r *UncompressedReader) CheckLength() error {
	if n := r.NumChunks(); !r.opts.SkipCRC && len(r.crc.CRCs) != n {
		return base.Corruptf(r.crc.File, crcComponent, 4, "check CRC.db: %d checksums for a %d-byte Data.db in chunks of %d (%d chunks)", len(r.crc.CRCs), r.size, r.crc.ChunkSize, n)
	}
	return nil
}

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
	return r.cache.readAt(r, p, off)
}

// ReadChunk reads chunk i into dst (reused when large enough).
func (r *UncompressedReader) ReadChunk(i int, dst []byte) ([]byte, error) {
	r.cache.mu.Lock()
	defer r.cache.mu.Unlock()
	return r.readChunkLocked(i, dst)
}

func (r *UncompressedReader) readChunkLocked(i int, dst []byte) ([]byte, error) {
	n := r.NumChunks()
	if i < 0 || i >= n {
		return dst[:0], fmt.Errorf("read Data.db chunk: index %d out of range [0,%d)", i, n)
	}
	if err := r.CheckLength(); err != nil {
		return dst[:0], err
	}
	start := int64(i) * int64(r.crc.ChunkSize)
	dst = grow(dst, int(min(int64(r.crc.ChunkSize), r.size-start)))
	if err := readFull(r.data, dst, start); err != nil {
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
