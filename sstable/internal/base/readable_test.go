package base

import (
	"errors"
	"io"
	"testing"
)

// eofReadable returns io.EOF with every read that reaches the end of b,
// full or not, as io.ReaderAt allows; short, if set, cuts each read to
// that many bytes.
type eofReadable struct {
	b     []byte
	short int
}

func (e eofReadable) ReadAt(p []byte, off int64) (int, error) {
	n := copy(p, e.b[off:])
	if e.short > 0 && n > e.short {
		n = e.short
	}
	if off+int64(n) >= int64(len(e.b)) || n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

func (e eofReadable) Size() int64  { return int64(len(e.b)) }
func (e eofReadable) Name() string { return "t-Data.db" }

// TestReadAllAcceptsEOFWithAFullRead: n == len(p) with io.EOF is a
// complete read (it was reported as corruption); a short read is
// corruption at the offset where the data ends.
func TestReadAllAcceptsEOFWithAFullRead(t *testing.T) {
	data := []byte("0123456789")
	got, err := ReadAll(eofReadable{b: data}, "Data.db", 1<<20)
	if err != nil || string(got) != string(data) {
		t.Fatalf("full read with EOF: %q, %v", got, err)
	}
	if got, err := ReadAll(eofReadable{b: nil}, "Data.db", 1<<20); err != nil || len(got) != 0 {
		t.Fatalf("empty file: %q, %v", got, err)
	}
	_, err = ReadAll(eofReadable{b: data, short: 4}, "Data.db", 1<<20)
	var ce *CorruptionError
	if !errors.Is(err, ErrCorruption) || !errors.As(err, &ce) || ce.Offset != 4 {
		t.Fatalf("short read: %v, want corruption at offset 4", err)
	}
}
