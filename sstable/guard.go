package sstable

import (
	"context"
	"io"
	"sync"

	"github.com/sstable-flight/sstable-flight/internal/iostall"
	"github.com/sstable-flight/sstable-flight/sstable/internal/base"
)

// IOGuard bounds how long a reader waits for its files: every open and
// read of a component runs on a goroutine of its own, and a caller whose
// operation does not return within the guard's timeout gets an error
// matching ErrStalled naming the file and offset, while the operation
// stays stuck in the kernel (a hung NFS mount, a dying disk). Further
// operations on a file with one stuck are refused at once, and past the
// guard's limit of stuck operations every one is. One guard serves every
// reader of a process; internal/iostall.New makes it.
type IOGuard = iostall.Guard

// ErrStalled matches the error of an open or read that an IOGuard gave
// up on or refused.
var ErrStalled = iostall.ErrStalled

// guardedFS opens and reads an FS's files through an IOGuard.
type guardedFS struct {
	fs FS
	g  *IOGuard
}

func guard(f FS, g *IOGuard) FS {
	if g == nil {
		return f
	}
	return guardedFS{fs: f, g: g}
}

func (g guardedFS) Open(path string) (File, io.Closer, error) {
	var (
		f   File
		c   io.Closer
		err error
	)
	op := iostall.Op{Action: "open", Path: path, Offset: -1}
	// NB: a late open's file is closed by the goroutine that opened it,
	// once it returns: nobody else will.
	late := func() {
		if err == nil {
			c.Close()
		}
	}
	if gerr := g.g.Do(context.Background(), op, func() { f, c, err = g.fs.Open(path) }, late); gerr != nil {
		return nil, nil, gerr
	}
	if err != nil {
		return nil, nil, err
	}
	return guardedFile{File: f, g: g.g}, c, nil
}

// guardedFile reads through the guard. Each read goes into a buffer of
// the operation's own and is copied out only once it returned: a read
// the caller gave up on may still complete, and must not then write
// into memory the caller has reused.
//
// It is a base.ContextReaderAt: the layers above pass each read the
// context of the request it serves (Reader.GetContext and the other
// *Context methods), so a request whose context ends stops waiting for
// a read that does not answer, as it does at the guard's timeout, while
// the read stays counted until it returns. ReadAt is for callers with
// no request (opening, verifying): it waits for the timeout only.
type guardedFile struct {
	File
	g *IOGuard
}

// guardedRead is the most one guarded operation reads: larger reads
// (a held Filter.db) are split, so the timeout bounds a wait for one
// piece, not for the whole file.
const guardedRead = 256 << 10

var readBufs = sync.Pool{New: func() any { b := make([]byte, guardedRead); return &b }}

func (f guardedFile) ReadAt(p []byte, off int64) (int, error) {
	return f.ReadAtContext(context.Background(), p, off)
}

func (f guardedFile) ReadAtContext(ctx context.Context, p []byte, off int64) (int, error) {
	total := 0
	for len(p) > 0 {
		want := min(len(p), guardedRead)
		buf := readBufs.Get().(*[]byte)
		var (
			n   int
			err error
		)
		at := off
		op := iostall.Op{Action: "read", Path: f.Name(), Offset: at}
		if gerr := f.g.Do(ctx, op, func() { n, err = base.ReadAt(ctx, f.File, (*buf)[:want], at) }, func() { readBufs.Put(buf) }); gerr != nil {
			return total, gerr
		}
		copy(p, (*buf)[:n])
		readBufs.Put(buf)
		total += n
		p, off = p[n:], off+int64(n)
		if err != nil {
			return total, err
		}
		if n < want {
			return total, io.ErrUnexpectedEOF
		}
	}
	return total, nil
}
