package vint_test

import (
	"bytes"
	"errors"
	"math"
	"testing"

	"github.com/sstable-flight/sstable-flight/sstable/internal/vint"
)

// TestUvintVectors pins encodings as Cassandra's VIntCoding writes them.
func TestUvintVectors(t *testing.T) {
	for _, tc := range []struct {
		v   uint64
		enc []byte
	}{
		{0, []byte{0x00}},
		{127, []byte{0x7f}},
		{128, []byte{0x80, 0x80}},
		{16383, []byte{0xbf, 0xff}},
		{16384, []byte{0xc0, 0x40, 0x00}},
		{1<<56 - 1, []byte{0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}},
		{1 << 56, []byte{0xff, 0x01, 0, 0, 0, 0, 0, 0, 0}},
		{math.MaxUint64, []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}},
	} {
		if got := vint.AppendUvint(nil, tc.v); !bytes.Equal(got, tc.enc) {
			t.Errorf("AppendUvint(%d) = % x, want % x", tc.v, got, tc.enc)
		}
		v, n, err := vint.ReadUvint(tc.enc)
		if v != tc.v || n != len(tc.enc) || err != nil {
			t.Errorf("ReadUvint(% x) = %d, %d, %v; want %d, %d, nil", tc.enc, v, n, err, tc.v, len(tc.enc))
		}
	}
}

// TestUvintEveryLength round-trips the smallest and largest value of
// every length, 1 to 9 bytes, checks the length against UvintSize, and
// that every proper prefix is an error, never a panic.
func TestUvintEveryLength(t *testing.T) {
	for size := 1; size <= 9; size++ {
		lo, hi := uint64(0), uint64(math.MaxUint64)
		if size > 1 {
			lo = 1 << (7 * (size - 1))
		}
		if size < 9 {
			hi = 1<<(7*size) - 1
		}
		for _, v := range []uint64{lo, lo + 1, hi - 1, hi} {
			enc := vint.AppendUvint([]byte{0xee}, v)[1:] // appends, keeping dst
			if len(enc) != size || vint.UvintSize(enc[0]) != size {
				t.Errorf("%d: encoded in %d bytes (UvintSize %d), want %d", v, len(enc), vint.UvintSize(enc[0]), size)
			}
			// Trailing bytes are not read.
			got, n, err := vint.ReadUvint(append(enc, 0xaa, 0xbb))
			if got != v || n != size || err != nil {
				t.Errorf("ReadUvint(% x) = %d, %d, %v; want %d, %d", enc, got, n, err, v, size)
			}
			for cut := range size {
				if _, n, err := vint.ReadUvint(enc[:cut]); !errors.Is(err, vint.ErrMalformed) || n != 0 {
					t.Errorf("ReadUvint(% x), %d of %d bytes: n %d, err %v; want ErrMalformed", enc[:cut], cut, size, n, err)
				}
			}
		}
	}
}

// TestUvintLongForm reads a value written in more bytes than needed:
// Cassandra reads any form, so a reader must too.
func TestUvintLongForm(t *testing.T) {
	if v, n, err := vint.ReadUvint([]byte{0x80, 0x05}); v != 5 || n != 2 || err != nil {
		t.Errorf("ReadUvint(80 05) = %d, %d, %v; want 5, 2, nil", v, n, err)
	}
}

func TestVintZigzag(t *testing.T) {
	for enc, want := range map[byte]int64{0: 0, 1: -1, 2: 1, 3: -2, 0x7f: -64} {
		if v, n, err := vint.ReadVint([]byte{enc}); v != want || n != 1 || err != nil {
			t.Errorf("ReadVint(%#x) = %d, %d, %v; want %d", enc, v, n, err, want)
		}
	}
	for _, v := range []int64{0, 1, -1, 63, -64, 64, -65, math.MaxInt32, math.MinInt32, math.MaxInt64, math.MinInt64} {
		enc := vint.AppendVint(nil, v)
		got, n, err := vint.ReadVint(enc)
		if got != v || n != len(enc) || err != nil {
			t.Errorf("vint %d: encoded % x, read %d, %d, %v", v, enc, got, n, err)
		}
	}
	for u, v := range map[uint64]int64{0: 0, 1: -1, 2: 1, 3: -2, math.MaxUint64 - 1: math.MaxInt64, math.MaxUint64: math.MinInt64} {
		if got := vint.DecodeZigZag(u); got != v {
			t.Errorf("DecodeZigZag(%d) = %d, want %d", u, got, v)
		}
		if got := vint.EncodeZigZag(v); got != u {
			t.Errorf("EncodeZigZag(%d) = %d, want %d", v, got, u)
		}
	}
	if _, _, err := vint.ReadVint(nil); !errors.Is(err, vint.ErrMalformed) {
		t.Errorf("ReadVint(nil): err %v, want ErrMalformed", err)
	}
}

// TestUvintNoAllocs: decoders on hot paths (row decoding, Arrow appends,
// comparators) call ReadUvint per value, malformed or not.
func TestUvintNoAllocs(t *testing.T) {
	good, short := []byte{0xc0, 0x40, 0x00}, []byte{0xc0, 0x40}
	var buf [9]byte
	if a := testing.AllocsPerRun(100, func() {
		_, _, _ = vint.ReadUvint(good)
		_, _, _ = vint.ReadUvint(short)
		_ = vint.AppendUvint(buf[:0], math.MaxUint64)
	}); a != 0 {
		t.Errorf("%v allocations per run, want 0", a)
	}
}

// FuzzUvint: any bytes read without a panic; what reads re-encodes to
// the same value in at most as many bytes (the shortest form), and
// reads back from that.
func FuzzUvint(f *testing.F) {
	for _, s := range [][]byte{{}, {0}, {0x7f}, {0x80, 0x80}, {0xc0, 0x40}, {0xfe}, {0xff, 1, 2, 3, 4, 5, 6, 7, 8}, {0x80, 0x05}} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		v, n, err := vint.ReadUvint(b)
		if err != nil {
			if !errors.Is(err, vint.ErrMalformed) || n != 0 {
				t.Fatalf("% x: n %d, err %v", b, n, err)
			}
			if len(b) > 0 && vint.UvintSize(b[0]) <= len(b) {
				t.Fatalf("% x: error %v though all %d bytes are there", b, err, vint.UvintSize(b[0]))
			}
			return
		}
		if n != vint.UvintSize(b[0]) || n > len(b) {
			t.Fatalf("% x: n %d, UvintSize %d", b, n, vint.UvintSize(b[0]))
		}
		enc := vint.AppendUvint(nil, v)
		if len(enc) > n {
			t.Fatalf("% x: %d re-encodes in %d bytes, more than %d", b, v, len(enc), n)
		}
		if w, m, err := vint.ReadUvint(enc); w != v || m != len(enc) || err != nil {
			t.Fatalf("%d: % x reads as %d, %d, %v", v, enc, w, m, err)
		}
		// Zigzag is a bijection: the signed value re-encodes to the same bytes.
		s, m, err := vint.ReadVint(b)
		if m != n || err != nil || !bytes.Equal(vint.AppendVint(nil, s), enc) {
			t.Fatalf("% x: signed read %d, %d, %v", b, s, m, err)
		}
	})
}
