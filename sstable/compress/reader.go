package compress

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"sync"
	"sync/atomic"

	"github.com/sstable-flight/sstable-flight/sstable/internal/base"
)

const dataComponent = "Data.db"

// Options tune the readers. The zero value is the safe default.
type Options struct {
	// SkipCRC turns off checksum verification. Cassandra's own
	// crc_check_chance allows this for speed; corruption is then found
	// only if decompression happens to fail.
	SkipCRC bool
	// Cache, when set, keeps the chunks point reads decompress
	// (ReadAtCached) for later point reads, shared by every reader.
	Cache *ChunkCache
}

// readerIDs numbers readers for the chunk cache's keys.
var readerIDs atomic.Uint64

// Reader serves the uncompressed stream of a compressed Data.db.
type Reader struct {
	data    base.Readable
	info    *Info
	opts    Options
	size    int64
	dec     *decoder
	scratch []byte // compressed chunk plus its CRC
	cache   chunkCache
	id      uint64 // key of its chunks in opts.Cache
}

// missBufs recycles the buffers point reads decompress a missing chunk
// into before the cache copies it.
var missBufs sync.Pool

// NewReader reads the compressed Data.db data as described by info. The
// chunk layout is checked against data's size as chunks are read, so a
// truncated file fails on the chunks it lost rather than up front.
func NewReader(data base.Readable, info *Info, opts Options) *Reader {
	r := &Reader{data: data, info: info, opts: opts, size: data.Size(), dec: newDecoder(info.codec, info.ChunkLength), id: readerIDs.Add(1)}
	r.cache.init(info.ChunkLength, info.DataLength)
	return r
}

// DataLength is the length of the uncompressed stream.
func (r *Reader) DataLength() int64 { return r.info.DataLength }

// ChunkLength is the uncompressed size of every chunk but the last.
func (r *Reader) ChunkLength() int { return r.info.ChunkLength }

// NumChunks is the number of chunks.
func (r *Reader) NumChunks() int { return len(r.info.ChunkOffsets) }

// Close releases codec state (the zstd decoder). The Readable is the
// caller's to close.
func (r *Reader) Close() error {
	if r.opts.Cache != nil {
		r.opts.Cache.drop(r.id)
	}
	r.cache.lock(context.Background())
	defer r.cache.unlock()
	r.dec.close()
	return nil
}

// ReadAt reads the uncompressed stream. Parallel calls are safe but
// serialized.
func (r *Reader) ReadAt(p []byte, off int64) (int, error) {
	return r.ReadAtContext(context.Background(), p, off)
}

// ReadAtContext is ReadAt for a caller that waits for the file, and for
// other callers' reads, no longer than ctx.
func (r *Reader) ReadAtContext(ctx context.Context, p []byte, off int64) (int, error) {
	return r.cache.readAt(ctx, r, p, off)
}

// ReadAtCached is ReadAtContext for point reads: chunks come from
// Options.Cache when it holds them and go into it when it does not.
// Without a cache it is ReadAtContext.
func (r *Reader) ReadAtCached(ctx context.Context, p []byte, off int64) (int, error) {
	c := r.opts.Cache
	if c == nil {
		return r.ReadAtContext(ctx, p, off)
	}
	return walkChunks(p, off, int64(r.info.ChunkLength), r.info.DataLength, func(i, in int, dst []byte) (int, error) {
		k := cacheKey{reader: r.id, chunk: i}
		if m, ok := c.read(k, dst, in); ok {
			return m, nil
		}
		// Decompress under the reader's lock (its decoder and scratch),
		// cache and copy after it.
		h, _ := missBufs.Get().(*[]byte)
		if h == nil {
			h = new([]byte)
		}
		defer missBufs.Put(h)
		if err := r.cache.lock(ctx); err != nil {
			return 0, err
		}
		b, err := r.readChunkLocked(ctx, i, *h)
		r.cache.unlock()
		*h = b
		if err != nil {
			return 0, err
		}
		c.put(k, b)
		return copy(dst, b[in:]), nil
	})
}

// ReadChunk decompresses chunk i into dst (reused when large enough) and
// returns it; the result holds exactly the chunk's uncompressed bytes.
func (r *Reader) ReadChunk(i int, dst []byte) ([]byte, error) {
	ctx := context.Background()
	r.cache.lock(ctx)
	defer r.cache.unlock()
	return r.readChunkLocked(ctx, i, dst)
}

func (r *Reader) readChunkLocked(ctx context.Context, i int, dst []byte) ([]byte, error) {
	info := r.info
	n := len(info.ChunkOffsets)
	if i < 0 || i >= n {
		return dst[:0], fmt.Errorf("read Data.db chunk: index %d out of range [0,%d)", i, n)
	}
	start := info.ChunkOffsets[i]
	end := r.size // the last chunk runs to the end of the file
	if info.DataEnd > 0 {
		end = info.DataEnd
	}
	if i+1 < n {
		end = info.ChunkOffsets[i+1]
	}
	uoff := int64(i) * int64(info.ChunkLength)
	fail := func(format string, args ...any) error {
		return base.Corruptf(r.data.Name(), dataComponent, start,
			"read chunk %d (file offset %d, uncompressed offset %d): %w",
			i, start, uoff, fmt.Errorf(format, args...))
	}
	if end > r.size {
		return dst[:0], fail("chunk ends at %d, past the end of the %d-byte file", end, r.size)
	}
	clen := end - start - 4
	// Every codec's worst case (snappy's n + n/6 + 32) is well under twice
	// the chunk, so a longer span means a bad offset; refusing it also
	// keeps a corrupt offset from forcing a huge allocation.
	if clen <= 0 || clen > 2*int64(info.ChunkLength)+1024 {
		return dst[:0], fail("compressed length %d is impossible for %d-byte chunks", clen, info.ChunkLength)
	}

	r.scratch = grow(r.scratch, int(clen)+4)
	if err := readFull(ctx, r.data, r.scratch, start); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return dst[:0], fail("file truncated: %w", err)
		}
		return dst[:0], fmt.Errorf("read Data.db chunk %d at file offset %d: %w", i, start, err)
	}
	comp := r.scratch[:clen]
	if !r.opts.SkipCRC {
		// CRC32 covers the bytes as stored (compressed, or raw when stored
		// uncompressed), exactly as CompressedSequentialWriter writes it.
		want := binary.BigEndian.Uint32(r.scratch[clen:])
		if got := crc32.ChecksumIEEE(comp); got != want {
			return dst[:0], fail("CRC32 mismatch: stored %08x, computed %08x", want, got)
		}
	}

	ulen := int64(info.ChunkLength)
	if i == n-1 {
		ulen = info.DataLength - uoff
	}
	dst = grow(dst, int(ulen))
	if clen >= int64(info.MaxCompressedLength) {
		// Compression did not pay off enough (min_compress_ratio), so the
		// writer stored the chunk raw.
		// A short final chunk is zero-padded up to maxCompressedLength so
		// that this test still classifies it as raw; only its first ulen
		// bytes are data.
		if clen != ulen && !(i == n-1 && clen == int64(info.MaxCompressedLength) && ulen < clen) {
			return dst[:0], fail("raw chunk of %d bytes, want %d", clen, ulen)
		}
		copy(dst, comp[:ulen])
		return dst, nil
	}
	if err := r.dec.decode(dst, comp); err != nil {
		return dst[:0], fail("decompress with %s: %w", info.Compressor, err)
	}
	return dst, nil
}
