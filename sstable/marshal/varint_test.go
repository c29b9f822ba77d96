package marshal_test

import (
	"bytes"
	"encoding/hex"
	"math/big"
	"math/rand"
	"testing"

	"github.com/sstable-flight/sstable-flight/sstable/marshal"
)

// TestVarIntVectors pins encodings as Java's BigInteger.toByteArray
// writes them: the shortest two's complement, sign bit included.
func TestVarIntVectors(t *testing.T) {
	for _, tc := range []struct{ v, enc string }{
		{"0", "00"}, {"1", "01"}, {"127", "7f"}, {"128", "0080"}, {"255", "00ff"}, {"256", "0100"},
		{"-1", "ff"}, {"-128", "80"}, {"-129", "ff7f"}, {"-256", "ff00"}, {"-257", "feff"},
		{"-65536", "ff0000"}, {"-2361183241434822606848", "800000000000000000"}, // -2^71
		{"1180591620717411303424", "400000000000000000"}, // 2^70
	} {
		v, _ := new(big.Int).SetString(tc.v, 10)
		if got := hex.EncodeToString(marshal.AppendVarInt(nil, v)); got != tc.enc {
			t.Errorf("AppendVarInt(%s) = %s, want %s", tc.v, got, tc.enc)
		}
		enc, _ := hex.DecodeString(tc.enc)
		if got := marshal.DecodeVarInt(enc); got.Cmp(v) != 0 {
			t.Errorf("DecodeVarInt(%s) = %s, want %s", tc.enc, got, tc.v)
		}
	}
	// Longer forms read as Java reads them; empty is zero.
	for enc, want := range map[string]int64{"ffff": -1, "0001": 1, "ff80": -128, "": 0} {
		b, _ := hex.DecodeString(enc)
		if got := marshal.DecodeVarInt(b); got.Int64() != want {
			t.Errorf("DecodeVarInt(%q) = %s, want %d", enc, got, want)
		}
	}
	if got := marshal.AppendVarInt([]byte{0xaa}, big.NewInt(-1)); !bytes.Equal(got, []byte{0xaa, 0xff}) {
		t.Errorf("AppendVarInt appends % x, want aa ff", got)
	}
}

// TestVarIntRoundTrip round-trips random numbers of up to 200 bits of
// either sign and checks that no encoding has a redundant sign byte.
func TestVarIntRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 2000; i++ {
		v := new(big.Int).Rand(rng, new(big.Int).Lsh(big.NewInt(1), uint(rng.Intn(200)+1)))
		if rng.Intn(2) == 0 {
			v.Neg(v)
		}
		enc := marshal.AppendVarInt(nil, v)
		if got := marshal.DecodeVarInt(enc); got.Cmp(v) != 0 {
			t.Fatalf("round trip of %s: % x reads %s", v, enc, got)
		}
		if len(enc) > 1 && (enc[0] == 0 && enc[1]&0x80 == 0 || enc[0] == 0xff && enc[1]&0x80 != 0) {
			t.Fatalf("AppendVarInt(%s) = % x: a redundant sign byte", v, enc)
		}
	}
}
