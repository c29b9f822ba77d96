package marshal

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/sstable-flight/sstable-flight/sstable/internal/vint"
)

// Values inside values: the framing of frozen collections, tuples, UDTs
// and vectors, as Cassandra 5.0's CollectionSerializer, TupleType and
// VectorType write it into cells and the native protocol (v3 and later)
// carries it:
//
//	list, set:  int32 count, then count values
//	map:        int32 count, then count keys and values, each key first
//	tuple, UDT: values back to back, as many as were written (a UDT that
//	            gained fields after a value was written has fewer)
//	value:      int32 length, then that many bytes; a negative length is
//	            null
//	vector:     dimension values, never null: back to back without
//	            lengths when the element type is fixed-width, else each
//	            behind an unsigned vint length
//
// Every reader of these values (Compare, sstable/dump, the Arrow encoder)
// walks them with Elements, so one bounds rule holds everywhere: a count
// is not negative and leaves room for the 4-byte length of every value it
// announces, and a vector's dimension for the one-byte length of every
// element (a fixed-width vector is exactly dimension times width bytes);
// a length does not overrun the bytes left; and no byte follows the last
// value. The rule only rejects early what reading the values would
// reject anyway: a corrupt count costs no work before it is refused.
// internal/testkit/canon and internal/testkit/corpus split these values on their own on
// purpose: they are the independent renderings tests compare against.

// Elements reads the values framed inside one serialized collection,
// tuple, UDT or vector, in place: each value it returns is a subslice of
// the serialized bytes with its capacity capped, so an append to it cannot
// overwrite what follows. It allocates nothing and makes no interface
// call; only Err allocates, to describe a fault.
//
//	e := marshal.CollectionElements(v, 1)
//	for e.More() {
//		x, ok := e.Next() // x is nil for a null value
//		if !ok {
//			return e.Err()
//		}
//		...
//	}
//	if !e.End() {
//		return e.Err() // bytes after the last value
//	}
//
// After the first fault, More and End report false and Next returns no
// value; Err describes that fault.
type Elements struct {
	// b is the whole serialized value and off where the next value
	// starts. Next only moves off: storing a slice into *e would cost a
	// write barrier check per value. A fault leaves off where the value
	// that failed starts.
	b   []byte
	off int
	// left counts the values still announced; for tuple and UDT fields,
	// which announce none, it starts at math.MaxInt. A fault sets it to 0,
	// so that Next tests one number before it reads.
	left int
	n    int // entries announced: a collection's count, a vector's dimension
	// width is the elements' width for frameFixed, and a collection's
	// values per entry (for a fault's text).
	width int
	frame frame
	fault fault
	// NB: a fault's figures are read back from the fields above rather
	// than kept: at 64 bytes an Elements is returned and copied with half
	// the stores it took at 80, once per collection value appended.
}

// frame is how each value is delimited.
type frame uint8

const (
	frameInt32  frame = iota // int32 length, negative for null; counted
	frameFields              // the same, not counted: until the bytes end
	frameUvint               // unsigned vint length
	frameFixed               // no length: Elements.width bytes
)

// fault is why Elements stopped; describe spells it out.
type fault uint8

const (
	faultNone        fault = iota
	faultShortCount        // fewer than 4 bytes
	faultCount             // the count at b[0:4] does not fit
	faultShortLength       // the length at off is cut short
	faultOverrun           // the length at off overruns b
	faultTrailing          // bytes from off on after the last value
	faultDimension         // n is not a positive dimension
	faultFixedVector       // len(b) is not n times width
	faultShortVector       // len(b) cannot hold n one-byte lengths
	faultBeyondLast        // a read past the n entries announced
	faultNoneLeft          // a read of a field at the end of b
)

// CollectionElements reads a list or set (per 1) or a map (per 2: each
// entry is a key and a value) from its serialized bytes v. The count is
// read at once: Len returns it and Err says why it is unusable.
func CollectionElements(v []byte, per int) Elements {
	if len(v) < 4 {
		return Elements{b: v, fault: faultShortCount}
	}
	n := int64(int32(binary.BigEndian.Uint32(v)))
	if n < 0 || n*int64(per)*4 > int64(len(v)-4) {
		return Elements{b: v, width: per, fault: faultCount}
	}
	return Elements{b: v, off: 4, n: int(n), left: int(n) * per, width: per}
}

// FieldElements reads the components of a tuple or the fields of a UDT
// from its serialized bytes v: as many as were written. The caller reads
// the ones its type declares while More reports one is left, treats the
// missing ones as null, and calls End to check nothing follows.
func FieldElements(v []byte) Elements {
	return Elements{b: v, left: math.MaxInt, frame: frameFields}
}

// VectorElements reads a vector of dim elements from its serialized bytes
// v. width is the element type's FixedLength: its values' width, or -1
// when each element carries an unsigned vint length. A dimension that is
// not positive, a fixed-width vector whose length is not dim times width,
// or a length too short for dim one-byte lengths is a fault at once.
func VectorElements(v []byte, dim, width int) Elements {
	switch {
	case dim <= 0:
		return Elements{b: v, n: dim, fault: faultDimension}
	case width >= 0:
		if int64(width)*int64(dim) != int64(len(v)) {
			return Elements{b: v, n: dim, width: width, fault: faultFixedVector}
		}
		return Elements{b: v, n: dim, left: dim, width: width, frame: frameFixed}
	case dim > len(v):
		return Elements{b: v, n: dim, fault: faultShortVector}
	}
	return Elements{b: v, n: dim, left: dim, frame: frameUvint}
}

// Fixed reports whether the values are a fixed-width vector's that
// VectorElements found to fit exactly: then NextFixed may read each of
// the Len values with no further check.
func (e *Elements) Fixed() bool { return e.frame == frameFixed }

// NextFixed returns the next value of a Fixed vector; More must hold. It
// is Next's fixed-width case alone, small enough to inline: the per-
// element call is most of a small fixed-width element's cost (a vector of
// floats).
func (e *Elements) NextFixed() []byte {
	start := e.off
	e.off += e.width
	e.left--
	return e.b[start:e.off:e.off]
}

// Len returns the entries the value announces: a collection's count (a
// map's entries, not its keys and values) or a vector's dimension, as
// given even when the bytes do not fit it. It is 0 for tuple and UDT
// fields, which announce none, and when the count could not be read.
func (e *Elements) Len() int { return e.n }

// More reports whether a value is left to read: one the count or the
// dimension announces, or, for fields, any byte left. It is false after a
// fault.
func (e *Elements) More() bool {
	return e.left > 0 && (e.frame != frameFields || e.off < len(e.b))
}

// Next returns the next value: nil for a null one, otherwise a subslice
// of the serialized bytes (empty but not nil for an empty value). ok is
// false on a fault: a length cut short or overrunning the bytes left, or
// a read past the values announced.
func (e *Elements) Next() (v []byte, ok bool) {
	if e.left <= 0 {
		if e.fault == faultNone {
			e.fail(faultBeyondLast)
		}
		return nil, false
	}
	if e.frame == frameFixed {
		start := e.off
		end := start + e.width
		v, e.off = e.b[start:end:end], end
		e.left--
		return v, true
	}
	r := e.b[e.off:]
	switch e.frame {
	case frameInt32, frameFields:
		if len(r) < 4 {
			if e.frame == frameFields && len(r) == 0 {
				e.fail(faultNoneLeft)
			} else {
				e.fail(faultShortLength)
			}
			return nil, false
		}
		l := int(int32(binary.BigEndian.Uint32(r)))
		if l > len(r)-4 {
			e.fail(faultOverrun)
			return nil, false
		}
		if l < 0 {
			e.off += 4 // null: v stays nil
			break
		}
		v = r[4 : 4+l : 4+l]
		e.off += 4 + l
	default:
		l, n, err := vint.ReadUvint(r)
		if err != nil {
			e.fail(faultShortLength)
			return nil, false
		}
		if l > uint64(len(r)-n) {
			e.fail(faultOverrun)
			return nil, false
		}
		end := n + int(l)
		v = r[n:end:end]
		e.off += end
	}
	e.left--
	return v, true
}

// End reports whether the value has been read to its last byte without a
// fault; bytes left after the values read are a fault.
func (e *Elements) End() bool {
	if e.fault != faultNone {
		return false
	}
	if e.off != len(e.b) {
		e.fail(faultTrailing)
		return false
	}
	return true
}

// Err describes the fault that stopped e, nil when there was none. The
// error wraps ErrMalformed; its text says what did not fit and where (byte
// offsets into the value), not the type or which element: callers wrap it
// with those, and it leaves out ErrMalformed's own text so that a caller
// that wraps it in its own malformed-value error does not say it twice.
func (e *Elements) Err() error {
	if e.fault == faultNone {
		return nil
	}
	return &framingError{e.describe()}
}

func (e *Elements) fail(f fault) {
	e.fault, e.left = f, 0
}

// describe spells out e's fault, reading its figures back from the value.
func (e *Elements) describe() string {
	size := len(e.b)
	switch e.fault {
	case faultShortCount:
		return fmt.Sprintf("%d bytes, too short for a 4-byte element count", size)
	case faultCount:
		n := int32(binary.BigEndian.Uint32(e.b))
		if e.width == 2 {
			return fmt.Sprintf("entry count %d (a key and a value each) does not fit in %d bytes", n, size)
		}
		return fmt.Sprintf("element count %d does not fit in %d bytes", n, size)
	case faultShortLength:
		return fmt.Sprintf("length truncated at byte %d of %d", e.off, size)
	case faultOverrun:
		var l int64
		if e.frame == frameUvint {
			u, _, _ := vint.ReadUvint(e.b[e.off:])
			l = int64(u) // a length beyond the int64s is shown negative
		} else {
			l = int64(int32(binary.BigEndian.Uint32(e.b[e.off:])))
		}
		return fmt.Sprintf("length %d at byte %d overruns the %d bytes of the value", l, e.off, size)
	case faultTrailing:
		return fmt.Sprintf("%d bytes left after the last element", size-e.off)
	case faultDimension:
		return fmt.Sprintf("vector dimension %d is not positive", e.n)
	case faultFixedVector:
		return fmt.Sprintf("%d bytes, want %d: %d elements of %d bytes", size, int64(e.n)*int64(e.width), e.n, e.width)
	case faultShortVector:
		return fmt.Sprintf("%d bytes cannot hold %d elements", size, e.n)
	case faultBeyondLast:
		return fmt.Sprintf("read beyond the %d entries announced", e.n)
	case faultNoneLeft:
		return fmt.Sprintf("no value left at byte %d of %d", e.off, size)
	}
	return fmt.Sprintf("fault %d", e.fault)
}

// framingError is a fault of Elements: its text without ErrMalformed's,
// which it wraps.
type framingError struct{ msg string }

func (e *framingError) Error() string { return e.msg }
func (e *framingError) Unwrap() error { return ErrMalformed }
