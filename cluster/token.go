package cluster

import (
	"fmt"
	"math"

	"github.com/sstable-flight/sstable-flight/sstable"
)

// Token is a Murmur3Partitioner token: the place of a partition key on
// the ring, ordered as a signed 64-bit integer.
type Token int64

// MinToken is the partitioner's minimum token. No key has it (a hash
// that would be math.MinInt64 is moved to math.MaxInt64), so it serves
// as the exclusive start of a range that begins at the ring's start.
const MinToken Token = math.MinInt64

// KeyToken is the token of the serialized partition key key (for a
// multi-column key, the composite serialization), as Cassandra places it.
func KeyToken(key []byte) Token { return Token(sstable.Murmur3Token(key)) }

// Range is the token range (Start, End], Cassandra's Range<Token>: a
// token range owned by a ring token starts after the token before it and
// ends at (includes) the token itself. When Start >= End the range wraps
// around the end of the ring: it holds the tokens above Start and those
// up to End. Start == End is the whole ring, as for a ring of one token.
type Range struct {
	Start, End Token
}

// Contains reports whether t falls in (Start, End].
func (r Range) Contains(t Token) bool {
	if r.Start < r.End {
		return r.Start < t && t <= r.End
	}
	return t > r.Start || t <= r.End
}

// Wraps reports whether the range passes the end of the ring (Start >=
// End), so that reading it in token order takes two pieces: (Start, max]
// and (min, End].
func (r Range) Wraps() bool { return r.Start >= r.End }

// String prints the range as nodetool does, (start,end].
func (r Range) String() string { return fmt.Sprintf("(%d,%d]", r.Start, r.End) }
