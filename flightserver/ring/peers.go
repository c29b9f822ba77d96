package ring

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/google/uuid"
)

// PeerChecks proves peers: a URI a PeerSource gives for a node is used
// only once the server there answered node-info with that node's host
// ID. Answers are kept PeerTTL (failures a fifth of it), for the URIs
// of the last ring only, so the cache is bounded by the cluster's size.
type PeerChecks struct {
	ttl, timeout time.Duration
	token        string // the server's own bearer token, sent to peers
	ask          func(ctx context.Context, uri, token string) (uuid.UUID, error)

	mu     sync.Mutex
	proven map[string]peerCheck // by URI
}

type peerCheck struct {
	host uuid.UUID
	err  error
	at   time.Time // real time
}

func NewPeerChecks(ttl, timeout time.Duration, token string, ask func(ctx context.Context, uri, token string) (uuid.UUID, error)) *PeerChecks {
	return &PeerChecks{ttl: ttl, timeout: timeout, token: token, ask: ask, proven: map[string]peerCheck{}}
}

// Verified returns the peers of claimed (host ID to URI) whose servers
// proved they serve that host, and why each other one was left out.
// Peers not checked within their TTL are asked at once, together, each
// within PeerTimeout.
func (p *PeerChecks) Verified(ctx context.Context, claimed map[uuid.UUID]string) (map[uuid.UUID]string, map[uuid.UUID]error) {
	now := time.Now()
	p.mu.Lock()
	for uri := range p.proven {
		if !containsValue(claimed, uri) {
			delete(p.proven, uri) // not a peer any more: the cache holds the ring's only
		}
	}
	stale := map[string]bool{}
	for _, uri := range claimed {
		c, ok := p.proven[uri]
		ttl := p.ttl
		if ok && c.err != nil {
			ttl /= 5
		}
		if !ok || now.Sub(c.at) >= ttl {
			stale[uri] = true
		}
	}
	p.mu.Unlock()

	var wg sync.WaitGroup
	results := make(chan struct {
		uri string
		c   peerCheck
	}, len(stale))
	for uri := range stale {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cctx, cancel := context.WithTimeout(ctx, p.timeout)
			defer cancel()
			host, err := p.ask(cctx, uri, p.token)
			results <- struct {
				uri string
				c   peerCheck
			}{uri, peerCheck{host: host, err: err, at: time.Now()}}
		}()
	}
	wg.Wait()
	close(results)

	p.mu.Lock()
	defer p.mu.Unlock()
	for r := range results {
		if ctx.Err() == nil { // a check cut by the caller proves nothing either way
			p.proven[r.uri] = r.c
		}
	}
	ok, why := map[uuid.UUID]string{}, map[uuid.UUID]error{}
	for host, uri := range claimed {
		c, found := p.proven[uri]
		switch {
		case !found:
			why[host] = fmt.Errorf("peer %s of node %s: not checked: %w", uri, host, ctx.Err())
		case c.err != nil:
			why[host] = fmt.Errorf("peer %s of node %s: %w", uri, host, c.err)
		case c.host != host:
			why[host] = fmt.Errorf("peer %s of node %s: it serves node %s", uri, host, c.host)
		default:
			ok[host] = uri
		}
	}
	return ok, why
}

func containsValue(m map[uuid.UUID]string, v string) bool {
	for _, x := range m {
		if x == v {
			return true
		}
	}
	return false
}
