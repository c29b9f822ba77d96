package compress

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/golang/snappy"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

type codecKind uint8

const (
	codecLZ4 codecKind = iota + 1
	codecSnappy
	codecDeflate
	codecZstd
	codecNoop
)

func codecFor(class string) (codecKind, bool) {
	switch shortName(class) {
	case "LZ4Compressor":
		return codecLZ4, true
	case "SnappyCompressor":
		return codecSnappy, true
	case "DeflateCompressor":
		return codecDeflate, true
	case "ZstdCompressor":
		return codecZstd, true
	case "NoopCompressor":
		return codecNoop, true
	}
	return 0, false
}

// decoder decompresses one chunk into dst, whose length is the exact size
// the chunk must inflate to. It keeps per-codec state (zlib reader, zstd
// decoder) so steady-state reads allocate nothing. Not safe for concurrent
// use; the Reader serializes calls.
type decoder struct {
	kind    codecKind
	src     bytes.Reader // feeds the zlib reader without allocating
	zr      io.ReadCloser
	zstd    *zstd.Decoder
	maxSize int
	one     [1]byte
}

func newDecoder(kind codecKind, chunkLength int) *decoder {
	return &decoder{kind: kind, maxSize: chunkLength}
}

var errLength = errors.New("decompressed length mismatch")

// decode returns a plain error; the Reader wraps it with file and offset.
func (c *decoder) decode(dst, src []byte) error {
	switch c.kind {
	case codecLZ4:
		// Cassandra's LZ4Compressor prefixes the LZ4 block with the
		// uncompressed length, little-endian (unlike the rest of the file).
		if len(src) < 4 {
			return fmt.Errorf("lz4: chunk of %d bytes has no length prefix", len(src))
		}
		if n := binary.LittleEndian.Uint32(src); int64(n) != int64(len(dst)) {
			return fmt.Errorf("lz4: length prefix %d, want %d: %w", n, len(dst), errLength)
		}
		n, err := lz4.UncompressBlock(src[4:], dst)
		if err != nil {
			return fmt.Errorf("lz4: %w", err)
		}
		if n != len(dst) {
			return fmt.Errorf("lz4: got %d bytes, want %d: %w", n, len(dst), errLength)
		}
	case codecSnappy:
		n, err := snappy.DecodedLen(src)
		if err != nil {
			return fmt.Errorf("snappy: %w", err)
		}
		if n != len(dst) {
			return fmt.Errorf("snappy: header says %d bytes, want %d: %w", n, len(dst), errLength)
		}
		if _, err := snappy.Decode(dst, src); err != nil {
			return fmt.Errorf("snappy: %w", err)
		}
	case codecDeflate:
		// Cassandra's DeflateCompressor uses java.util.zip.Deflater with
		// default settings: a zlib stream (header and Adler-32), not raw
		// deflate.
		c.src.Reset(src)
		if c.zr == nil {
			zr, err := zlib.NewReader(&c.src)
			if err != nil {
				return fmt.Errorf("deflate: %w", err)
			}
			c.zr = zr
		} else if err := c.zr.(zlib.Resetter).Reset(&c.src, nil); err != nil {
			return fmt.Errorf("deflate: %w", err)
		}
		if _, err := io.ReadFull(c.zr, dst); err != nil {
			return fmt.Errorf("deflate: %w", err)
		}
		// Reading past the end checks the Adler-32 and that the stream
		// holds no more data than the chunk should.
		if n, err := c.zr.Read(c.one[:]); n != 0 || err != io.EOF {
			if err == nil || err == io.EOF {
				err = errLength
			}
			return fmt.Errorf("deflate: after %d bytes: %w", len(dst), err)
		}
	case codecZstd:
		if c.zstd == nil {
			// One decoder per Reader, single-threaded: chunks are small
			// and creating a decoder per chunk would dominate the cost.
			// The memory cap keeps a forged frame header from
			// allocating more than a chunk needs.
			d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1),
				zstd.WithDecoderMaxMemory(uint64(max(c.maxSize, 1<<20))))
			if err != nil {
				return fmt.Errorf("zstd: %w", err)
			}
			c.zstd = d
		}
		out, err := c.zstd.DecodeAll(src, dst[:0])
		if err != nil {
			return fmt.Errorf("zstd: %w", err)
		}
		if len(out) != len(dst) || (len(out) > 0 && &out[0] != &dst[0]) {
			return fmt.Errorf("zstd: got %d bytes, want %d: %w", len(out), len(dst), errLength)
		}
	case codecNoop:
		if len(src) != len(dst) {
			return fmt.Errorf("noop: chunk of %d bytes, want %d: %w", len(src), len(dst), errLength)
		}
		copy(dst, src)
	default:
		return fmt.Errorf("%w (codec %d)", ErrUnknownCompressor, c.kind)
	}
	return nil
}

func (c *decoder) close() {
	if c.zstd != nil {
		c.zstd.Close()
		c.zstd = nil
	}
}

// Decoder decompresses whole buffers as Cassandra's compressors write
// them (ICompressor.compress's payloads: LZ4 with its little-endian length
// prefix, raw Snappy, zlib, zstd frames, Noop), for formats other than
// Data.db that use the same compressors: the commit log's compressed
// sync sections. It keeps the zlib and zstd state between calls; not safe
// for concurrent use.
type Decoder struct{ d *decoder }

// NewDecoder returns the Decoder of a compressor class name (short, as
// LZ4Compressor, or fully qualified); false for a class it does not know.
// maxSize bounds what a forged zstd frame header may make it allocate.
func NewDecoder(class string, maxSize int) (*Decoder, bool) {
	kind, ok := codecFor(class)
	if !ok {
		return nil, false
	}
	return &Decoder{newDecoder(kind, maxSize)}, true
}

// Decode fills dst, whose length is the exact length src must inflate to;
// any other length is an error.
func (d *Decoder) Decode(dst, src []byte) error { return d.d.decode(dst, src) }

// Close releases the zstd decoder.
func (d *Decoder) Close() { d.d.close() }
