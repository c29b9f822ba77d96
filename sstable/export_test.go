package sstable

// SliceJumps exposes the row-index jump counters to the external tests.
func SliceJumps() (jumps, intoDeletion int64) {
	return sliceJumps.Load(), sliceJumpsIntoDeletion.Load()
}
