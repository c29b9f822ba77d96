package base

import (
	"fmt"
	"io"
	"syscall"
)

// heldOnHeap is the size below which a held component is read onto the
// Go heap: a page or two of anonymous memory per small Filter.db would
// cost more than it saves.
const heldOnHeap = 64 << 10

// ReadHeld reads a whole component that a reader keeps for its life
// (Summary.db, Filter.db), if it is at most limit bytes. It is read, never mapped: a mapped file that
// is truncated in place, or whose page the disk fails to read, faults on
// the next access (SIGBUS), which kills the process however the access
// is guarded by the caller, while a read fails with an error of the
// request that asked. From heldOnHeap up the bytes go into anonymous
// memory off the Go heap, so a large bloom filter costs its size in RSS
// and nothing in garbage-collector pacing; the closer unmaps it, after
// which nothing may touch the bytes.
func ReadHeld(r Readable, component string, limit int64) ([]byte, io.Closer, error) {
	size := r.Size()
	if err := checkSize(r, component, limit); err != nil {
		return nil, nil, err
	}
	if size < heldOnHeap {
		b, err := ReadAll(r, component, limit)
		if err != nil {
			return nil, nil, err
		}
		return b, nopCloser{}, nil
	}
	b, err := syscall.Mmap(-1, 0, int(size), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		return nil, nil, fmt.Errorf("allocate %d bytes to hold %s: %w", size, r.Name(), err)
	}
	if err := readFull(r, b, component); err != nil {
		syscall.Munmap(b)
		return nil, nil, err
	}
	return b, mapping(b), nil
}

// mapping is anonymous memory holding a component, unmapped by Close.
type mapping []byte

func (m mapping) Close() error { return syscall.Munmap(m) }

type nopCloser struct{}

func (nopCloser) Close() error { return nil }
