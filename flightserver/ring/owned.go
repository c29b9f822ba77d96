package ring

import (
	"context"
	"errors"
	"fmt"

	"github.com/sstable-flight/sstable-flight/cluster"
	"github.com/sstable-flight/sstable-flight/flightserver/request"
	"github.com/sstable-flight/sstable-flight/token"
)

// ErrNotOwned marks a ring ticket for data the server's node does not
// replicate in its current ring (FAILED_PRECONDITION: the ring changed
// since the plan, or the ticket went to the wrong server).
var ErrNotOwned = errors.New("not replicated by this server's node")

// CheckOwned checks, before a ring ticket is read, that the server's
// node replicates all of it in the ring it sees now: every ring range
// the ticket's token range touches, or the range of each of its keys.
// A server never reads a range it holds only part of (after a topology
// change, before cleanup) as if it were whole.
func (v *View) CheckOwned(ctx context.Context, t *request.Ticket) error {
	st, err := v.Get(ctx)
	if err != nil {
		return err
	}
	m, err := st.Replicas(t.Keyspace)
	if err != nil {
		return fmt.Errorf("read ticket of %s.%s: %w: %w", t.Keyspace, t.Table, ErrNotOwned, err)
	}
	if t.Range != nil {
		r := token.Range{Start: token.Token(t.Range[0]), End: token.Token(t.Range[1])}
		if rr, bad := m.Unowned(r, st.local); bad {
			return fmt.Errorf("read %s.%s range %s: its part %s is replicated by %s, not by this server's node %s: %w (plan the query again)",
				t.Keyspace, t.Table, r, rr.Range, nodeList(rr.Replicas), st.local, ErrNotOwned)
		}
	}
	for i, k := range t.Keys {
		if rr := m.For(token.Of(k)); !rr.Replicates(st.local) {
			return fmt.Errorf("read %s.%s key %d: its range %s is replicated by %s, not by this server's node %s: %w (plan the query again)",
				t.Keyspace, t.Table, i, rr.Range, nodeList(rr.Replicas), st.local, ErrNotOwned)
		}
	}
	return nil
}

// nodeList names nodes by host ID and address, for errors.
func nodeList(nodes []*cluster.Node) string {
	s := "["
	for i, n := range nodes {
		if i > 0 {
			s += ", "
		}
		s += n.String()
	}
	return s + "]"
}
