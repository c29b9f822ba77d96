package flightserver

import (
	"context"
	"errors"
	"testing"

	"github.com/sstable-flight/sstable-flight/flightserver/request"
	"github.com/sstable-flight/sstable-flight/flightserver/ring"
	"github.com/sstable-flight/sstable-flight/token"
)

// TestCheckOwnedWithoutRing: a server that plans no ring refuses a ring
// ticket as not its node's (FAILED_PRECONDITION), never reads it whole.
func TestCheckOwnedWithoutRing(t *testing.T) {
	s := &service{}
	err := s.checkOwned(context.Background(), &request.Ticket{Keyspace: "k", Table: "t", Range: &[2]token.Token{1, 2}, Ring: true})
	if !errors.Is(err, ring.ErrNotOwned) {
		t.Fatalf("ring ticket on a server without a ring: %v, want ring.ErrNotOwned", err)
	}
}
