package compress

import (
	"context"
	"fmt"
	"io"

	"github.com/sstable-flight/sstable-flight/sstable/internal/base"
)

// chunkSource is what a reader must provide for chunked ReadAt: the chunk
// geometry and a way to fill one chunk into a buffer.
type chunkSource interface {
	readChunkLocked(ctx context.Context, i int, dst []byte) ([]byte, error)
}

// chunkCache implements ReadAt on top of whole-chunk reads, keeping the
// last chunk so sequential small reads decode each chunk once. Its lock
// makes ReadAt safe for parallel calls, as io.ReaderAt promises; callers
// wanting parallel decoding open one reader per goroutine.
type chunkCache struct {
	// sem is the lock: a channel, so that a caller waiting for it stops
	// waiting when its context ends. NB: the holder may be reading a
	// file that never answers, until its own context ends or its guard
	// gives up; whoever queues behind it must not wait longer than its
	// own request.
	sem      chan struct{}
	buf      []byte
	idx      int // chunk held in buf, -1 for none
	chunkLen int64
	dataLen  int64
}

func (c *chunkCache) init(chunkLen int, dataLen int64) {
	c.sem = make(chan struct{}, 1)
	c.idx = -1
	c.chunkLen = int64(chunkLen)
	c.dataLen = dataLen
}

// lock takes the lock, or returns ctx's error once ctx ends first.
func (c *chunkCache) lock(ctx context.Context) error {
	select {
	case c.sem <- struct{}{}:
		return nil
	default:
	}
	select {
	case c.sem <- struct{}{}:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("wait for a read of the same Data.db: %w", ctx.Err())
	}
}

func (c *chunkCache) unlock() { <-c.sem }

func (c *chunkCache) readAt(ctx context.Context, src chunkSource, p []byte, off int64) (int, error) {
	if err := c.lock(ctx); err != nil {
		return 0, err
	}
	defer c.unlock()
	return walkChunks(p, off, c.chunkLen, c.dataLen, func(i, in int, dst []byte) (int, error) {
		if i != c.idx {
			b, err := src.readChunkLocked(ctx, i, c.buf)
			if err != nil {
				c.idx = -1
				return 0, err
			}
			c.buf, c.idx = b, i
		}
		return copy(dst, c.buf[in:]), nil
	})
}

// walkChunks fills p from the uncompressed offset off, chunk by chunk:
// fill copies chunk i's bytes from in on into dst and says how many. It
// returns io.EOF when p runs past the data.
func walkChunks(p []byte, off, chunkLen, dataLen int64, fill func(i, in int, dst []byte) (int, error)) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("read Data.db: negative offset %d", off)
	}
	n := 0
	for n < len(p) {
		if off >= dataLen {
			return n, io.EOF
		}
		i := int(off / chunkLen)
		m, err := fill(i, int(off-int64(i)*chunkLen), p[n:])
		if err != nil {
			return n, err
		}
		n += m
		off += int64(m)
	}
	return n, nil
}

// grow returns b resized to n, reusing its storage when it is big enough.
func grow(b []byte, n int) []byte {
	if cap(b) < n {
		return make([]byte, n)
	}
	return b[:n]
}

// readFull reads exactly len(p) bytes at off, waiting no longer than ctx
// (base.ReadAt). A short read is reported as io.ErrUnexpectedEOF so
// callers can turn it into a corruption error.
func readFull(ctx context.Context, r io.ReaderAt, p []byte, off int64) error {
	n, err := base.ReadAt(ctx, r, p, off)
	if n == len(p) {
		return nil
	}
	if err == nil || err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return err
}
