package arrowenc

import (
	"fmt"

	"github.com/sstable-flight/sstable-flight/sstable/marshal"
)

// Collections, tuples, UDTs and vectors are read with marshal.Elements,
// the one reader of their framing and its bounds rule; what is left here
// is where each value goes in the Arrow builders.

// putCollection appends a list, set or map in the native protocol v3+
// layout: an int32 count, then count elements (twice that for a map, key
// then value), each an int32 length and its bytes; a negative length is
// null. Keys and elements stay in stored order, Cassandra's sort order.
func (a *Appender) putCollection(v []byte, apply bool) error {
	e := marshal.CollectionElements(v, len(a.kids)) // 1, or 2 for a map
	if err := e.Err(); err != nil {
		return framing(err)
	}
	if apply {
		if a.mp != nil {
			a.mp.Append(true)
		} else {
			a.list.Append(true)
		}
	}
	for i := range e.Len() {
		for j, k := range a.kids {
			x, ok := e.Next()
			if !ok {
				return fmt.Errorf("element %d: %w", i, framing(e.Err()))
			}
			if j == 0 && a.mp != nil && k.isNull(x) {
				// Arrow map keys cannot be null; Cassandra never writes one.
				return fmt.Errorf("element %d: %w: null map key", i, ErrMalformed)
			}
			if err := k.put(x, apply); err != nil {
				return fmt.Errorf("element %d: %w", i, err)
			}
		}
	}
	if !e.End() {
		return framing(e.Err())
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
	e := marshal.FieldElements(v)
	for i, k := range a.kids {
		if !e.More() {
			if apply {
				k.b.AppendNull()
			}
			continue
		}
		x, ok := e.Next()
		if !ok {
			return fmt.Errorf("field %s: %w", a.fieldName(i), framing(e.Err()))
		}
		if err := k.put(x, apply); err != nil {
			return fmt.Errorf("field %s: %w", a.fieldName(i), err)
		}
	}
	if !e.End() {
		return framing(e.Err())
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
	e := marshal.VectorElements(v, a.typ.Dim, a.width)
	if err := e.Err(); err != nil {
		return framing(err)
	}
	if apply {
		a.fsl.Append(true)
	}
	k := a.kids[0]
	if e.Fixed() {
		for i := range e.Len() {
			if err := k.put(e.NextFixed(), apply); err != nil {
				return fmt.Errorf("element %d: %w", i, err)
			}
		}
		return nil
	}
	for i := range e.Len() {
		x, ok := e.Next()
		if !ok {
			return fmt.Errorf("element %d: %w", i, framing(e.Err()))
		}
		if err := k.put(x, apply); err != nil {
			return fmt.Errorf("element %d: %w", i, err)
		}
	}
	if !e.End() {
		return framing(e.Err())
	}
	return nil
}

// framing makes a marshal.Elements fault one of this package's malformed
// value errors: it then wraps both ErrMalformed and marshal.ErrMalformed.
func framing(err error) error {
	return fmt.Errorf("%w: %w", ErrMalformed, err)
}
