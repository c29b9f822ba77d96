package sstable

import (
	"io"

	"github.com/sstable-flight/sstable-flight/sstable/internal/base"
)

// File is one component file: random access, its size, its name for errors.
//
// NB: it has the method set of the internal base.Readable, so a File goes
// to the block, index and compression layers unconverted.
type File interface {
	io.ReaderAt
	Size() int64
	Name() string
}

// FS opens an SSTable's component files by path (dir + "/" + file name).
//
// Open must return an error that matches fs.ErrNotExist under errors.Is
// when the component does not exist, so callers can tell a missing file
// from a failing one. The closer releases whatever the file holds; the
// reader calls it once, when it no longer needs the file: right after
// reading a small component whole, on Close for the others.
type FS interface {
	Open(path string) (File, io.Closer, error)
}

// localFS is the local file system, the default: components are opened
// with os.Open.
type localFS struct{}

func (localFS) Open(path string) (File, io.Closer, error) {
	return base.OpenFile(path)
}

// fsOrLocal is the FS an Options asks for.
func fsOrLocal(f FS) FS {
	if f == nil {
		return localFS{}
	}
	return f
}

// open opens one component through the reader's FS.
func (r *Reader) open(component string) (base.Readable, io.Closer, error) {
	f, c, err := r.fs.Open(r.path(component))
	if err != nil {
		return nil, nil, err
	}
	return f, c, nil
}

// holdComponent reads a component whole and keeps it for the reader's
// life (see base.ReadHeld: read, never mapped, so that a file truncated
// or failing under an open reader is an error, not a fault). Close
// releases it.
func (r *Reader) holdComponent(component string) ([]byte, error) {
	f, c, err := r.open(component)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	b, held, err := base.ReadHeld(f, component, r.limits.of(component))
	if err != nil {
		return nil, err
	}
	r.closers = append(r.closers, held)
	return b, nil
}
