package cluster

import (
	"errors"
	"fmt"
	"net/netip"
	"slices"

	"github.com/google/uuid"

	"github.com/sstable-flight/sstable-flight/token"
)

// Node is one Cassandra node as the ring knows it.
type Node struct {
	// HostID is the node's stable identity (system.local/peers_v2
	// host_id): addresses can change, host IDs do not.
	HostID uuid.UUID
	// Broadcast is the address the node gossips under (peers_v2 peer,
	// local broadcast_address): nodetool names replicas by it.
	Broadcast netip.Addr
	// Native is where the node serves CQL (native_address and
	// native_port; rpc_address before Cassandra 4.0).
	Native netip.AddrPort
	// DC and Rack are the node's place as its snitch reports it; they
	// decide NetworkTopologyStrategy's placement.
	DC, Rack string
	// Tokens are the node's ring tokens (num_tokens of them), sorted.
	Tokens []token.Token
}

func (n *Node) String() string {
	return fmt.Sprintf("%s (%s, %s/%s)", n.HostID, n.Broadcast, n.DC, n.Rack)
}

// Ring is the token ring of one cluster: every node's tokens sorted, each
// owned by one node. It is immutable once built; a topology change builds
// a new Ring.
type Ring struct {
	nodes  []Node
	tokens []token.Token // sorted ascending, distinct
	owner  []int         // owner[i] is the index in nodes of tokens[i]'s node
	local  int           // index in nodes of the node the ring was learnt from; -1 if none

	// Per data centre, the number of nodes and of distinct racks, which
	// NetworkTopologyStrategy's placement needs for every range.
	dcNodes map[string]int
	dcRacks map[string]int
}

// NewRing builds the ring of nodes. local is the host ID of the node the
// ring was read from (uuid.Nil when there is none); LocalStrategy
// places everything on it. Nodes without tokens (not yet joined) are no
// part of the ring. Two nodes with one host ID, or one token claimed
// twice, are an error: Cassandra's ring has one owner per token.
func NewRing(local uuid.UUID, nodes []Node) (*Ring, error) {
	r := &Ring{local: -1, dcNodes: map[string]int{}, dcRacks: map[string]int{}}
	seen := map[uuid.UUID]bool{}
	owners := map[token.Token]int{}
	racks := map[[2]string]bool{}
	for _, n := range nodes {
		if n.HostID == uuid.Nil {
			return nil, fmt.Errorf("build ring: node %s has no host ID", n.Broadcast)
		}
		if seen[n.HostID] {
			return nil, fmt.Errorf("build ring: host ID %s appears twice", n.HostID)
		}
		seen[n.HostID] = true
		if len(n.Tokens) == 0 {
			continue
		}
		i := len(r.nodes)
		n.Tokens = slices.Clone(n.Tokens)
		slices.Sort(n.Tokens)
		for _, t := range n.Tokens {
			if j, dup := owners[t]; dup {
				return nil, fmt.Errorf("build ring: token %d claimed by both %s and %s", t, &r.nodes[j], &n)
			}
			owners[t] = i
		}
		r.nodes = append(r.nodes, n)
		if n.HostID == local {
			r.local = i
		}
		r.dcNodes[n.DC]++
		if !racks[[2]string{n.DC, n.Rack}] {
			racks[[2]string{n.DC, n.Rack}] = true
			r.dcRacks[n.DC]++
		}
	}
	if len(r.nodes) == 0 {
		return nil, errors.New("build ring: no node owns a token")
	}
	r.tokens = make([]token.Token, 0, len(owners))
	for t := range owners {
		r.tokens = append(r.tokens, t)
	}
	slices.Sort(r.tokens)
	r.owner = make([]int, len(r.tokens))
	for i, t := range r.tokens {
		r.owner[i] = owners[t]
	}
	return r, nil
}

// Nodes returns the ring's nodes (those that own tokens). The slice is
// the ring's own: read, never modify.
func (r *Ring) Nodes() []Node { return r.nodes }

// Node returns the node with host ID id.
func (r *Ring) Node(id uuid.UUID) (*Node, bool) {
	for i := range r.nodes {
		if r.nodes[i].HostID == id {
			return &r.nodes[i], true
		}
	}
	return nil, false
}

// Local returns the node the ring was learnt from, if it owns tokens.
func (r *Ring) Local() (*Node, bool) {
	if r.local < 0 {
		return nil, false
	}
	return &r.nodes[r.local], true
}

// Tokens returns every ring token in ascending order (the ring's own
// slice: read, never modify).
func (r *Ring) Tokens() []token.Token { return r.tokens }

// Owner returns the node that owns ring token t, the primary replica of
// the range that ends at t.
func (r *Ring) Owner(t token.Token) (*Node, bool) {
	i, ok := slices.BinarySearch(r.tokens, t)
	if !ok {
		return nil, false
	}
	return &r.nodes[r.owner[i]], true
}

// rangeAt is the range that ring token i ends: (tokens[i-1], tokens[i]],
// and for i == 0 the range that wraps, (last token, first token].
func (r *Ring) rangeAt(i int) token.Range {
	prev := i - 1
	if prev < 0 {
		prev = len(r.tokens) - 1
	}
	return token.Range{Start: r.tokens[prev], End: r.tokens[i]}
}

// search returns the index of the ring token whose range holds t: the
// first token >= t, wrapping to the first token when t is above the last
// (TokenMetadata.firstToken).
func (r *Ring) search(t token.Token) int {
	i, _ := slices.BinarySearch(r.tokens, t)
	if i == len(r.tokens) {
		return 0
	}
	return i
}
