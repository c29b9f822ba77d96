package ring

import (
	"context"
	"math"

	"github.com/google/uuid"

	"github.com/sstable-flight/sstable-flight/cluster"
)

// ReplicatedShare is the share of the ring whose ranges host replicates
// under the placement m: Murmur3 spreads partitions uniformly over
// tokens, so host's SSTables hold about that share of a table's rows (a
// node of a 3-node ring at RF 2 holds about 2/3). It is the one measure
// that scales a node's figures to the whole table, for planning over the
// ring (planRing) and for table-stats. Each range counts once, however
// many of host's tokens (vnodes) end ranges of it, and the range that
// wraps past the end of the ring counts its two pieces.
func ReplicatedShare(m cluster.ReplicaMap, host uuid.UUID) float64 {
	share := 0.0
	for _, rr := range m {
		if rr.Replicates(host) {
			share += rr.Range.Fraction()
		}
	}
	return min(share, 1)
}

// Scale is what multiplies a node's estimate to the table's over the
// ring: 1/share, bounded where the node replicates nothing (its figures
// are then zero, and stay so).
func Scale(share float64) float64 { return 1 / math.Max(share, 1e-9) }

// Placement is the ring view and keyspace's replicas on it. A keyspace
// the view does not know (created since it was read) has the ring read
// again, waiting at most RingWait; the view itself waits at most RingWait
// for the first ring. So it returns within twice RingWait. A keyspace the
// ring cannot place is a PlacementError.
func (v *View) Placement(ctx context.Context, keyspace string) (*State, cluster.ReplicaMap, error) {
	st, err := v.Get(ctx)
	if err != nil {
		return nil, nil, err
	}
	m, err := st.Replicas(keyspace)
	if err != nil {
		st = v.Newer(ctx, st)
		m, err = st.Replicas(keyspace)
	}
	if err != nil {
		return nil, nil, PlacementError{err}
	}
	return st, m, nil
}

// PlacementError is a keyspace the ring does not place: unknown to the
// ring read, or of a replication it cannot place (FAILED_PRECONDITION).
type PlacementError struct{ err error }

func (e PlacementError) Error() string { return e.err.Error() }
func (e PlacementError) Unwrap() error { return e.err }
