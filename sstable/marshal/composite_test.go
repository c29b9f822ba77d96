package marshal_test

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/sstable-flight/sstable-flight/sstable/marshal"
)

func TestAppendComposite(t *testing.T) {
	got := marshal.AppendComposite(nil, []byte("ab"), nil, []byte{0, 0, 0, 7})
	want := []byte{0, 2, 'a', 'b', 0, 0, 0, 0, 0, 4, 0, 0, 0, 7, 0}
	if !bytes.Equal(got, want) {
		t.Errorf("AppendComposite = %x, want %x", got, want)
	}
	// Appends to dst rather than replacing it.
	if got := marshal.AppendComposite([]byte{0xaa}, []byte("x")); !bytes.Equal(got, []byte{0xaa, 0, 1, 'x', 0}) {
		t.Errorf("AppendComposite(prefix) = %x", got)
	}
	defer func() {
		if recover() == nil {
			t.Errorf("AppendComposite with a 65536-byte component did not panic")
		}
	}()
	marshal.AppendComposite(nil, make([]byte, math.MaxUint16+1))
}

// TestSplitCompositeRoundTrip splits what AppendComposite built, for one
// to three components including empty and maximal ones, and checks that
// every proper prefix and every longer key is an error, never a panic.
func TestSplitCompositeRoundTrip(t *testing.T) {
	long := bytes.Repeat([]byte{0x5a}, math.MaxUint16)
	for _, comps := range [][][]byte{
		{[]byte("a")},
		{{}, {}},
		{[]byte("tenant"), {0, 0, 0, 7}},
		{long, []byte("x"), {}},
	} {
		key := marshal.AppendComposite(nil, comps...)
		parts := make([][]byte, len(comps))
		if err := marshal.SplitComposite(key, parts); err != nil {
			t.Fatalf("split %d components: %v", len(comps), err)
		}
		for i := range comps {
			if !bytes.Equal(parts[i], comps[i]) {
				t.Errorf("%d components: part %d = %x, want %x", len(comps), i, parts[i], comps[i])
			}
		}
		for cut := range len(key) {
			if err := marshal.SplitComposite(key[:cut], parts); !errors.Is(err, marshal.ErrMalformed) {
				t.Fatalf("%d components cut to %d of %d bytes: err %v, want ErrMalformed", len(comps), cut, len(key), err)
			}
		}
		if err := marshal.SplitComposite(append(key, 0), parts); !errors.Is(err, marshal.ErrMalformed) {
			t.Errorf("%d components and a trailing byte: err %v, want ErrMalformed", len(comps), err)
		}
		if err := marshal.SplitComposite(key, make([][]byte, len(comps)+1)); !errors.Is(err, marshal.ErrMalformed) {
			t.Errorf("%d components split into %d: err %v, want ErrMalformed", len(comps), len(comps)+1, err)
		}
		if len(comps) > 1 {
			if err := marshal.SplitComposite(key, parts[:len(comps)-1]); !errors.Is(err, marshal.ErrMalformed) {
				t.Errorf("%d components split into %d: err %v, want ErrMalformed", len(comps), len(comps)-1, err)
			}
		}
	}
}

func TestReadComponent(t *testing.T) {
	b := []byte{0, 2, 'a', 'b', 0xff, 0, 1, 'c', 1}
	v, eoc, rest, err := marshal.ReadComponent(b)
	if err != nil || string(v) != "ab" || eoc != 0xff || !bytes.Equal(rest, b[5:]) {
		t.Fatalf("ReadComponent = %q, %#x, %x, %v", v, eoc, rest, err)
	}
	if cap(v) != len(v) {
		t.Errorf("value capacity %d: an append would overwrite the end-of-component byte", cap(v))
	}
	if v, eoc, rest, err = marshal.ReadComponent(rest); err != nil || string(v) != "c" || eoc != 1 || len(rest) != 0 {
		t.Fatalf("ReadComponent = %q, %#x, %x, %v", v, eoc, rest, err)
	}
	for _, bad := range [][]byte{nil, {0}, {0, 0}, {0, 1, 'a'}, {0xff, 0xff, 0}} {
		if _, _, _, err := marshal.ReadComponent(bad); !errors.Is(err, marshal.ErrMalformed) {
			t.Errorf("ReadComponent(%x): err %v, want ErrMalformed", bad, err)
		}
	}
	// Comparators read components of malformed values too.
	if a := testing.AllocsPerRun(100, func() { _, _, _, _ = marshal.ReadComponent(b[:4]) }); a != 0 {
		t.Errorf("%v allocations per failed read, want 0", a)
	}
}

// TestSplitCompositeNoAllocs: the Flight batcher splits every row's key.
func TestSplitCompositeNoAllocs(t *testing.T) {
	key := marshal.AppendComposite(nil, []byte("tenant"), []byte{0, 0, 0, 7}, nil)
	parts := make([][]byte, 3)
	if a := testing.AllocsPerRun(100, func() {
		if err := marshal.SplitComposite(key, parts); err != nil {
			t.Fatal(err)
		}
	}); a != 0 {
		t.Errorf("%v allocations per split, want 0", a)
	}
}

// FuzzSplitComposite: any bytes split into any count of components
// without a panic; SplitComposite (framing of its own, for speed) and a
// loop of ReadComponent agree on whether and how a key splits; and what
// splits re-joins to the same key once its end-of-component bytes are
// zero, as in every stored key.
func FuzzSplitComposite(f *testing.F) {
	f.Add([]byte{0, 1, 'a', 0, 0, 0, 0}, uint8(2))
	f.Add([]byte{0, 2, 'a', 'b', 1}, uint8(1))
	f.Add([]byte{0xff, 0xff, 0}, uint8(1))
	f.Add([]byte{}, uint8(0))
	f.Fuzz(func(t *testing.T, key []byte, count uint8) {
		parts := make([][]byte, count%8)
		err := marshal.SplitComposite(key, parts)
		if err != nil && !errors.Is(err, marshal.ErrMalformed) {
			t.Fatalf("%x into %d: error %v is not ErrMalformed", key, len(parts), err)
		}
		var read [][]byte
		zeroed, rest, readErr := []byte{}, key, error(nil)
		for range parts {
			var v []byte
			if v, _, rest, readErr = marshal.ReadComponent(rest); readErr != nil {
				break
			}
			read, zeroed = append(read, v), marshal.AppendComposite(zeroed, v)
		}
		if readErr == nil && len(rest) != 0 {
			readErr = errors.New("bytes left")
		}
		if (err == nil) != (readErr == nil) {
			t.Fatalf("%x into %d: SplitComposite says %v, ReadComponent %v", key, len(parts), err, readErr)
		}
		if err != nil {
			return
		}
		for i := range parts {
			if !bytes.Equal(parts[i], read[i]) {
				t.Fatalf("%x: part %d is %x, ReadComponent reads %x", key, i, parts[i], read[i])
			}
		}
		if got := marshal.AppendComposite([]byte{}, parts...); !bytes.Equal(got, zeroed) {
			t.Fatalf("%x into %d: re-joined %x, want %x", key, len(parts), got, zeroed)
		}
	})
}

func TestSplitKey(t *testing.T) {
	intType := &marshal.Type{Kind: marshal.Int}
	two := &marshal.Type{Kind: marshal.Composite, Elems: []*marshal.Type{{Kind: marshal.Text}, intType}}
	parts, err := marshal.SplitKey(two, marshal.AppendComposite(nil, []byte("a"), []byte{0, 0, 0, 7}))
	if err != nil || len(parts) != 2 || string(parts[0]) != "a" || !bytes.Equal(parts[1], []byte{0, 0, 0, 7}) {
		t.Errorf("SplitKey(composite) = %x, %v", parts, err)
	}
	// A single-column key is not wrapped: its bytes are the column's, even
	// bytes that would read as a composite.
	one := marshal.AppendComposite(nil, []byte{1, 2, 3, 4})
	if parts, err := marshal.SplitKey(intType, one); err != nil || len(parts) != 1 || !bytes.Equal(parts[0], one) {
		t.Errorf("SplitKey(int) = %x, %v", parts, err)
	}
	_, err = marshal.SplitKey(two, marshal.AppendComposite(nil, []byte("a")))
	if !errors.Is(err, marshal.ErrMalformed) || !strings.Contains(err.Error(), "split composite key 00016100: ") {
		t.Errorf("SplitKey of one component for two: err %v, want ErrMalformed naming the key", err)
	}
	// A long key is named by its start only.
	_, err = marshal.SplitKey(two, marshal.AppendComposite(nil, make([]byte, 1000)))
	if err == nil || len(err.Error()) > 300 {
		t.Errorf("SplitKey of a 1000-byte component for two: err %v", err)
	}
}

// TestKeyTypes: a key's column types line up with SplitKey's values.
func TestKeyTypes(t *testing.T) {
	intType := &marshal.Type{Kind: marshal.Int}
	two := &marshal.Type{Kind: marshal.Composite, Elems: []*marshal.Type{{Kind: marshal.Text}, intType}}
	if got := marshal.KeyTypes(two); len(got) != 2 || got[0].Kind != marshal.Text || got[1] != intType {
		t.Errorf("KeyTypes(composite) = %v", got)
	}
	if got := marshal.KeyTypes(intType); len(got) != 1 || got[0] != intType {
		t.Errorf("KeyTypes(int) = %v", got)
	}
}
