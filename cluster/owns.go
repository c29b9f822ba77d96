package cluster

import (
	"slices"

	"github.com/google/uuid"

	"github.com/sstable-flight/sstable-flight/token"
)

// Replicates reports whether host replicates rr.
func (rr RangeReplicas) Replicates(host uuid.UUID) bool {
	return slices.ContainsFunc(rr.Replicas, func(n *Node) bool { return n.HostID == host })
}

// Unowned returns a range of m that shares tokens with r and that host
// does not replicate, if there is one: a server asked to read r may read
// it only if its node replicates all of it.
func (m ReplicaMap) Unowned(r token.Range, host uuid.UUID) (RangeReplicas, bool) {
	for _, rr := range m {
		if rr.Range.Overlaps(r) && !rr.Replicates(host) {
			return rr, true
		}
	}
	return RangeReplicas{}, false
}
