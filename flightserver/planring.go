package flightserver

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/google/uuid"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/sstable-flight/sstable-flight/cluster"
	"github.com/sstable-flight/sstable-flight/flightserver/request"
	"github.com/sstable-flight/sstable-flight/flightserver/ring"
	"github.com/sstable-flight/sstable-flight/flightserver/tables"
	"github.com/sstable-flight/sstable-flight/token"
)

// mergeAdjacent joins splits in token order that meet and have the same
// replicas into one: a limited scan then has one endpoint, one stream
// stopping after limit rows, per run of ranges one replica set holds,
// rather than one per ring range. A server reads a ticket spanning
// several ring ranges only if its node replicates each of them, which
// every server of such a run does.
func mergeAdjacent(splits []ringSplit) []ringSplit {
	var out []ringSplit
	for _, sp := range splits {
		if n := len(out); n > 0 && out[n-1].t.Range[1] == sp.t.Range[0] && sameHosts(out[n-1].servers, sp.servers) {
			out[n-1].t.Range[1] = sp.t.Range[1]
			out[n-1].weight += sp.weight
			continue
		}
		out = append(out, sp)
	}
	return out
}

// sameHosts reports whether a and b hold the same hosts, in any order.
func sameHosts(a, b []uuid.UUID) bool {
	if len(a) != len(b) {
		return false
	}
	for _, h := range a {
		if !slices.Contains(b, h) {
			return false
		}
	}
	return true
}

// ringSplit is one endpoint of a ring plan before it is sealed: its
// ticket, the replicas' servers that may read it in placement order,
// and its weight (its share of the ring, or its keys) for balancing.
type ringSplit struct {
	t       *request.Ticket
	servers []uuid.UUID
	weight  float64
}

// planRing plans c over the cluster's ring (Config.Cluster): every ring
// range the command asks for, cut into splits, each on the servers of
// the range's replicas; keys grouped by the range that holds them. The
// splits' first locations are balanced over the servers (balance).
func (s *service) planRing(ctx context.Context, c *request.Command, l *tables.Lease, p *planned, now int64, partitions, rows int64) error {
	st, m, err := s.ring.Placement(ctx, c.Keyspace)
	if err != nil {
		return fmt.Errorf("plan %s.%s over the ring: %w", c.Keyspace, c.Table, err)
	}
	claimed, err := s.cfg.Cluster.Peers.Peers(ctx, st.Topology().Ring)
	if err != nil {
		return status.Error(codes.Unavailable, fmt.Sprintf("plan %s.%s over the ring: list peers: %v", c.Keyspace, c.Table, err))
	}
	servers, why := s.peers.Verified(ctx, claimed)
	for host, err := range why {
		s.log.Warn("plan over the ring: peer not used", "node", host, "err", err)
	}
	// The node's SSTables hold about its share of the table's rows,
	// which sizes the splits of the others.
	scale := ring.Scale(ring.ReplicatedShare(m, st.Local()))
	perPartition := float64(rows) / math.Max(1, float64(partitions))
	var splits []ringSplit
	newRingTicket := func() *request.Ticket {
		t := newTicket(c, now, "")
		t.Ring = true
		return t
	}
	if len(c.Keys) > 0 {
		keys, err := l.Table().EncodeKeys(c.Keys)
		if err != nil {
			return request.Invalid(err)
		}
		sl, err := l.Table().EncodeSlice(c.Clustering)
		if err != nil {
			return request.Invalid(err)
		}
		sortByToken(keys)
		// Keys in ring order, cut where the range holding them changes:
		// each group is read on its own range's replicas.
		for lo := 0; lo < len(keys); {
			rr := m.For(token.Of(keys[lo]))
			hi := lo + 1
			for hi < len(keys) && m.For(token.Of(keys[hi])).Range == rr.Range {
				hi++
			}
			for _, group := range groupKeys(keys[lo:hi]) {
				t := newRingTicket()
				t.Keys, t.Slice = group, sl
				splits = append(splits, ringSplit{t: t, servers: hostIDs(rr.Replicas), weight: float64(len(group))})
			}
			lo = hi
		}
		p.rows = int64(math.Ceil(perPartition * float64(len(keys))))
	} else {
		want := token.Range{Start: token.Min, End: token.Min}
		if r := c.TokenRange; r != nil {
			want = token.Range{Start: token.Token(r.Start), End: token.Token(r.End)}
		}
		total := float64(rows) * scale * want.Fraction()
		n := splitCount(c.Splits, int64(total))
		for _, rr := range m {
			for _, piece := range rr.Range.Intersect(want) {
				f := piece.Fraction() / want.Fraction()
				k := max(1, int(math.Round(float64(n)*f)))
				if c.Limit > 0 && c.Splits == 0 {
					k = 1 // one stream per range stops after limit rows
				}
				for _, r := range piece.Split(k) {
					t := newRingTicket()
					t.Range = &[2]token.Token{r.Start, r.End}
					w := r.Fraction()
					splits = append(splits, ringSplit{t: t, servers: hostIDs(rr.Replicas), weight: w})
				}
			}
		}
		// In token order, as a scan of one node's plan is (FlightInfo's
		// ordered): the wrapping range's pieces are the ring's two ends.
		slices.SortFunc(splits, func(a, b ringSplit) int { return cmp.Compare(a.t.Range[0], b.t.Range[0]) })
		if c.Limit > 0 && c.Splits == 0 {
			splits = mergeAdjacent(splits)
		}
		p.rows = int64(float64(rows) * scale * want.Fraction())
	}
	locations, err := balance(splits, servers)
	if err != nil {
		return status.Error(codes.Unavailable, fmt.Sprintf("plan %s.%s over the ring: %v", c.Keyspace, c.Table, err))
	}
	for i, sp := range splits {
		p.tickets = append(p.tickets, sp.t)
		p.locations = append(p.locations, locations[i])
	}
	p.ring = true
	return nil
}

// balance orders each split's servers, leaving out those that did not
// prove themselves: first the one with the least weight given so far
// (the heaviest splits placed first, so that the light ones even out
// what remains), then the others in placement order, for a client to
// fall back on. On a ring where every node replicates everything this
// still gives each server its share, where primary-first would give
// each only the ranges its tokens end. A split none of whose replicas
// has a proven server is an error naming its range.
func balance(splits []ringSplit, servers map[uuid.UUID]string) ([][]string, error) {
	order := make([]int, len(splits))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(splits[b].weight, splits[a].weight) })
	load := map[uuid.UUID]float64{}
	out := make([][]string, len(splits))
	for _, i := range order {
		sp := splits[i]
		best := uuid.Nil
		for _, h := range sp.servers {
			if _, ok := servers[h]; ok && (best == uuid.Nil || load[h] < load[best]) {
				best = h
			}
		}
		if best == uuid.Nil {
			return nil, fmt.Errorf("%s: no server of its replicas (%s) proved it serves its node", splitName(sp.t), hostList(sp.servers))
		}
		load[best] += sp.weight
		locs := []string{servers[best]}
		for _, h := range sp.servers {
			if uri, ok := servers[h]; ok && h != best {
				locs = append(locs, uri)
			}
		}
		out[i] = locs
	}
	return out, nil
}

func hostIDs(nodes []*cluster.Node) []uuid.UUID {
	out := make([]uuid.UUID, len(nodes))
	for i, n := range nodes {
		out[i] = n.HostID
	}
	return out
}

func hostList(hosts []uuid.UUID) string {
	s := make([]string, len(hosts))
	for i, h := range hosts {
		s[i] = h.String()
	}
	return strings.Join(s, ", ")
}

func splitName(t *request.Ticket) string {
	if t.Range != nil {
		return fmt.Sprintf("range (%d,%d]", t.Range[0], t.Range[1])
	}
	return fmt.Sprintf("%d keys from token %d", len(t.Keys), token.Of(t.Keys[0]))
}
