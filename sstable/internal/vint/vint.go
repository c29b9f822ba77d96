package vint

import (
	"errors"
	"fmt"
	"math/bits"
)

// ErrMalformed is wrapped by the error of a truncated vint. It is the
// sentinel that sstable/marshal exports as marshal.ErrMalformed and wraps
// in every error of its other codecs, so one errors.Is test covers them
// all; its text names marshal, the package users meet. The errors carry
// no offsets: the caller knows where the bytes came from and says so when
// it wraps them.
var ErrMalformed = errors.New("marshal: malformed value")

// errShortVint is a fixed error so that a failed read allocates nothing:
// callers such as comparators may meet many malformed values.
var errShortVint = fmt.Errorf("%w: vint truncated", ErrMalformed)

// Cassandra's unsigned vint (utils/vint/VIntCoding), used for lengths,
// counts, timestamps and the fields of durations and vectors. It is not
// Go's uvarint: the length is all in the first byte.
//
//	first byte: n one-bits, a zero bit (absent when n == 8), the value's top bits
//	then n bytes: the rest of the value, big-endian
//
//	0xxxxxxx                       7 bits,  values below 2^7
//	10xxxxxx xxxxxxxx             14 bits
//	110xxxxx xxxxxxxx xxxxxxxx    21 bits
//	...
//	11111111 x*8                  64 bits, the whole value in the 8 bytes
//
// Cassandra writes the shortest form but reads any; so do these.

// UvintSize is the length in bytes of the vint whose first byte is first:
// one plus the count of its leading one bits.
func UvintSize(first byte) int { return 1 + bits.LeadingZeros8(^first) }

// ReadUvint reads the unsigned vint at the front of b and returns it and
// the count of bytes it took. The only malformed vint is a truncated one:
// an empty b, or fewer bytes than the first byte announces; the error then
// wraps ErrMalformed and n is 0. It does not allocate.
func ReadUvint(b []byte) (v uint64, n int, err error) {
	if len(b) == 0 {
		return 0, 0, errShortVint
	}
	extra := bits.LeadingZeros8(^b[0])
	if extra >= len(b) {
		return 0, 0, errShortVint
	}
	// NB: the mask keeps the bits after the length marker; for extra == 8
	// it shifts to zero, and the value is the 8 bytes that follow.
	v = uint64(b[0]) & (0xff >> extra)
	for _, c := range b[1 : 1+extra] {
		v = v<<8 | uint64(c)
	}
	return v, 1 + extra, nil
}

// ReadVint reads a signed vint: an unsigned vint holding the zigzag
// encoding of the value. NB: it is too large for the compiler to inline;
// a hot loop calls ReadUvint and DecodeZigZag instead.
func ReadVint(b []byte) (v int64, n int, err error) {
	u, n, err := ReadUvint(b)
	return DecodeZigZag(u), n, err
}

// DecodeZigZag undoes the zigzag encoding of signed vints, which maps 0,
// -1, 1, -2, ... to 0, 1, 2, 3, ... so that small negative values stay
// short.
func DecodeZigZag(u uint64) int64 { return int64(u>>1) ^ -int64(u&1) }

// EncodeZigZag is the inverse of DecodeZigZag.
func EncodeZigZag(v int64) uint64 { return uint64(v<<1) ^ uint64(v>>63) }

// AppendUvint appends the shortest vint encoding of v to dst, as
// Cassandra writes it, and returns the extended slice.
func AppendUvint(dst []byte, v uint64) []byte {
	// extra is how many bytes follow the first: 7 value bits per byte in
	// all, one fewer marker bit each time, until 8 extra bytes hold 64.
	extra := 0
	for extra < 8 && v >= 1<<(7*(extra+1)) {
		extra++
	}
	if extra == 8 {
		dst = append(dst, 0xff)
	} else {
		dst = append(dst, ^byte(0xff>>extra)|byte(v>>(8*extra)))
	}
	for i := extra - 1; i >= 0; i-- {
		dst = append(dst, byte(v>>(8*i)))
	}
	return dst
}

// AppendVint appends the zigzag vint encoding of the signed v.
func AppendVint(dst []byte, v int64) []byte {
	return AppendUvint(dst, EncodeZigZag(v))
}
