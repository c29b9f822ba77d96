package marshal_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/rand"
	"strings"
	"testing"

	"github.com/sstable-flight/sstable-flight/sstable/marshal"
)

// walk reads every value of e the way the package's users do and returns
// them, or the fault's error.
func walk(e marshal.Elements) ([][]byte, error) {
	var vals [][]byte
	for e.More() {
		v, ok := e.Next()
		if !ok {
			return vals, e.Err()
		}
		vals = append(vals, v)
	}
	if !e.End() {
		return vals, e.Err()
	}
	return vals, e.Err()
}

// uvints frames values behind unsigned vint lengths, as a vector of a
// variable-width element type is.
func uvints(vals ...[]byte) []byte {
	var out []byte
	for _, v := range vals {
		out = marshal.AppendUvint(out, uint64(len(v)))
		out = append(out, v...)
	}
	return out
}

func TestElements(t *testing.T) {
	cases := []struct {
		name string
		e    marshal.Elements
		want [][]byte // values, nil entries for nulls
		n    int      // Len: the count or the dimension
		err  string   // a fault's text, "" for none
	}{
		{name: "empty list", e: marshal.CollectionElements(i32(0), 1)},
		{name: "list", e: marshal.CollectionElements(collection(1, i32(7), nil, []byte{}), 1),
			want: [][]byte{i32(7), nil, {}}, n: 3},
		{name: "map", e: marshal.CollectionElements(collection(2, []byte("k"), i32(1), []byte("l"), nil), 2),
			want: [][]byte{[]byte("k"), i32(1), []byte("l"), nil}, n: 2},
		{name: "no count", e: marshal.CollectionElements([]byte{0, 0, 1}, 1),
			err: "3 bytes, too short for a 4-byte element count"},
		{name: "negative count", e: marshal.CollectionElements(i32(-1), 1),
			err: "element count -1 does not fit in 4 bytes"},
		{name: "count beyond the bytes", e: marshal.CollectionElements(append(i32(2), i32(0)...), 1),
			err: "element count 2 does not fit in 8 bytes"},
		{name: "map count beyond the bytes", e: marshal.CollectionElements(append(i32(2), tuple([]byte{}, []byte{})...), 2),
			err: "entry count 2 (a key and a value each) does not fit in 12 bytes"},
		{name: "length truncated", e: marshal.CollectionElements(collection(1, []byte("ab"), []byte("c"))[:12], 1),
			want: [][]byte{[]byte("ab")}, n: 2, err: "length truncated at byte 10 of 12"},
		{name: "length overruns", e: marshal.CollectionElements(append(i32(1), i32(200)...), 1),
			n: 1, err: "length 200 at byte 4 overruns the 8 bytes of the value"},
		{name: "bytes after the last", e: marshal.CollectionElements(append(collection(1, i32(1)), 9), 1),
			want: [][]byte{i32(1)}, n: 1, err: "1 bytes left after the last element"},
		{name: "fields", e: marshal.FieldElements(tuple(i32(1), nil, []byte("x"))),
			want: [][]byte{i32(1), nil, []byte("x")}},
		{name: "no fields", e: marshal.FieldElements([]byte{})},
		{name: "field overruns", e: marshal.FieldElements(append(i32(5), 1, 2)),
			err: "length 5 at byte 0 overruns the 6 bytes of the value"},
		{name: "fixed vector", e: marshal.VectorElements(append(f32(1), f32(2)...), 2, 4),
			want: [][]byte{f32(1), f32(2)}, n: 2},
		{name: "fixed vector short", e: marshal.VectorElements(f32(1), 2, 4), n: 2,
			err: "4 bytes, want 8: 2 elements of 4 bytes"},
		{name: "vint vector", e: marshal.VectorElements(uvints([]byte("a"), []byte{}, bytes.Repeat([]byte("z"), 200)), 3, -1),
			want: [][]byte{[]byte("a"), {}, bytes.Repeat([]byte("z"), 200)}, n: 3},
		{name: "vint vector too short for its lengths", e: marshal.VectorElements([]byte{0}, 2, -1), n: 2,
			err: "1 bytes cannot hold 2 elements"},
		{name: "vint vector length overruns", e: marshal.VectorElements([]byte{1, 'a', 5, 'b'}, 2, -1),
			want: [][]byte{[]byte("a")}, n: 2, err: "length 5 at byte 2 overruns the 4 bytes of the value"},
		{name: "vint vector length truncated", e: marshal.VectorElements([]byte{0, 0xc0, 1}, 2, -1),
			want: [][]byte{{}}, n: 2, err: "length truncated at byte 1 of 3"},
		{name: "vint vector bytes after the last", e: marshal.VectorElements([]byte{0, 0, 7}, 2, -1),
			want: [][]byte{{}, {}}, n: 2, err: "1 bytes left after the last element"},
		{name: "vector dimension", e: marshal.VectorElements(nil, 0, 4),
			err: "vector dimension 0 is not positive"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := c.e.Len(); got != c.n {
				t.Errorf("Len() = %d, want %d", got, c.n)
			}
			got, err := walk(c.e)
			if len(got) != len(c.want) {
				t.Fatalf("values %x, want %x", got, c.want)
			}
			for i := range got {
				if (got[i] == nil) != (c.want[i] == nil) || !bytes.Equal(got[i], c.want[i]) {
					t.Errorf("value %d = %x (nil %t), want %x (nil %t)", i, got[i], got[i] == nil, c.want[i], c.want[i] == nil)
				}
				if cap(got[i]) != len(got[i]) {
					t.Errorf("value %d: capacity %d, want it capped at %d", i, cap(got[i]), len(got[i]))
				}
			}
			switch {
			case c.err == "" && err != nil:
				t.Errorf("error %v, want none", err)
			case c.err != "" && (err == nil || err.Error() != c.err):
				t.Errorf("error %v, want %q", err, c.err)
			case err != nil && !errors.Is(err, marshal.ErrMalformed):
				t.Errorf("error %v does not wrap ErrMalformed", err)
			}
		})
	}
}

// TestElementsAfterFault: once a fault is met, nothing more is read and
// the first fault is the one reported.
func TestElementsAfterFault(t *testing.T) {
	e := marshal.CollectionElements(append(i32(1), i32(9)...), 1)
	if _, ok := e.Next(); ok {
		t.Fatal("an overrunning value read")
	}
	first := e.Err().Error()
	if e.More() || e.End() {
		t.Error("More or End true after a fault")
	}
	if v, ok := e.Next(); ok || v != nil {
		t.Errorf("Next after a fault = %x, %t", v, ok)
	}
	if got := e.Err().Error(); got != first {
		t.Errorf("fault became %q, was %q", got, first)
	}
	e = marshal.CollectionElements(collection(1, i32(1)), 1)
	e.Next()
	if _, ok := e.Next(); ok || e.Err().Error() != "read beyond the 1 entries announced" {
		t.Errorf("a read beyond the count: %v", e.Err())
	}
	e = marshal.FieldElements(tuple(i32(1)))
	e.Next()
	if _, ok := e.Next(); ok || e.Err().Error() != "no value left at byte 8 of 8" {
		t.Errorf("a read beyond the fields: %v", e.Err())
	}
}

// TestElementsNoAllocs: reading a value allocates nothing, a good one or
// a damaged one; only Err does.
func TestElementsNoAllocs(t *testing.T) {
	good := collection(2, []byte("k"), i32(1), []byte("l"), nil)
	bad := append(collection(1, i32(1)), 0)
	vec := uvints([]byte("a"), []byte("bc"))
	var n int
	if a := testing.AllocsPerRun(100, func() {
		for _, e := range []marshal.Elements{
			marshal.CollectionElements(good, 2),
			marshal.CollectionElements(bad, 1),
			marshal.FieldElements(good),
			marshal.VectorElements(vec, 2, -1),
			marshal.VectorElements(good, 2, 4),
		} {
			for e.More() {
				v, _ := e.Next()
				n += len(v)
			}
			e.End()
		}
	}); a != 0 {
		t.Errorf("%v allocations per walk, want 0", a)
	}
}

// refSplit is the framing written the plain way, as the spec in
// elements.go says, to check Elements against: ok false when the value is
// malformed.
func refSplit(v []byte, kind string, dim, width int) (vals [][]byte, ok bool) {
	int32Value := func() ([]byte, bool) {
		if len(v) < 4 {
			return nil, false
		}
		l := int(int32(binary.BigEndian.Uint32(v)))
		v = v[4:]
		if l < 0 {
			return nil, true
		}
		if l > len(v) {
			return nil, false
		}
		x := v[:l]
		v = v[l:]
		return x, true
	}
	switch kind {
	case "list", "map":
		if len(v) < 4 {
			return nil, false
		}
		n := int(int32(binary.BigEndian.Uint32(v)))
		v = v[4:]
		if kind == "map" {
			n *= 2
		}
		if n < 0 {
			return nil, false
		}
		for range n {
			x, ok := int32Value()
			if !ok {
				return nil, false
			}
			vals = append(vals, x)
		}
	case "fields":
		for len(v) > 0 {
			x, ok := int32Value()
			if !ok {
				return nil, false
			}
			vals = append(vals, x)
		}
	case "vector":
		for range dim {
			if width >= 0 {
				if len(v) < width {
					return nil, false
				}
				vals, v = append(vals, v[:width]), v[width:]
				continue
			}
			l, n, err := marshal.ReadUvint(v)
			if err != nil || l > uint64(len(v)-n) {
				return nil, false
			}
			vals, v = append(vals, v[n:n+int(l)]), v[n+int(l):]
		}
	}
	return vals, len(v) == 0
}

// TestElementsAgainstReference: random and randomly damaged values split
// as the plain reading of the framing splits them, and every refusal is a
// fault that wraps ErrMalformed.
func TestElementsAgainstReference(t *testing.T) {
	rng := rand.New(rand.NewSource(27))
	seeds := [][]byte{
		collection(1, i32(1), nil, []byte("abc")),
		collection(2, []byte("k"), i32(1), nil, []byte{}),
		tuple(i32(1), nil),
		uvints([]byte("a"), []byte{}, []byte("bcd")),
		append(f32(1), f32(2)...),
	}
	for i := range 20000 {
		var v []byte
		if i%3 == 0 {
			v = make([]byte, rng.Intn(24))
			rng.Read(v)
		} else {
			v = append([]byte{}, seeds[rng.Intn(len(seeds))]...)
			for range 1 + rng.Intn(2) {
				switch {
				case len(v) > 0 && rng.Intn(3) > 0:
					v[rng.Intn(len(v))] = byte(rng.Intn(256))
				case len(v) > 0:
					v = v[:rng.Intn(len(v))]
				default:
					v = append(v, byte(rng.Intn(256)))
				}
			}
		}
		dim, width := 1+rng.Intn(4), []int{-1, 0, 2, 4}[rng.Intn(4)]
		for _, kind := range []string{"list", "map", "fields", "vector"} {
			var e marshal.Elements
			switch kind {
			case "list":
				e = marshal.CollectionElements(v, 1)
			case "map":
				e = marshal.CollectionElements(v, 2)
			case "fields":
				e = marshal.FieldElements(v)
			case "vector":
				e = marshal.VectorElements(v, dim, width)
			}
			got, err := walk(e)
			want, ok := refSplit(v, kind, dim, width)
			if ok != (err == nil) {
				t.Fatalf("%s %x (dim %d, width %d): Elements says %v, the reference ok=%t", kind, v, dim, width, err, ok)
			}
			if err != nil {
				if !errors.Is(err, marshal.ErrMalformed) || strings.Contains(err.Error(), "fault") {
					t.Fatalf("%s %x: error %q", kind, v, err)
				}
				continue
			}
			if len(got) != len(want) {
				t.Fatalf("%s %x: %d values, the reference %d", kind, v, len(got), len(want))
			}
			for j := range got {
				if (got[j] == nil) != (want[j] == nil) || !bytes.Equal(got[j], want[j]) {
					t.Fatalf("%s %x: value %d = %x, the reference %x", kind, v, j, got[j], want[j])
				}
			}
		}
	}
}

// TestNextFixed: over a vector VectorElements found to fit, NextFixed
// yields what Next does; other framings are not Fixed.
func TestNextFixed(t *testing.T) {
	v := append(append(f32(1), f32(2)...), f32(3)...)
	a, b := marshal.VectorElements(v, 3, 4), marshal.VectorElements(v, 3, 4)
	if !a.Fixed() {
		t.Fatal("a fitting fixed-width vector is not Fixed")
	}
	for a.More() {
		want, ok := b.Next()
		if got := a.NextFixed(); !ok || !bytes.Equal(got, want) || cap(got) != len(got) {
			t.Fatalf("NextFixed %x (cap %d), Next %x %v", got, cap(got), want, ok)
		}
	}
	if !a.End() || b.More() {
		t.Fatal("NextFixed did not end with Next")
	}
	for _, e := range []marshal.Elements{marshal.VectorElements(f32(1), 2, 4), marshal.VectorElements([]byte{1, 'a'}, 1, -1), marshal.CollectionElements([]byte{0, 0, 0, 0}, 1)} {
		if e.Fixed() {
			t.Errorf("%+v is Fixed", e)
		}
	}
}
