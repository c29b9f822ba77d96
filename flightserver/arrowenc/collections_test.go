package arrowenc_test

import (
	"errors"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/sstable-flight/sstable-flight/flightserver/arrowenc"
	"github.com/sstable-flight/sstable-flight/sstable/marshal"
)

// TestAppendFramingErrors: a value whose collection, tuple or vector
// framing does not fit its bytes is refused with an error that says which
// element and what did not fit, wrapping both this package's ErrMalformed
// and marshal's, whose reader found the fault.
func TestAppendFramingErrors(t *testing.T) {
	cases := []struct {
		name string
		typ  *marshal.Type
		in   []byte
		want string
	}{
		{"count", listOf(nat(marshal.Int)), append(be32(3), lp(be32(1))...),
			"append list<int> value of 12 bytes: malformed value: element count 3 does not fit in 12 bytes"},
		{"element overruns", listOf(nat(marshal.Int)), coll(be32(1), be32(2))[:17],
			"append list<int> value of 17 bytes: element 1: malformed value: length 4 at byte 12 overruns the 17 bytes of the value"},
		{"map value truncated", mapOf(nat(marshal.Int), nat(marshal.Int)), append(be32(1), append(lp(be32(1)), 0, 0)...),
			"append map<int, int> value of 14 bytes: element 0: malformed value: length truncated at byte 12 of 14"},
		{"trailing", listOf(nat(marshal.Int)), append(coll(be32(1)), 0),
			"append list<int> value of 13 bytes: malformed value: 1 bytes left after the last element"},
		{"field", address(), be32(3),
			"append frozen<address> value of 4 bytes: field street: malformed value: length 3 at byte 0 overruns the 4 bytes of the value"},
		{"fixed vector", vectorOf(nat(marshal.Float), 3), append(f32(1), f32(2)...),
			"append vector<float, 3> value of 8 bytes: malformed value: 8 bytes, want 12: 3 elements of 4 bytes"},
		{"vint vector", vectorOf(nat(marshal.Text), 2), vvec([]byte("ab"), []byte("cd"))[:5],
			"append vector<text, 2> value of 5 bytes: element 1: malformed value: length 2 at byte 3 overruns the 5 bytes of the value"},
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, a := newAppender(t, mem, c.typ)
			defer b.Release()
			err := a.Append(c.in)
			if err == nil || err.Error() != c.want {
				t.Fatalf("error %v, want %q", err, c.want)
			}
			if !errors.Is(err, arrowenc.ErrMalformed) || !errors.Is(err, marshal.ErrMalformed) {
				t.Errorf("error %v does not wrap both ErrMalformed", err)
			}
			if b.Len() != 0 {
				t.Errorf("failed append left %d values", b.Len())
			}
		})
	}
}
