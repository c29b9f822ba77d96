package base

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/sstable-flight/sstable-flight/internal/safefile"
)

// Readable is one component file: random access, its size and its name
// (for error messages). Local files, hardlinked snapshots and remote range
// reads all come in through it.
type Readable interface {
	io.ReaderAt
	Size() int64
	Name() string
}

// ContextReaderAt is a Readable whose reads can stop waiting when a
// context ends (sstable's guarded files: the read itself may go on in
// the kernel, but its caller returns with the context's error).
type ContextReaderAt interface {
	ReadAtContext(ctx context.Context, p []byte, off int64) (int, error)
}

// ReadAt reads r at off for a caller that waits no longer than ctx: a
// ContextReaderAt is given ctx, any other reader is read as it is (its
// reads return when they return). Every read of a component a request
// makes comes through here, so that the request's context reaches the
// file whatever layers lie between.
func ReadAt(ctx context.Context, r io.ReaderAt, p []byte, off int64) (int, error) {
	if c, ok := r.(ContextReaderAt); ok {
		if ctx == nil {
			ctx = context.Background()
		}
		return c.ReadAtContext(ctx, p, off)
	}
	return r.ReadAt(p, off)
}

type osFile struct {
	*os.File
	size int64
}

func (f osFile) Size() int64 { return f.size }

// OpenFile opens a local component file, if it is a regular file: a
// symbolic link is never followed and a FIFO never waited on
// (safefile.Open), so a component replaced by either under an epoch
// fails the open at once, matching safefile.ErrNotRegular.
func OpenFile(path string) (Readable, io.Closer, error) {
	f, st, err := safefile.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("open sstable component: %w", err)
	}
	return osFile{File: f, size: st.Size()}, f, nil
}

// BytesReadable serves a component from memory (tests, fuzzing, small
// components read whole).
type BytesReadable struct {
	B    []byte
	Path string
}

func (b BytesReadable) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("read %s: negative offset %d", b.Path, off)
	}
	if off >= int64(len(b.B)) {
		return 0, io.EOF
	}
	n := copy(p, b.B[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

func (b BytesReadable) Size() int64  { return int64(len(b.B)) }
func (b BytesReadable) Name() string { return b.Path }

// ReadAll reads a whole component (for the small ones: TOC, Statistics,
// CompressionInfo, CRC, Digest) onto the heap, if it is at most limit
// bytes.
func ReadAll(r Readable, component string, limit int64) ([]byte, error) {
	if err := checkSize(r, component, limit); err != nil {
		return nil, err
	}
	b := make([]byte, r.Size())
	if err := readFull(r, b, component); err != nil {
		return nil, err
	}
	return b, nil
}

// checkSize refuses a component over its limit before anything is
// allocated or read: a file that size is damage, not a component.
func checkSize(r Readable, component string, limit int64) error {
	if size := r.Size(); size > limit {
		return Corruptf(r.Name(), component, limit, "%d bytes, more than the %d a %s may have (sstable.Limits)", size, limit, component)
	}
	return nil
}

// readFull fills b from the start of r. NB: io.ReaderAt may return io.EOF
// with a full read when the read ends at the end of the file, as some FS
// implementations do; only a short read is corruption.
func readFull(r Readable, b []byte, component string) error {
	n, err := r.ReadAt(b, 0)
	switch {
	case n == len(b):
		return nil
	case err == nil || err == io.EOF:
		return Corruptf(r.Name(), component, int64(n), "file shorter than its size %d", len(b))
	}
	return fmt.Errorf("read %s: %w", r.Name(), err)
}
