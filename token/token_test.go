package token_test

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/sstable-flight/sstable-flight/internal/testkit/corpus"
	"github.com/sstable-flight/sstable-flight/sstable/marshal"
	"github.com/sstable-flight/sstable-flight/token"
	"github.com/sstable-flight/sstable-flight/token/murmur3"
)

// TestOfVectors pins tokens for keys whose 1..15 tail bytes
// include bytes >= 0x80, where Cassandra's sign-extending variant parts
// from the reference murmur3, at lengths 1, 2, 4, 8, 15, 16, 17 and 31
// (length 0 is in TestOfEdges).
//
// The expected values were not produced by this package. cassandra is
// computed with the DataStax Python driver's C murmur3
// (cassandra.cmurmur3.murmur3 from cassandra-driver 3.30.1), which the
// driver uses to route requests by token and so must match the server's
// variant; reference is the standard x64 128-bit murmur3's first half,
// mmh3.hash64(key, seed=0, signed=True)[0] from mmh3 5.3.1. The two were
// found to agree exactly when sign extension sets no bit (see
// signExtensionMatters), which the test re-asserts, so each row also
// proves the key does (or does not) exercise the sign extension.
func TestOfVectors(t *testing.T) {
	for _, tc := range []struct {
		key       string
		cassandra token.Token
		reference token.Token
	}{
		{"\x61", -8839064797231613815, -8839064797231613815},
		{"\x80", -5284281814142962636, 7017059463262962058},
		{"\xff", -4442228696663692417, 5177511712917721324},
		{"\x80\x61\x62\x63", -6235373423867717473, -3867863878814728999},
		{"\x61\x62\x63\x80", 1859096347584414759, 7948663891599648717},
		{"\xc3\xa9", 5461403030378599040, -3956277427552623640}, // "é"
		{"0123456789abcd\xe9", 1432002972628278117, 8556466414404565050},
		{"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff", -2195530867418009455, 3214754608959450708},
		{"abcdefg\x80", -4040902534363611207, -4040902534363611207}, // high byte on top of k1: no bits to extend
		{"\x80bcdefgh", -9031942972105599168, 2057140093730433049},
		{"0123456789abcdef", 5467490433528156583, 5467490433528156583},
		{"\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80", -3634615257541804556, -3634615257541804556},
		{"0123456789abcdef\xfe", 305122502187426439, 1245568645597634372},
		{"0123456789abcdefg", -8200385122730116642, -8200385122730116642},
		{"\x90\x91\x92\x93\x94\x95\x96\x97\x98\x99\x9a\x9b\x9c\x9d\x9e\x9f" +
			"\x80\x01\xa0\x02\xb0\x03\xc0\x04\xd0\x05\xe0\x06\xf0\x07\xff", -4480553314824862783, 6735151925040213601},
		{"0123456789abcde\xc3\xa9", 7957485618791450925, 2197101878263172869}, // "é" straddling the block edge
		{"0123456789abcdef0123456789abcde", -7279034606055215360, -7279034606055215360},
	} {
		key := []byte(tc.key)
		if got := token.Of(key); got != tc.cassandra {
			t.Errorf("key %x (len %d): Of = %d, want %d", key, len(key), got, tc.cassandra)
		}
		if differs := tc.cassandra != tc.reference; differs != signExtensionMatters(key) {
			t.Errorf("key %x: cassandra and reference tokens differ = %v, but sign extension matters = %v",
				key, differs, signExtensionMatters(key))
		}
	}
}

func TestOfEdges(t *testing.T) {
	// getToken returns MINIMUM for an empty key, not the hash of nothing
	// (which is 0).
	if got := token.Of(nil); got != math.MinInt64 {
		t.Errorf("token.Of(nil) = %d, want %d", got, int64(math.MinInt64))
	}
	if got := token.Of([]byte{}); got != math.MinInt64 {
		t.Errorf("token.Of(empty) = %d, want %d", got, int64(math.MinInt64))
	}

	// This 16-byte key was found by inverting murmur3 for first half
	// math.MinInt64 (as Cassandra's LongToken.keyForToken does); both
	// cassandra.cmurmur3.murmur3 and mmh3.hash64 return math.MinInt64 for
	// it. Cassandra keeps the minimum token for no real key, so it must map
	// to math.MaxInt64.
	minKey, err := hex.DecodeString("653cbefb85ec3111b4e38fa9bc7cbcae")
	if err != nil {
		t.Fatalf("decode key hashing to MinInt64: %v", err)
	}
	if raw := func() int64 { h, _ := murmur3.Sum128(minKey); return int64(h) }(); raw != math.MinInt64 {
		t.Fatalf("raw hash of %x = %d, want %d", minKey, raw, int64(math.MinInt64))
	}
	if got := token.Of(minKey); got != math.MaxInt64 {
		t.Errorf("token.Of(%x) = %d, want %d", minKey, got, int64(math.MaxInt64))
	}
}

// TestOfCorpus recomputes the token of every row of every table
// that a real Cassandra 5.0.9 wrote in all three formats, from the row's
// partition-key values, and checks it against the token Cassandra reported.
func TestOfCorpus(t *testing.T) {
	checked, signExtended := 0, 0
	cases := corpus.NewCases(t)
	for _, mode := range corpus.Modes {
		files, err := filepath.Glob(filepath.Join("..", "testdata", "corpus", mode, "corpus", "*", "expected.json"))
		if err != nil {
			t.Fatalf("list %s corpus: %v", mode, err)
		}
		if len(files) == 0 {
			t.Fatalf("list %s corpus: no expected.json found", mode)
		}
		for _, file := range files {
			dir := filepath.Base(filepath.Dir(file))
			table := mode + "/" + dir[:strings.LastIndexByte(dir, '-')]
			cases.Run(table, func(t *testing.T) {
				n, h := checkCorpusTokens(t, table, file)
				checked += n
				signExtended += h
			})
		}
	}
	t.Logf("checked %d rows, %d whose key Cassandra sign-extends", checked, signExtended)
	// Floors on the whole corpus: they hold only when every table ran.
	if !cases.All() {
		return
	}
	if checked <= 1000 {
		t.Errorf("checked %d rows, want > 1000", checked)
	}
	// Without such keys the corpus would not tell the sign-extending
	// variant from the reference one.
	if signExtended == 0 {
		t.Errorf("no corpus key has a tail byte that Cassandra sign-extends")
	}
}

type corpusExpected struct {
	Columns []struct {
		Name     string
		Type     string
		Kind     string
		Position int
	}
	Rows []struct {
		Token  string
		Values map[string]any
	}
}

// checkCorpusTokens checks every row of one expected.json and returns how
// many rows it checked and for how many of their keys sign extension mattered.
func checkCorpusTokens(t *testing.T, table, file string) (checked, signExtended int) {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatalf("open %s: %v", file, err)
	}
	defer f.Close()
	dec := json.NewDecoder(f)
	dec.UseNumber() // ints and tokens must not pass through float64
	var exp corpusExpected
	if err := dec.Decode(&exp); err != nil {
		t.Fatalf("decode %s: %v", file, err)
	}

	var pk []tokenKeyColumn
	for _, c := range exp.Columns {
		if c.Kind == "partition_key" {
			pk = append(pk, tokenKeyColumn{c.Name, c.Type, c.Position})
		}
	}
	// The composite serializes components in key order, not schema order.
	slices.SortFunc(pk, func(a, b tokenKeyColumn) int { return cmp.Compare(a.position, b.position) })
	if len(pk) == 0 {
		t.Fatalf("%s: no partition_key column", table)
	}
	if len(exp.Rows) == 0 {
		t.Fatalf("%s: no rows", table)
	}

	parts := make([][]byte, len(pk))
	for i, row := range exp.Rows {
		for j, c := range pk {
			b, err := serializeKeyValue(c.typ, row.Values[c.name])
			if err != nil {
				t.Fatalf("%s row %d: serialize partition-key column %s: %v", table, i, c.name, err)
			}
			parts[j] = b
		}
		key := parts[0]
		if len(parts) > 1 {
			key = marshal.AppendComposite(nil, parts...)
		}
		want, err := strconv.ParseInt(row.Token, 10, 64)
		if err != nil {
			t.Fatalf("%s row %d: parse token %q: %v", table, i, row.Token, err)
		}
		if got := token.Of(key); got != token.Token(want) {
			t.Errorf("%s row %d: key %v (bytes %x): token %d, Cassandra says %d",
				table, i, describeKey(pk, row.Values), key, got, want)
		}
		checked++
		if signExtensionMatters(key) {
			signExtended++
		}
	}
	return checked, signExtended
}

type tokenKeyColumn struct {
	name, typ string
	position  int
}

// serializeKeyValue returns Cassandra's serialization of a canonical JSON
// value of a partition-key column. An unsupported type is an error so a
// new corpus table cannot be silently left unchecked.
func serializeKeyValue(typ string, v any) ([]byte, error) {
	switch typ {
	case "int":
		n, ok := v.(json.Number)
		if !ok {
			return nil, fmt.Errorf("int value %v is %T, want a JSON number", v, v)
		}
		i, err := strconv.ParseInt(string(n), 10, 32)
		if err != nil {
			return nil, fmt.Errorf("parse int %s: %w", n, err)
		}
		return binary.BigEndian.AppendUint32(nil, uint32(i)), nil
	case "bigint":
		s, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("bigint value %v is %T, want a decimal string", v, v)
		}
		i, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("parse bigint %q: %w", s, err)
		}
		return binary.BigEndian.AppendUint64(nil, uint64(i)), nil
	case "text":
		s, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("text value %v is %T, want a JSON string", v, v)
		}
		return []byte(s), nil
	default:
		return nil, fmt.Errorf("partition-key type %q is not supported by this test", typ)
	}
}

func describeKey(pk []tokenKeyColumn, values map[string]any) string {
	var b bytes.Buffer
	for i, c := range pk {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s=%q", c.name, fmt.Sprint(values[c.name]))
	}
	return b.String()
}

// signExtensionMatters reports whether Cassandra's variant mixes different
// words than the reference murmur3 for key: some byte of the len%16 tail
// is >= 0x80 and is not tail byte 7, the top byte of k1, above which
// sign extension has no bits left to set.
func signExtensionMatters(key []byte) bool {
	for i, b := range key[len(key)&^15:] {
		if b >= 0x80 && i != 7 {
			return true
		}
	}
	return false
}

// TestCompareDecorated: keys order by token, then by unsigned bytes; the
// empty key, of the minimum token, sorts first.
func TestCompareDecorated(t *testing.T) {
	cmpKeys := func(a, b []byte) int { return token.CompareDecorated(token.Of(a), a, token.Of(b), b) }
	if cmpKeys(nil, []byte{0}) >= 0 {
		t.Error("empty key must sort first")
	}
	if c := token.CompareDecorated(5, []byte{0x80}, 5, []byte{0x7f}); c <= 0 {
		t.Errorf("equal tokens: 0x80 vs 0x7f = %d, want > 0 (unsigned bytes)", c)
	}
	if c := token.CompareDecorated(-1, []byte{0xff}, 1, []byte{0x00}); c >= 0 {
		t.Errorf("token -1 vs 1 = %d, want < 0 (signed tokens before bytes)", c)
	}
	if c := token.CompareDecorated(3, []byte("k"), 3, []byte("k")); c != 0 {
		t.Errorf("same key = %d, want 0", c)
	}
}
