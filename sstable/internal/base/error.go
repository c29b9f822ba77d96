package base

import (
	"errors"
	"fmt"
	"io"

	"github.com/sstable-flight/sstable-flight/internal/snippet"
)

// ErrCorruption is the kind of every error caused by bytes that do not
// decode: test with errors.Is(err, ErrCorruption).
var ErrCorruption = errors.New("sstable corruption")

// CorruptionError names where bad bytes were found: the file, the SSTable
// component and the byte offset within that component (for Data.db read
// through compression, the offset in the uncompressed stream unless the
// message says otherwise).
type CorruptionError struct {
	File      string // path as opened; may be empty when reading from a bare ReaderAt
	Component string // Data.db, Index.db, Statistics.db, ...
	Offset    int64
	Err       error // what was wrong
}

func (e *CorruptionError) Error() string {
	return fmt.Sprintf("sstable corruption in %s (%s) at offset %d: %v", e.File, e.Component, e.Offset, e.Err)
}

// Is makes errors.Is(err, ErrCorruption) true for every CorruptionError.
func (e *CorruptionError) Is(target error) bool { return target == ErrCorruption }

func (e *CorruptionError) Unwrap() error { return e.Err }

// Corruptf builds a CorruptionError. NB: a []byte argument is bytes of
// the file (a key, a line, a value), which may be anything, since the
// file may not be what its name says; the message shows no more than a
// short, quoted snippet of it (internal/snippet), since it may reach a
// client.
func Corruptf(file, component string, offset int64, format string, args ...any) error {
	return &CorruptionError{File: file, Component: component, Offset: offset, Err: fmt.Errorf(format, snippets(args)...)}
}

// snippets makes every []byte argument print as a snippet.
func snippets(args []any) []any {
	for i, a := range args {
		if b, ok := a.([]byte); ok {
			args[i] = fileBytes(b)
		}
	}
	return args
}

// fileBytes are bytes of a file in a message: %x prints them in hex,
// any other verb quoted, both cut to snippet.Max bytes.
type fileBytes []byte

func (b fileBytes) Format(f fmt.State, verb rune) {
	if verb == 'x' {
		io.WriteString(f, snippet.Hex(b))
		return
	}
	io.WriteString(f, snippet.Quote(b))
}
