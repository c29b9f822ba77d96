package marshal

import "github.com/sstable-flight/sstable-flight/sstable/internal/vint"

// ErrMalformed is wrapped by every error of the wire codecs here (vints,
// CompositeType values, the framing of collections, tuples and vectors)
// about bytes that cannot be a value; test with errors.Is. The errors
// carry no file offsets: the caller knows where the bytes came from and
// says so when it wraps them (Elements' give offsets into the value). It
// is the vint codec's sentinel, so a truncated vint read here or by the
// SSTable decoder matches it.
var ErrMalformed = vint.ErrMalformed

// Cassandra's vints, for the packages outside sstable. The codec itself,
// with its byte layout drawn, is sstable/internal/vint: a leaf, so that
// the bottom of the reader can use it without importing this package.
// Each function here is one call to it, small enough to inline where the
// codec's own function inlines (ReadUvint, UvintSize, DecodeZigZag,
// EncodeZigZag, AppendUvint), so a hot loop pays no call for the
// indirection, only one more inline mark (a no-op instruction) where the
// compiler finds no other instruction to carry it. This package's own
// decoders (elements.go) call the codec directly.

// UvintSize is the length in bytes of the vint whose first byte is first:
// one plus the count of its leading one bits.
func UvintSize(first byte) int { return vint.UvintSize(first) }

// ReadUvint reads the unsigned vint at the front of b and returns it and
// the count of bytes it took. The only malformed vint is a truncated one:
// an empty b, or fewer bytes than the first byte announces; the error then
// wraps ErrMalformed and n is 0. It does not allocate.
func ReadUvint(b []byte) (v uint64, n int, err error) {
	// NB: assigning the named results costs the inliner less than
	// returning the call (77 against 86, over the budget of 80).
	v, n, err = vint.ReadUvint(b)
	return
}

// ReadVint reads a signed vint: an unsigned vint holding the zigzag
// encoding of the value. NB: it is too large for the compiler to inline;
// a hot loop calls ReadUvint and DecodeZigZag instead.
func ReadVint(b []byte) (v int64, n int, err error) { return vint.ReadVint(b) }

// DecodeZigZag undoes the zigzag encoding of signed vints, which maps 0,
// -1, 1, -2, ... to 0, 1, 2, 3, ... so that small negative values stay
// short.
func DecodeZigZag(u uint64) int64 { return vint.DecodeZigZag(u) }

// EncodeZigZag is the inverse of DecodeZigZag.
func EncodeZigZag(v int64) uint64 { return vint.EncodeZigZag(v) }

// AppendUvint appends the shortest vint encoding of v to dst, as
// Cassandra writes it, and returns the extended slice.
func AppendUvint(dst []byte, v uint64) []byte { return vint.AppendUvint(dst, v) }

// AppendVint appends the zigzag vint encoding of the signed v.
func AppendVint(dst []byte, v int64) []byte { return vint.AppendVint(dst, v) }
