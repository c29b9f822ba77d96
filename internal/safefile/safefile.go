package safefile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// ErrNotRegular reports a file that is a directory, a symbolic link, a
// device, a pipe or a socket: never read.
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge reports a file larger than what ReadFile was allowed to
// read of it.
var ErrTooLarge = errors.New("file too large")

// ReadFile reads a whole regular file (Open) of at most max bytes: one
// larger, by its size or by what a read finds (it may grow), is
// ErrTooLarge, and nothing past max+1 bytes is read.
func ReadFile(path string, max int64) ([]byte, error) {
	f, fi, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi.Size() > max {
		return nil, fmt.Errorf("read %s: %w: %d bytes, more than the %d it may have", path, ErrTooLarge, fi.Size(), max)
	}
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("read %s: %w: more than the %d bytes it may have", path, ErrTooLarge, max)
	}
	return b, nil
}

// Open opens path for reading, if it is a regular file. The last element
// of path is never followed (O_NOFOLLOW), and a FIFO is not waited on
// (O_NONBLOCK: opening a pipe with no writer blocks in open(2) until one
// comes, which nothing can interrupt); both are ErrNotRegular, as is
// anything else but a regular file, found with fstat on what was opened,
// so a name replaced between a check and the open is caught. On a
// regular file O_NONBLOCK changes nothing. A missing file is an error
// matching fs.ErrNotExist.
func Open(path string) (*os.File, fs.FileInfo, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if errors.Is(err, syscall.ELOOP) {
		return nil, nil, fmt.Errorf("open %s: %w: a symbolic link, never followed", path, ErrNotRegular)
	}
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("stat %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, fmt.Errorf("open %s: %w: %s", path, ErrNotRegular, Kind(fi.Mode()))
	}
	return f, fi, nil
}

// Kind names what a file that is not a regular one is, for errors.
func Kind(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "a regular file"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link, never followed"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "not a regular file"
}
