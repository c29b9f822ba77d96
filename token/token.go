package token

import (
	"bytes"
	"cmp"
	"fmt"
	"math"
	"strconv"

	"github.com/sstable-flight/sstable-flight/token/murmur3"
)

// Token is a Murmur3Partitioner token: the place of a partition key on
// the ring, ordered as a signed 64-bit integer.
type Token int64

// Min is the partitioner's minimum token. No key has it (a hash that would
// be math.MinInt64 is moved to Max), so it serves as the exclusive start
// of a range that begins at the ring's start. Max is the largest token.
const (
	Min Token = math.MinInt64
	Max Token = math.MaxInt64
)

// Of returns the token Cassandra's Murmur3Partitioner gives the
// serialized partition key key. For a multi-column partition key, pass the
// output of marshal.AppendComposite.
//
// It is the first 64-bit half of the x64 128-bit MurmurHash3 of key with
// seed 0 (murmur3.Sum128), read as a signed int64, with two Cassandra
// rules on top:
//   - an empty key gets the minimum token, Min, not the hash of nothing
//     (Murmur3Partitioner.getToken);
//   - a hash of Min becomes Max, so that no real key owns the minimum
//     token, which ranges use as an exclusive start.
//
// The hash is Cassandra's variant, not the reference one: Cassandra mixes
// the trailing len(key)%16 bytes as Java signed bytes widened to long, so
// each tail byte >= 0x80 sets every bit above its position. Tokens differ
// from a standard murmur3 whenever such a byte is in the tail; tokens must
// match Cassandra's bit for bit, since they order partitions on disk and
// place them on the ring.
//
// It does not allocate: it runs once per partition key read.
func Of(key []byte) Token {
	if len(key) == 0 {
		return Min
	}
	h1, _ := murmur3.Sum128(key)
	if t := Token(h1); t != Min {
		return t
	}
	return Max
}

// CompareDecorated orders partition keys as Cassandra does
// (DecoratedKey.compareTo): by token, then by unsigned key bytes. ta and
// tb are the tokens of a and b, which callers usually hold already.
func CompareDecorated(ta Token, a []byte, tb Token, b []byte) int {
	if c := cmp.Compare(ta, tb); c != 0 {
		return c
	}
	return bytes.Compare(a, b)
}

// UnmarshalJSON reads a token from a JSON number or a string holding one:
// int64 exceeds what many JSON clients keep exact, so they send strings.
func (t *Token) UnmarshalJSON(b []byte) error {
	b = bytes.Trim(b, `"`)
	v, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil {
		return fmt.Errorf("read token %s: %w", b, err)
	}
	*t = Token(v)
	return nil
}

// MarshalJSON writes a token as a JSON string, for the same reason.
func (t Token) MarshalJSON() ([]byte, error) {
	return []byte(`"` + strconv.FormatInt(int64(t), 10) + `"`), nil
}
