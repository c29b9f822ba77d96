package base

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestUVint(t *testing.T) {
	for _, tc := range []struct {
		in   []byte
		want uint64
	}{
		{[]byte{0x00}, 0},
		{[]byte{0x7f}, 127},
		{[]byte{0x80, 0x80}, 128},
		{[]byte{0xbf, 0xff}, 16383},
		{[]byte{0xc0, 0x40, 0x00}, 16384},
		{[]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, ^uint64(0)},
	} {
		d := NewDecbuf(tc.in, "f", "Data.db", 0)
		if got := d.UVint(); got != tc.want || d.Err() != nil || d.Len() != 0 {
			t.Errorf("% x: got %d (err %v, left %d), want %d", tc.in, got, d.Err(), d.Len(), tc.want)
		}
	}
}

// TestUVintTruncated: every proper prefix of a vint is a corruption error
// naming the length wanted, with nothing consumed, or, streaming, the
// static ErrShort the caller refills on.
func TestUVintTruncated(t *testing.T) {
	for _, enc := range [][]byte{{0x80, 0x80}, {0xc0, 0x40, 0x00}, {0xff, 1, 2, 3, 4, 5, 6, 7, 8}} {
		for cut := range len(enc) {
			d := NewDecbuf(enc[:cut], "f", "Data.db", 10)
			if got := d.UVint(); got != 0 || !errors.Is(d.Err(), ErrCorruption) || !errors.Is(d.Err(), ErrShort) || d.Len() != cut {
				t.Errorf("% x: got %d, err %v, left %d", enc[:cut], got, d.Err(), d.Len())
			}
			if want := fmt.Sprintf("vint of %d bytes, have %d", len(enc), cut); cut > 0 && !strings.Contains(d.Err().Error(), want) {
				t.Errorf("% x: error %q does not say %q", enc[:cut], d.Err(), want)
			}
			d = NewDecbuf(enc[:cut], "f", "Data.db", 10)
			d.Streaming = true
			if d.UVint(); d.Err() != ErrShort {
				t.Errorf("% x, streaming: err %v, want ErrShort", enc[:cut], d.Err())
			}
		}
	}
}

func TestSignedVint(t *testing.T) {
	for in, want := range map[byte]int64{0: 0, 1: -1, 2: 1, 3: -2, 0x7f: -64} {
		d := NewDecbuf([]byte{in}, "f", "Data.db", 0)
		if got := d.Vint(); got != want {
			t.Errorf("%#x: got %d, want %d", in, got, want)
		}
	}
}

func TestStickyCorruption(t *testing.T) {
	d := NewDecbuf([]byte{0x00, 0x05, 'a', 'b'}, "/x/oa-1-big-Statistics.db", "Statistics.db", 100)
	_ = d.UTF() // length 5, only 2 bytes left
	_ = d.U64()
	err := d.Err()
	if !errors.Is(err, ErrCorruption) {
		t.Fatalf("want a corruption error, got %v", err)
	}
	for _, s := range []string{"/x/oa-1-big-Statistics.db", "Statistics.db", "offset 102"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not name %q", err, s)
		}
	}
}

// BenchmarkUVint reads vints of the lengths a Data.db holds (mostly one
// byte: flags-relative deltas and small sizes; some two and three bytes;
// a few full ones) through one reused Decbuf, as the row decoder does.
func BenchmarkUVint(b *testing.B) {
	var buf []byte
	for i := range 64 {
		switch {
		case i%16 == 0:
			buf = append(buf, 0xff, 1, 2, 3, 4, 5, 6, 7, 8)
		case i%4 == 0:
			buf = append(buf, 0xc0|byte(i), 0x12, 0x34)
		case i%2 == 0:
			buf = append(buf, 0x80|byte(i), 0x56)
		default:
			buf = append(buf, byte(i))
		}
	}
	d := NewDecbuf(buf, "f", "Data.db", 0)
	b.ReportAllocs()
	b.SetBytes(int64(len(buf)))
	var sum uint64
	for b.Loop() {
		d.Reset(buf, 0)
		for d.Len() > 0 {
			sum += d.UVint()
		}
	}
	if d.Err() != nil || sum == 0 {
		b.Fatal(d.Err())
	}
}
