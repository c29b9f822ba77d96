package arrowenc

import (
	"encoding/binary"
	"fmt"

	"github.com/sstable-flight/sstable-flight/sstable/marshal"
)

// putCollection appends a list, set or map in the native protocol v3+
// layout: an int32 count, then count elements (twice that for a map, key
// then value), each an int32 length and its bytes; a negative length is
// null. Keys and elements stay in stored order, Cassandra's sort order.
func (a *Appender) putCollection(v []byte, apply bool) error {
	if len(v) < 4 {
		return malformed("%s of %d bytes, want a 4-byte count", a.kind, len(v))
	}
	n := int64(int32(binary.BigEndian.Uint32(v)))
	rest := v[4:]
	per := int64(len(a.kids)) // 1, or 2 for a map
	// Every element takes at least its 4-byte length: a count the bytes
	// cannot hold is damage, caught before any work.
	if n < 0 || n*per*4 > int64(len(rest)) {
		return malformed("%s count %d in %d bytes", a.kind, n, len(v))
	}
	if apply {
		if a.mp != nil {
			a.mp.Append(true)
		} else {
			a.list.Append(true)
		}
	}
	for i := range n {
		for j, k := range a.kids {
			e, r, err := element(rest)
			if err != nil {
				return fmt.Errorf("element %d: %w", i, err)
			}
			if j == 0 && a.mp != nil && k.isNull(e) {
				// Arrow map keys cannot be null; Cassandra never writes one.
				return fmt.Errorf("element %d: %w: null map key", i, ErrMalformed)
			}
			if err := k.put(e, apply); err != nil {
				return fmt.Errorf("element %d: %w", i, err)
			}
			rest = r
		}
	}
	if len(rest) != 0 {
		return malformed("%d bytes after the last %s element", len(rest), a.kind)
	}
	return nil
}

// putFields appends a tuple or UDT: one int32-length-prefixed value per
// field, negative length null. Fields missing at the end are null: a UDT
// that gained fields after the value was written.
func (a *Appender) putFields(v []byte, apply bool) error {
	if apply {
		a.st.Append(true)
	}
	rest := v
	for i, k := range a.kids {
		if len(rest) == 0 {
			if apply {
				k.b.AppendNull()
			}
			continue
		}
		e, r, err := element(rest)
		if err != nil {
			return fmt.Errorf("field %s: %w", a.fieldName(i), err)
		}
		if err := k.put(e, apply); err != nil {
			return fmt.Errorf("field %s: %w", a.fieldName(i), err)
		}
		rest = r
	}
	if len(rest) != 0 {
		return malformed("%d bytes after the last field", len(rest))
	}
	return nil
}

func (a *Appender) fieldName(i int) string {
	if a.kind == marshal.UDT && i < len(a.typ.FieldNames) {
		return a.typ.FieldNames[i]
	}
	return fmt.Sprint(i)
}

// putVector appends a vector: dim fixed-width elements back to back, or,
// for variable-width element types, each with an unsigned vint length.
func (a *Appender) putVector(v []byte, apply bool) error {
	k, dim := a.kids[0], a.typ.Dim
	if a.width > 0 {
		if len(v) != a.width*dim {
			return malformed("vector of %d bytes, want %d", len(v), a.width*dim)
		}
		if apply {
			a.fsl.Append(true)
		}
		for i := range dim {
			if err := k.put(v[i*a.width:(i+1)*a.width], apply); err != nil {
				return fmt.Errorf("element %d: %w", i, err)
			}
		}
		return nil
	}
	if apply {
		a.fsl.Append(true)
	}
	rest := v
	for i := range dim {
		l, n, err := marshal.ReadUvint(rest)
		if err != nil || l > uint64(len(rest)-n) {
			return malformed("vector element %d truncated", i)
		}
		e := rest[n : n+int(l)]
		if err := k.put(e, apply); err != nil {
			return fmt.Errorf("element %d: %w", i, err)
		}
		rest = rest[n+int(l):]
	}
	if len(rest) != 0 {
		return malformed("%d bytes after the last vector element", len(rest))
	}
	return nil
}

// element splits one [int32 length][bytes] value off b; a negative
// length is null (nil).
func element(b []byte) (e, rest []byte, err error) {
	if len(b) < 4 {
		return nil, nil, malformed("length truncated to %d bytes", len(b))
	}
	l := int64(int32(binary.BigEndian.Uint32(b)))
	b = b[4:]
	if l < 0 {
		return nil, b, nil
	}
	if l > int64(len(b)) {
		return nil, nil, malformed("length %d with %d bytes left", l, len(b))
	}
	// Non-nil even when empty: an empty text is not a null one.
	return b[:l:l], b[l:], nil
}
