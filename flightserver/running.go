package flightserver

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"
)

// rpcs are the RPCs running now: what a drain that timed out reports
// it cut.
type rpcs struct {
	mu      sync.Mutex
	running map[*rpc]struct{}
}

type rpc struct {
	method string
	start  time.Time // real time: how long it has run
}

func newRPCs() *rpcs { return &rpcs{running: map[*rpc]struct{}{}} }

func (r *rpcs) begin(method string) *rpc {
	c := &rpc{method: rpcName(method), start: time.Now()}
	r.mu.Lock()
	r.running[c] = struct{}{}
	r.mu.Unlock()
	return c
}

func (r *rpcs) end(c *rpc) {
	r.mu.Lock()
	delete(r.running, c)
	r.mu.Unlock()
}

// describe says how many RPCs run, by method, with the oldest's age:
// "2 RPCs (DoGet ×1 for 4s, GetFlightInfo ×1 for 3.5s)".
func (r *rpcs) describe() string {
	type method struct {
		n      int
		oldest time.Duration
	}
	now := time.Now()
	by := map[string]*method{}
	r.mu.Lock()
	n := len(r.running)
	for c := range r.running {
		m := by[c.method]
		if m == nil {
			m = &method{}
			by[c.method] = m
		}
		m.n++
		m.oldest = max(m.oldest, now.Sub(c.start))
	}
	r.mu.Unlock()
	if n == 0 {
		return "no RPC"
	}
	names := slices.Sorted(maps.Keys(by))
	parts := make([]string, len(names))
	for i, name := range names {
		parts[i] = fmt.Sprintf("%s ×%d for %v", name, by[name].n, by[name].oldest.Round(time.Millisecond))
	}
	return fmt.Sprintf("%d RPCs (%s)", n, strings.Join(parts, ", "))
}
