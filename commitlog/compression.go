package commitlog

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

// A compressed segment's sections are each one call of the compressor
// named in the header over the section's uncompressed bytes
// (CompressedSegment.write): no chunks, no checksum of their own (the
// entries inside carry CRCs). The payload is what each ICompressor's
// compress(ByteBuffer, ByteBuffer) writes:
//
//	LZ4Compressor      uint32 little-endian uncompressed length, then a raw LZ4 block
//	SnappyCompressor   a raw Snappy block (no framing)
//	DeflateCompressor  a zlib stream (java.util.zip.Deflater's defaults: header and Adler-32)
//	ZstdCompressor     one zstd frame
type codecKind uint8

const (
	codecLZ4 codecKind = iota + 1
	codecSnappy
	codecDeflate
	codecZstd
)

// codecFor resolves a header's compressionClass; Cassandra resolves a short
// name in org.apache.cassandra.io.compress, so either form is taken.
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
	}
	return 0, false
}

// decompressor inflates sections into a caller's buffer of the exact
// length the marker declares. It keeps the zlib and zstd state between
// sections. Not safe for concurrent use.
type decompressor struct {
	kind   codecKind
	src    bytes.Reader
	zr     io.ReadCloser
	zstd   *zstd.Decoder
	maxLen int
	one    [1]byte
}

var errLength = errors.New("decompressed length differs from the section's")

// decode fills dst from src; any mismatch of lengths is an error, so a
// section never yields more or fewer bytes than its marker says.
func (d *decompressor) decode(dst, src []byte) error {
	switch d.kind {
	case codecLZ4:
		if len(src) < 4 {
			return fmt.Errorf("lz4: %d bytes, no length prefix", len(src))
		}
		if n := binary.LittleEndian.Uint32(src); int64(n) != int64(len(dst)) {
			return fmt.Errorf("lz4: length prefix %d, the marker says %d: %w", n, len(dst), errLength)
		}
		n, err := lz4.UncompressBlock(src[4:], dst)
		if err != nil {
			return fmt.Errorf("lz4: %w", err)
		}
		if n != len(dst) {
			return fmt.Errorf("lz4: %d bytes: %w", n, errLength)
		}
	case codecSnappy:
		n, err := snappy.DecodedLen(src)
		if err != nil {
			return fmt.Errorf("snappy: %w", err)
		}
		if n != len(dst) {
			return fmt.Errorf("snappy: block of %d bytes: %w", n, errLength)
		}
		if _, err := snappy.Decode(dst, src); err != nil {
			return fmt.Errorf("snappy: %w", err)
		}
	case codecDeflate:
		d.src.Reset(src)
		if d.zr == nil {
			zr, err := zlib.NewReader(&d.src)
			if err != nil {
				return fmt.Errorf("deflate: %w", err)
			}
			d.zr = zr
		} else if err := d.zr.(zlib.Resetter).Reset(&d.src, nil); err != nil {
			return fmt.Errorf("deflate: %w", err)
		}
		if _, err := io.ReadFull(d.zr, dst); err != nil {
			return fmt.Errorf("deflate: %w", err)
		}
		// One more byte must be the end: it checks the Adler-32 and
		// that the stream holds no more than the section.
		if n, err := d.zr.Read(d.one[:]); n != 0 || err != io.EOF {
			if err == nil || err == io.EOF {
				err = errLength
			}
			return fmt.Errorf("deflate: after %d bytes: %w", len(dst), err)
		}
	case codecZstd:
		if d.zstd == nil {
			// The memory cap keeps a forged frame header from
			// allocating more than the section limit.
			z, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1),
				zstd.WithDecoderMaxMemory(uint64(max(d.maxLen, 1<<20))))
			if err != nil {
				return fmt.Errorf("zstd: %w", err)
			}
			d.zstd = z
		}
		out, err := d.zstd.DecodeAll(src, dst[:0])
		if err != nil {
			return fmt.Errorf("zstd: %w", err)
		}
		if len(out) != len(dst) || (len(out) > 0 && &out[0] != &dst[0]) {
			return fmt.Errorf("zstd: %d bytes: %w", len(out), errLength)
		}
	default:
		return fmt.Errorf("%w (codec %d)", ErrUnknownCompressor, d.kind)
	}
	return nil
}

func (d *decompressor) close() {
	if d.zstd != nil {
		d.zstd.Close()
		d.zstd = nil
	}
}
