package sstable

import (
	"unsafe"

	"github.com/sstable-flight/sstable-flight/internal/invariants"
)

// The checks of invariants builds (internal/invariants): a refill of the
// Data.db stream poisons what it leaves behind, and Release poisons
// everything the scanner returned and panics the second time.

// streamGuard is the stream's state in invariants builds: the partition
// key the scanner holds (PartitionHeader.Key, valid until the next
// NextPartition) and the key the last refill spared.
type streamGuard struct {
	key, spared []byte
}

// holdKey records the current partition's key, which refills must spare.
func (s *stream) holdKey(key []byte) {
	if invariants.Enabled {
		s.guard.P().key = key
	}
}

// refillPoisoned is fill's move of the unread bytes in invariants builds.
// It moves them into a new buffer, never within the old one, so that
// every byte left behind can be poisoned: the rows, markers, cells and
// clustering values decoded before (valid until the next call, which is
// the one refilling), and a previous partition's key the last refill
// spared. Only the held key stays, where it is. A caller that kept a
// slice past its contract then reads PoisonByte instead of the stream's
// next bytes shifted under it.
func (s *stream) refillPoisoned() {
	g := s.guard.P()
	next := make([]byte, len(s.buf))
	n := copy(next, s.buf[s.r:s.w])
	if g.spared != nil && unsafe.SliceData(g.spared) != unsafe.SliceData(g.key) {
		invariants.Poison(g.spared)
	}
	poisonExcept(s.buf[:cap(s.buf)], g.key)
	poisonExcept(s.spare[:cap(s.spare)], g.key)
	g.spared = g.key
	s.buf = next
	s.off += int64(s.r)
	s.r, s.w = 0, n
}

// poisonRelease poisons everything the stream ever returned, the held key
// included: Scanner.Release makes all of it dead.
func (s *stream) poisonRelease() {
	g := s.guard.P()
	invariants.Poison(g.spared)
	invariants.Poison(g.key)
	invariants.Poison(s.buf[:cap(s.buf)])
	invariants.Poison(s.spare[:cap(s.spare)])
	*g = streamGuard{}
}

// releaseChecked is Release in invariants builds. It panics on a second
// Release (a scanner pooled twice would serve two reads at once), poisons
// everything the scanner returned, and pools a copy of the scanner: the
// caller's pointer stays released for good, so a Release, or any use,
// through it fails even after a later Get took the buffers.
func (s *Scanner) releaseChecked() {
	if s.r == nil {
		panic("sstable: Scanner released twice")
	}
	s.st.poisonRelease()
	n := new(Scanner)
	*n = *s
	n.r, n.segs, n.verify, n.slice, n.st.ctx = nil, nil, nil, nil, nil
	*s = Scanner{}
	scanners.Put(n)
}

// poisonExcept poisons b but for the bytes of keep, if keep lies in it.
func poisonExcept(b, keep []byte) {
	if len(b) == 0 {
		return
	}
	lo := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	k := uintptr(unsafe.Pointer(unsafe.SliceData(keep)))
	if len(keep) == 0 || k < lo || k >= lo+uintptr(len(b)) {
		invariants.Poison(b)
		return
	}
	i := int(k - lo)
	invariants.Poison(b[:i])
	invariants.Poison(b[i+len(keep):])
}
