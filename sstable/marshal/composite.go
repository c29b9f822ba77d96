package marshal

import (
	"encoding/binary"
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
// each a subslice of key; it allocates only for an error. Fewer or more
// components than len(parts) is an error wrapping ErrMalformed. The
// end-of-component bytes are not checked: a stored key's are 0, and
// Cassandra does not check them either when it splits a key.
func SplitComposite(key []byte, parts [][]byte) error {
	rest := key
	for i := range parts {
		if len(rest) == 0 {
			return fmt.Errorf("%w: composite of %d components, want %d", ErrMalformed, i, len(parts))
		}
		v, _, r, err := ReadComponent(rest)
		if err != nil {
			return fmt.Errorf("component %d at byte %d of %d: %w", i, len(key)-len(rest), len(key), err)
		}
		parts[i], rest = v, r
	}
	if len(rest) != 0 {
		return fmt.Errorf("%w: %d bytes after the %d components of a composite", ErrMalformed, len(rest), len(parts))
	}
	return nil
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
