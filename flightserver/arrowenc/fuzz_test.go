package arrowenc_test

import (
	"errors"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/sstable-flight/sstable-flight/flightserver/arrowenc"
	"github.com/sstable-flight/sstable-flight/internal/testkit/canon"
	"github.com/sstable-flight/sstable-flight/sstable/marshal"
)

// fuzzTypes is every type of the unit cases, once, plus every native kind.
func fuzzTypes() ([]*marshal.Type, map[string]int) {
	var types []*marshal.Type
	index := map[string]int{}
	add := func(t *marshal.Type) {
		if _, ok := index[t.String()]; !ok {
			index[t.String()] = len(types)
			types = append(types, t)
		}
	}
	for k := marshal.Ascii; k <= marshal.Empty; k++ {
		add(nat(k))
	}
	for _, c := range valueCases() {
		add(c.typ)
	}
	add(mapOf(address(), listOf(vectorOf(nat(marshal.Text), 2))))
	add(tupleOf(nat(marshal.Duration), nat(marshal.Inet), nat(marshal.Decimal), nat(marshal.VarInt)))
	return types, index
}

// FuzzAppend: any bytes, any type. Append must not panic; it succeeds
// with one more value or fails with ErrMalformed and appends nothing;
// the array stays valid and readable. Where canon also decodes the bytes,
// the two renderings agree. marshal.Compare, the other reader of the
// framing Append reads with marshal.Elements, orders the same bytes
// without a panic: a value equal to itself, and its two halves
// antisymmetrically.
func FuzzAppend(f *testing.F) {
	types, index := fuzzTypes()
	for _, c := range valueCases() {
		f.Add(c.in, uint16(index[c.typ.String()]))
	}
	for i := range types {
		f.Add([]byte{}, uint16(i))
		f.Add([]byte{0, 0, 0, 1, 0, 0, 0, 4, 1, 2, 3, 4}, uint16(i))
		f.Add([]byte{0xff, 0xff, 0xff, 0xff}, uint16(i))
	}
	f.Fuzz(func(t *testing.T, data []byte, pick uint16) {
		typ := types[int(pick)%len(types)]
		checkCompare(t, typ, data)
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)
		b, a := newAppender(t, mem, typ)
		defer b.Release()
		if err := a.Append(nil); err != nil {
			t.Fatal(err)
		}
		err := a.Append(data)
		want := 2
		if err != nil {
			if !errors.Is(err, arrowenc.ErrMalformed) {
				t.Fatalf("%s %x: error %v is not ErrMalformed", typ, data, err)
			}
			want = 1
		}
		if b.Len() != want {
			t.Fatalf("%s %x: %d values, want %d (error %v)", typ, data, b.Len(), want, err)
		}
		arr := b.NewArray()
		defer arr.Release()
		if err := array.ValidateFull(arr); err != nil {
			t.Fatalf("%s %x: invalid array: %v", typ, data, err)
		}
		if want == 1 {
			return
		}
		got := canonOf(typ, arr, 1)
		// canon renders an empty varint as 0 where the mapping says null.
		if hasKind(typ, marshal.VarInt) {
			return
		}
		if ref, cerr := canon.Value(typ, data); cerr == nil && !sameCanon(t, got, ref) {
			t.Fatalf("%s %x: arrow gives %s, canon %s", typ, data, jsonString(got), jsonString(ref))
		}
	})
}

func hasKind(t *marshal.Type, k marshal.Kind) bool {
	if t.Kind == k {
		return true
	}
	for _, e := range t.Elems {
		if hasKind(e, k) {
			return true
		}
	}
	return false
}

// checkCompare orders data with itself and its two halves with each other
// as values of typ.
func checkCompare(t *testing.T, typ *marshal.Type, data []byte) {
	if c := marshal.Compare(typ, data, data); c != 0 {
		t.Fatalf("%s %x: Compare with itself = %d", typ, data, c)
	}
	a, b := data[:len(data)/2], data[len(data)/2:]
	if ab, ba := marshal.Compare(typ, a, b), marshal.Compare(typ, b, a); (ab < 0) != (ba > 0) || (ab == 0) != (ba == 0) {
		t.Fatalf("%s %x, %x: Compare = %d one way, %d the other", typ, a, b, ab, ba)
	}
}
