package base

import (
	"fmt"
	"io"
	"os"
	"syscall"
)

// MapFile maps a whole component read-only. Components that are kept
// whole for the life of a reader (Summary.db, Filter.db) are mapped rather
// than read, so an open SSTable holds them in the page cache, shared and
// evictable, instead of on the Go heap. An empty file maps to nil.
func MapFile(path string) ([]byte, io.Closer, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("open sstable component: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, nil, fmt.Errorf("stat sstable component: %w", err)
	}
	if st.Size() == 0 {
		return nil, nopCloser{}, nil
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, int(st.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil, fmt.Errorf("map %s: %w", path, err)
	}
	return b, mapping(b), nil
}

type mapping []byte

func (m mapping) Close() error { return syscall.Munmap(m) }

type nopCloser struct{}

func (nopCloser) Close() error { return nil }
