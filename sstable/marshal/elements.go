package marshal

import (
	"encoding/binary"
	"fmt"
	"math"
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
// announces (a vector's dimension for the one-byte length of every
// element, or, fixed-width, is the value's length over the width); a
// length does not overrun the bytes left; and no byte follows the last
// value. The rule only rejects early what reading the values would
// reject anyway: a corrupt count costs no work before it is refused.

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
	// write barrier check per value.
	b   []byte
	off int
	// left counts the values still announced; for tuple and UDT fields,
	// which announce none, it starts at math.MaxInt. A fault sets it to 0,
	// so that Next tests one number before it reads.
	left  int
	n     int // entries announced: a collection's count, a vector's dimension
	width int // frameFixed: the elements' width
	frame frame
	fault fault
	x, y  int64 // the fault's figures
}

// frame is how each value is delimited.
type frame uint8

const (
	frameInt32  frame = iota // int32 length, negative for null; counted
	frameFields              // the same, not counted: until the bytes end
	frameUvint               // unsigned vint length
	frameFixed               // no length: Elements.width bytes
)

// fault is why Elements stopped; Err spells it out with x and y.
type fault uint8

const (
	faultNone        fault = iota
	faultShortCount        // x: the value's length
	faultCount             // x: the count, y: values per entry
	faultShortLength       // x: offset of the length
	faultOverrun           // x: the length, y: offset of the length
	faultTrailing          // x: offset of the first byte left
	faultDimension         // x: the dimension
	faultFixedVector       // x: the dimension, y: the element width
	faultShortVector       // x: the dimension
	faultBeyondLast        // x: the entries announced
	faultNoneLeft          // x: offset where the fields ended
)

// CollectionElements reads a list or set (per 1) or a map (per 2: each
// entry is a key and a value) from its serialized bytes v. The count is
// read at once: Len returns it and Err says why it is unusable.
func CollectionElements(v []byte, per int) Elements {
	e := Elements{b: v}
	if len(v) < 4 {
		e.fail(faultShortCount, int64(len(v)), 0)
		return e
	}
	n := int64(int32(binary.BigEndian.Uint32(v)))
	if n < 0 || n*int64(per)*4 > int64(len(v)-4) {
		e.fail(faultCount, n, int64(per))
		return e
	}
	e.off, e.n, e.left = 4, int(n), int(n)*per
	return e
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
	e := Elements{b: v, frame: frameUvint}
	switch {
	case dim <= 0:
		e.fail(faultDimension, int64(dim), 0)
		return e
	case width >= 0:
		e.frame, e.width = frameFixed, width
		if int64(width)*int64(dim) != int64(len(v)) {
			e.fail(faultFixedVector, int64(dim), int64(width))
			return e
		}
	case dim > len(v):
		e.fail(faultShortVector, int64(dim), 0)
		return e
	}
	e.n, e.left = dim, dim
	return e
}

// Len returns the entries the value announces: a collection's count (a
// map's entries, not its keys and values) or a vector's dimension. It is
// 0 for tuple and UDT fields, which announce none, and when the count was
// a fault.
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
			e.fail(faultBeyondLast, int64(e.n), 0)
		}
		return nil, false
	}
	start := e.off
	switch e.frame {
	case frameInt32, frameFields:
		if len(e.b)-start < 4 {
			if e.frame == frameFields && start == len(e.b) {
				e.fail(faultNoneLeft, int64(start), 0)
			} else {
				e.fail(faultShortLength, int64(start), 0)
			}
			return nil, false
		}
		l := int64(int32(binary.BigEndian.Uint32(e.b[start:])))
		begin := start + 4
		if l > int64(len(e.b)-begin) {
			e.fail(faultOverrun, l, int64(start))
			return nil, false
		}
		e.off = begin
		if l >= 0 { // else null: v stays nil
			end := begin + int(l)
			v, e.off = e.b[begin:end:end], end
		}
	case frameFixed:
		end := start + e.width
		v, e.off = e.b[start:end:end], end
	default:
		l, n, err := ReadUvint(e.b[start:])
		if err != nil {
			e.fail(faultShortLength, int64(start), 0)
			return nil, false
		}
		if l > uint64(len(e.b)-start-n) {
			e.fail(faultOverrun, int64(l), int64(start))
			return nil, false
		}
		begin := start + n
		end := begin + int(l)
		v, e.off = e.b[begin:end:end], end
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
		e.fail(faultTrailing, int64(e.off), 0)
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

func (e *Elements) fail(f fault, x, y int64) {
	e.fault, e.x, e.y, e.left = f, x, y, 0
}

func (e *Elements) describe() string {
	size := len(e.b)
	switch e.fault {
	case faultShortCount:
		return fmt.Sprintf("%d bytes, too short for a 4-byte element count", e.x)
	case faultCount:
		if e.y == 2 {
			return fmt.Sprintf("entry count %d (a key and a value each) does not fit in %d bytes", e.x, size)
		}
		return fmt.Sprintf("element count %d does not fit in %d bytes", e.x, size)
	case faultShortLength:
		return fmt.Sprintf("length truncated at byte %d of %d", e.x, size)
	case faultOverrun:
		return fmt.Sprintf("length %d at byte %d overruns the %d bytes of the value", e.x, e.y, size)
	case faultTrailing:
		return fmt.Sprintf("%d bytes left after the last element", int64(size)-e.x)
	case faultDimension:
		return fmt.Sprintf("vector dimension %d is not positive", e.x)
	case faultFixedVector:
		return fmt.Sprintf("%d bytes, want %d: %d elements of %d bytes", size, e.x*e.y, e.x, e.y)
	case faultShortVector:
		return fmt.Sprintf("%d bytes cannot hold %d elements", size, e.x)
	case faultBeyondLast:
		return fmt.Sprintf("read beyond the %d entries announced", e.x)
	case faultNoneLeft:
		return fmt.Sprintf("no value left at byte %d of %d", e.x, size)
	}
	return fmt.Sprintf("fault %d", e.fault)
}

// framingError is a fault of Elements: its text without ErrMalformed's,
// which it wraps.
type framingError struct{ msg string }

func (e *framingError) Error() string { return e.msg }
func (e *framingError) Unwrap() error { return ErrMalformed }
