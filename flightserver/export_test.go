package flightserver

import "github.com/apache/arrow-go/v18/arrow/memory"

// NewPoolAllocator is the allocator a server uses by default, for the
// external tests to put arrow's checked allocator over: a test that
// passed a checked GoAllocator as Config.Allocator would replace the pool
// and never run the streams' buffers through it.
func NewPoolAllocator() memory.Allocator { return newPoolAllocator() }
