package marshal

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
)

// A CompositeType value (AbstractCompositeType), the serialized form of a
// partition key of several columns and of old-style composite cell names:
//
//	[ff ff]                 static marker: clustering prefixes of a static row only
//	per component:
//	  u16   length, big-endian
//	  bytes the component's value
//	  u8    end-of-component: 0 in a stored key; -1 or 1 in a slice bound,
//	        which ends the value there
//
// A single-column partition key is not wrapped this way: it is the
// column's bytes alone.

// errShortComponent is a fixed error so that a failed read allocates
// nothing: comparators may meet many malformed values.
var errShortComponent = fmt.Errorf("%w: composite component truncated", ErrMalformed)

// ReadComponent reads one component at the front of b: its value (a
// subslice of b, capacity capped so appends cannot overwrite what
// follows), its end-of-component byte and the bytes after it. Fewer than
// three bytes, or a length that overruns b, is an error wrapping
// ErrMalformed. It does not allocate.
func ReadComponent(b []byte) (value []byte, eoc byte, rest []byte, err error) {
	if len(b) < 3 {
		return nil, 0, nil, errShortComponent
	}
	n := int(binary.BigEndian.Uint16(b))
	if len(b)-2 < n+1 {
		return nil, 0, nil, errShortComponent
	}
	return b[2 : 2+n : 2+n], b[2+n], b[2+n+1:], nil
}

// SplitComposite splits a partition key of len(parts) columns into parts,
// each a subslice of key (do not append to one: it would overwrite the
// bytes that follow). Fewer or more components than len(parts) is an
// error naming the key and wrapping ErrMalformed. The end-of-component
// bytes are not checked: a stored key's are 0, and Cassandra's own split
// skips them.
//
// NB: the Flight batcher splits every row's key with it, so it does not
// allocate and does its own framing instead of calling ReadComponent:
// ReadComponent's capped value and four results cost a third more
// instructions per key. FuzzSplitComposite checks the two agree.
func SplitComposite(key []byte, parts [][]byte) error {
	rest := key
	for i := range parts {
		if len(rest) < 3 {
			return splitError(key, rest, i, len(parts))
		}
		n := int(binary.BigEndian.Uint16(rest))
		if len(rest)-2 < n+1 {
			return splitError(key, rest, i, len(parts))
		}
		parts[i], rest = rest[2:2+n], rest[2+n+1:]
	}
	if len(rest) != 0 {
		return fmt.Errorf("split composite key %s: %w: %d bytes after its %d components", keyHex(key), ErrMalformed, len(rest), len(parts))
	}
	return nil
}

// splitError says why component i of key, at rest, did not read.
func splitError(key, rest []byte, i, want int) error {
	if len(rest) == 0 {
		return fmt.Errorf("split composite key %s: %w: %d components, want %d", keyHex(key), ErrMalformed, i, want)
	}
	return fmt.Errorf("split composite key %s: component %d at byte %d of %d: %w", keyHex(key), i, len(key)-len(rest), len(key), errShortComponent)
}

// keyHex is a key in hex for an error message, its first 64 bytes only:
// a key may be 64 KiB long.
func keyHex(key []byte) string {
	if len(key) <= 64 {
		return hex.EncodeToString(key)
	}
	return hex.EncodeToString(key[:64]) + "..."
}

// AppendComposite appends to dst the CompositeType serialization of a
// partition key made of several columns (each component's u16 length, its
// bytes and a 0 end-of-component byte) and returns the extended slice.
// The Murmur3 token of the whole result is the partition's token.
//
// It panics if a component is longer than 65535 bytes, which Cassandra
// refuses for a partition-key component, since the length would not fit:
// callers check lengths where the values come from.
func AppendComposite(dst []byte, components ...[]byte) []byte {
	for _, c := range components {
		if len(c) > math.MaxUint16 {
			panic("marshal: build composite key: component longer than 65535 bytes")
		}
		dst = binary.BigEndian.AppendUint16(dst, uint16(len(c)))
		dst = append(dst, c...)
		dst = append(dst, 0)
	}
	return dst
}

// KeyTypes returns the types of the columns of a partition key of type
// t, in the order SplitKey returns their values: a CompositeType's
// components (its Elems, not a copy), or t itself for a key of one column.
func KeyTypes(t *Type) []*Type {
	if t.Kind != Composite {
		return []*Type{t}
	}
	return t.Elems
}

// SplitKey splits a partition key serialized for key type t into its
// columns' values, subslices of key: a CompositeType key (several
// partition-key columns) into len(t.Elems) components with
// SplitComposite, any other key into its one column's bytes. It allocates
// the result; a hot path reuses parts with SplitComposite instead.
func SplitKey(t *Type, key []byte) ([][]byte, error) {
	if t.Kind != Composite {
		return [][]byte{key}, nil
	}
	parts := make([][]byte, len(t.Elems))
	if err := SplitComposite(key, parts); err != nil {
		return nil, err
	}
	return parts, nil
}
