package flightserver

import (
	"bytes"
	"fmt"
	"math"
	"testing"

	"github.com/sstable-flight/sstable-flight/flightserver/request"
)

// TestSplitCount sizes splits by row estimates, within bounds.
func TestSplitCount(t *testing.T) {
	for _, c := range []struct {
		req  int
		p    int64
		want int
	}{{0, 0, 1}, {0, 1, 1}, {0, rowsPerSplit, 1}, {0, rowsPerSplit + 1, 2}, {5, 1, 5}, {0, math.MaxInt64 / 2, request.MaxSplits}} {
		t.Run(fmt.Sprintf("%d rows of %d", c.req, c.p), func(t *testing.T) {
			if got := splitCount(c.req, c.p); got != c.want {
				t.Errorf("splitCount(%d, %d) = %d, want %d", c.req, c.p, got, c.want)
			}
		})
	}
}

// TestTicketSizeBound: long keys are grouped so every ticket stays under
// maxTicketBytes, and a ticket that cannot (clustering bounds of many
// long values) is refused at planning, never issued.
func TestTicketSizeBound(t *testing.T) {
	keys := testKeys(t)
	long := make([][]byte, 300)
	for i := range long {
		long[i] = append(bytes.Repeat([]byte{'k'}, request.MaxKeyBytes-2), byte(i>>8), byte(i))
	}
	sortByToken(long) // as planning orders them
	groups := groupKeys(long)
	n := 0
	for _, g := range groups {
		n += len(g)
		b, err := keys.Seal(&request.Ticket{Keyspace: "ks", Table: "t", Keys: g, Now: 1, Epoch: "e"})
		if err != nil {
			t.Fatalf("a group of %d long keys: %v", len(g), err)
		}
		if _, err := keys.Open(b); err != nil {
			t.Fatalf("a group of %d long keys does not open: %v", len(g), err)
		}
	}
	if n != len(long) || len(groups) < 2 {
		t.Fatalf("%d keys in %d groups", n, len(groups))
	}
	if g := groupKeys(make([][]byte, 600)); len(g) != 3 || len(g[0]) != request.KeysPerTicket {
		t.Fatalf("600 short keys: %d groups", len(g))
	}
	big := make([][]byte, 8)
	for i := range big {
		big[i] = bytes.Repeat([]byte{'x'}, request.MaxKeyBytes)
	}
	_, err := keys.Seal(&request.Ticket{Keyspace: "ks", Table: "t", Keys: [][]byte{{1}}, Now: 1, Epoch: "e",
		Slice: &request.TicketSlice{HasStart: true, Start: big, HasEnd: true, End: big}})
	if err == nil || !bytes.Contains([]byte(err.Error()), []byte("a ticket may hold")) {
		t.Fatalf("a ticket over the limit: %v", err)
	}
}

// testKeys are ticket keys for tests of the package.
func testKeys(t testing.TB) *request.TicketKeys {
	t.Helper()
	k, err := request.LoadTicketKeys("")
	if err != nil {
		t.Fatal(err)
	}
	return k
}
