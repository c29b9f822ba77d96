package sstable

import "github.com/sstable-flight/sstable-flight/sstable/internal/base"

// ErrCorruption is the kind of every error caused by bytes that do not
// decode; test with errors.Is(err, sstable.ErrCorruption).
var ErrCorruption = base.ErrCorruption

// CorruptionError names the file, component and offset of bad bytes.
type CorruptionError = base.CorruptionError

// Readable is one component file: ReadAt, Size and Name.
type Readable = base.Readable
