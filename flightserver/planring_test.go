package flightserver

import (
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/sstable-flight/sstable-flight/flightserver/request"
	"github.com/sstable-flight/sstable-flight/token"
)

func host(b byte) uuid.UUID {
	var h uuid.UUID
	h[15] = b
	return h
}

// TestBalanceRFAll: where every node replicates every range (RF = N) and
// one node is every range's primary, primary-first would send it the
// whole scan; balance gives each server a third, and lists every
// replica's server for fallback.
func TestBalanceRFAll(t *testing.T) {
	servers := map[uuid.UUID]string{host(1): "grpc://a:1", host(2): "grpc://b:1", host(3): "grpc://c:1"}
	var splits []ringSplit
	for range 30 {
		splits = append(splits, ringSplit{t: &request.Ticket{}, servers: []uuid.UUID{host(1), host(2), host(3)}, weight: 1.0 / 30})
	}
	locs, err := balance(splits, servers)
	if err != nil {
		t.Fatal(err)
	}
	first := map[string]int{}
	for _, l := range locs {
		if len(l) != 3 {
			t.Fatalf("locations %v, want all three servers", l)
		}
		first[l[0]]++
	}
	for uri, n := range first {
		if n != 10 {
			t.Errorf("%s first for %d of 30 splits, want 10", uri, n)
		}
	}
}

// TestBalanceUnproven: a replica without a proven server is left out of
// the locations; a split with none is an error naming its range.
func TestBalanceUnproven(t *testing.T) {
	servers := map[uuid.UUID]string{host(1): "grpc://a:1"}
	locs, err := balance([]ringSplit{{t: &request.Ticket{Range: &[2]token.Token{0, 10}}, servers: []uuid.UUID{host(2), host(1)}, weight: 1}}, servers)
	if err != nil || len(locs[0]) != 1 || locs[0][0] != "grpc://a:1" {
		t.Fatalf("locations %v, %v: want only the proven server", locs, err)
	}
	_, err = balance([]ringSplit{{t: &request.Ticket{Range: &[2]token.Token{0, 10}}, servers: []uuid.UUID{host(2), host(3)}, weight: 1}}, servers)
	if err == nil || !strings.Contains(err.Error(), "range (0,10]") {
		t.Fatalf("no proven server: %v, want an error naming range (0,10]", err)
	}
}
