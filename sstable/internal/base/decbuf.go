package base

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/sstable-flight/sstable-flight/sstable/internal/vint"
)

// Decbuf decodes big-endian values and Cassandra vints from a byte slice.
// The first failure sticks: every later getter returns zero, so a parser
// reads a whole structure and checks Err once. Errors are
// CorruptionErrors naming the file, component and absolute offset.
type Decbuf struct {
	B         []byte
	Base      int64 // offset of B[0] within the component, for error messages
	File      string
	Component string
	pos       int
	err       error
	// Streaming marks a decoder over a window of a larger stream: running
	// short is then routine (the caller refills and retries), so it is
	// recorded as the static ErrShort, without building an error. The
	// caller turns it into a CorruptionError if the stream really ended.
	Streaming bool
}

// short records running out of bytes.
func (d *Decbuf) short(format string, args ...any) {
	if d.err != nil {
		return
	}
	if d.Streaming {
		d.err = ErrShort
		return
	}
	d.Fail(format, args...)
}

// NewDecbuf decodes b, which starts at offset base of the component.
func NewDecbuf(b []byte, file, component string, base int64) Decbuf {
	return Decbuf{B: b, Base: base, File: file, Component: component}
}

// Err is the first error met, or nil.
func (d *Decbuf) Err() error { return d.err }

// Pos is the offset of the next byte within the component.
func (d *Decbuf) Pos() int64 { return d.Base + int64(d.pos) }

// Len is the number of bytes left.
func (d *Decbuf) Len() int { return len(d.B) - d.pos }

// Fail records an error at the current offset unless one is already set.
func (d *Decbuf) Fail(format string, args ...any) {
	if d.err == nil {
		d.err = Corruptf(d.File, d.Component, d.Pos(), format, args...)
	}
}

// SetErr records a non-corruption error (an I/O failure) unless one is set.
func (d *Decbuf) SetErr(err error) {
	if d.err == nil {
		d.err = err
	}
}

// ErrShort marks a decode that ran out of bytes: a truncated file, or (for a
// streaming reader) a buffer that needs refilling before a retry.
var ErrShort = errors.New("unexpected end of data")

func (d *Decbuf) take(n int) []byte {
	if d.err != nil {
		return nil
	}
	if n < 0 {
		d.Fail("negative length %d", n)
		return nil
	}
	if n > d.Len() {
		d.short("%w: need %d bytes, have %d", ErrShort, n, d.Len())
		return nil
	}
	b := d.B[d.pos : d.pos+n]
	d.pos += n
	return b
}

// Skip advances n bytes.
func (d *Decbuf) Skip(n int) { d.take(n) }

// Bytes returns the next n bytes (aliasing the buffer).
func (d *Decbuf) Bytes(n int) []byte { return d.take(n) }

// Value returns the next serialized value (AbstractType.readBuffer):
// fixed bytes raw when the type has a fixed width (fixed >= 0), else
// vint-length-prefixed. It aliases the buffer.
func (d *Decbuf) Value(fixed int) []byte {
	if fixed >= 0 {
		return d.take(fixed)
	}
	return d.take(d.UVint32())
}

func (d *Decbuf) Byte() byte {
	if b := d.take(1); b != nil {
		return b[0]
	}
	return 0
}

func (d *Decbuf) Bool() bool { return d.Byte() != 0 }

func (d *Decbuf) U16() uint16 {
	if b := d.take(2); b != nil {
		return binary.BigEndian.Uint16(b)
	}
	return 0
}

func (d *Decbuf) U32() uint32 {
	if b := d.take(4); b != nil {
		return binary.BigEndian.Uint32(b)
	}
	return 0
}

func (d *Decbuf) U64() uint64 {
	if b := d.take(8); b != nil {
		return binary.BigEndian.Uint64(b)
	}
	return 0
}

func (d *Decbuf) I32() int32   { return int32(d.U32()) }
func (d *Decbuf) I64() int64   { return int64(d.U64()) }
func (d *Decbuf) F64() float64 { return math.Float64frombits(d.U64()) }

// UTF reads Java's writeUTF: u16 length then (modified) UTF-8 bytes.
func (d *Decbuf) UTF() string { return string(d.take(int(d.U16()))) }

// UVint reads Cassandra's unsigned vint with vint.ReadUvint, the one
// implementation of the encoding (its layout is drawn there). A one-byte
// vint, most of those in a Data.db, is read here without the call.
func (d *Decbuf) UVint() uint64 {
	if d.err != nil {
		return 0
	}
	if d.pos < len(d.B) && d.B[d.pos] < 0x80 {
		d.pos++
		return uint64(d.B[d.pos-1])
	}
	v, n, err := vint.ReadUvint(d.B[d.pos:])
	if err != nil {
		if d.Len() < 1 {
			d.short("%w: vint", ErrShort)
		} else {
			d.short("%w: vint of %d bytes, have %d", ErrShort, vint.UvintSize(d.B[d.pos]), d.Len())
		}
		return 0
	}
	d.pos += n
	return v
}

// Vint reads a signed (zigzag-encoded) vint.
func (d *Decbuf) Vint() int64 {
	return vint.DecodeZigZag(d.UVint())
}

// UVint32 reads an unsigned vint that must fit an int32 (lengths, counts).
func (d *Decbuf) UVint32() int {
	v := d.UVint()
	if v > math.MaxInt32 {
		d.Fail("vint %d out of range", v)
		return 0
	}
	return int(v)
}

// Errorf wraps a non-decoding failure with the current position.
func (d *Decbuf) Errorf(format string, args ...any) error {
	return fmt.Errorf("%s (%s) at offset %d: %w", d.File, d.Component, d.Pos(), fmt.Errorf(format, snippets(args)...))
}

// Reset points d at new bytes, keeping its file and component, so a hot
// loop reuses one Decbuf instead of building a new one per structure.
func (d *Decbuf) Reset(b []byte, base int64) {
	d.B, d.Base, d.pos, d.err = b, base, 0, nil
}
