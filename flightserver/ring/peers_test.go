package ring

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
)

func host(b byte) uuid.UUID {
	var h uuid.UUID
	h[15] = b
	return h
}

// TestPeerChecksCache: a peer is asked once per TTL, a failure again
// after a fifth of it, one naming another node is never used, and URIs
// no longer claimed leave the cache.
func TestPeerChecksCache(t *testing.T) {
	// verified asks the peers at once: the count is locked.
	var mu sync.Mutex
	asked := map[string]int{}
	p := &PeerChecks{ttl: time.Hour, timeout: time.Second, proven: map[string]peerCheck{},
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
		ok, why := p.Verified(context.Background(), claimed)
		if len(ok) != 1 || ok[host(1)] != "grpc://a:1" || len(why) != 2 {
			t.Fatalf("verified %v, left out %v: want only node 1's server", ok, why)
		}
	}
	if asked["grpc://a:1"] != 1 || asked["grpc://b:1"] != 1 || asked["grpc://c:1"] != 1 {
		t.Fatalf("asked %v: want each once within the TTL", asked)
	}
	p.Verified(context.Background(), map[uuid.UUID]string{host(1): "grpc://a:1"})
	if len(p.proven) != 1 {
		t.Fatalf("cache holds %d peers after the ring shrank to one", len(p.proven))
	}
}
