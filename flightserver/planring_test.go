package flightserver

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sstable-flight/sstable-flight/cluster"
	"github.com/sstable-flight/sstable-flight/flightserver/request"
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
	locs, err := balance([]ringSplit{{t: &request.Ticket{Range: &[2]request.Token{0, 10}}, servers: []uuid.UUID{host(2), host(1)}, weight: 1}}, servers)
	if err != nil || len(locs[0]) != 1 || locs[0][0] != "grpc://a:1" {
		t.Fatalf("locations %v, %v: want only the proven server", locs, err)
	}
	_, err = balance([]ringSplit{{t: &request.Ticket{Range: &[2]request.Token{0, 10}}, servers: []uuid.UUID{host(2), host(3)}, weight: 1}}, servers)
	if err == nil || !strings.Contains(err.Error(), "range (0,10]") {
		t.Fatalf("no proven server: %v, want an error naming range (0,10]", err)
	}
}

func TestIntersect(t *testing.T) {
	whole := cluster.Range{Start: cluster.MinToken, End: cluster.MinToken}
	for _, c := range []struct {
		a, b cluster.Range
		want []cluster.Range
	}{
		{cluster.Range{Start: 0, End: 10}, whole, []cluster.Range{{Start: 0, End: 10}}},
		{cluster.Range{Start: 10, End: 0}, whole, []cluster.Range{{Start: cluster.MinToken, End: 0}, {Start: 10, End: math.MaxInt64}}},
		{cluster.Range{Start: 10, End: 0}, cluster.Range{Start: -5, End: 20}, []cluster.Range{{Start: -5, End: 0}, {Start: 10, End: 20}}},
		{cluster.Range{Start: 0, End: 10}, cluster.Range{Start: 10, End: 20}, nil},
	} {
		t.Run(fmt.Sprintf("%s∩%s", c.a, c.b), func(t *testing.T) {
			got := intersect(c.a, c.b)
			if len(got) != len(c.want) {
				t.Errorf("%s ∩ %s = %v, want %v", c.a, c.b, got, c.want)
				return
			}
			for i := range got {
				if got[i] != c.want[i] {
					t.Errorf("%s ∩ %s = %v, want %v", c.a, c.b, got, c.want)
				}
			}
		})
	}
}

// TestPeerChecksCache: a peer is asked once per TTL, a failure again
// after a fifth of it, one naming another node is never used, and URIs
// no longer claimed leave the cache.
func TestPeerChecksCache(t *testing.T) {
	// verified asks the peers at once: the count is locked.
	var mu sync.Mutex
	asked := map[string]int{}
	p := &peerChecks{ttl: time.Hour, timeout: time.Second, proven: map[string]peerCheck{},
		ask: func(_ context.Context, uri, _ string) (uuid.UUID, error) {
			mu.Lock()
			asked[uri]++
			mu.Unlock()
			switch uri {
			case "grpc://a:1":
				return host(1), nil
			case "grpc://b:1":
				return host(3), nil // answers for another node
			}
			return uuid.Nil, errors.New("connection refused")
		}}
	claimed := map[uuid.UUID]string{host(1): "grpc://a:1", host(2): "grpc://b:1", host(3): "grpc://c:1"}
	for range 2 {
		ok, why := p.verified(context.Background(), claimed)
		if len(ok) != 1 || ok[host(1)] != "grpc://a:1" || len(why) != 2 {
			t.Fatalf("verified %v, left out %v: want only node 1's server", ok, why)
		}
	}
	if asked["grpc://a:1"] != 1 || asked["grpc://b:1"] != 1 || asked["grpc://c:1"] != 1 {
		t.Fatalf("asked %v: want each once within the TTL", asked)
	}
	p.verified(context.Background(), map[uuid.UUID]string{host(1): "grpc://a:1"})
	if len(p.proven) != 1 {
		t.Fatalf("cache holds %d peers after the ring shrank to one", len(p.proven))
	}
}
