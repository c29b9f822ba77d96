// Package ring is the server's view of its Cassandra cluster, for
// planning over the whole ring: each token range read once, from a
// server whose node replicates it (docs/architecture.md, "Ring, peers
// and planning").
//
//   - view.go: View, the ring read from the server's own node at start,
//     periodically and after the driver's events, which requests take
//     without waiting (Get), but for the first.
//   - peers.go: PeerChecks, the peers used only once they proved by
//     node-info which node they serve; how to ask is the caller's.
//   - placement.go: a keyspace's replicas on the view, the share of the
//     ring a node replicates (and the scale from a node's figures to the
//     table's), the fraction of the ring a range is.
//   - owned.go: CheckOwned, a ring ticket read only where the node
//     replicates all of it in its current ring.
//
// flightserver's ClusterConfig configures it (Options is the part a View
// reads). It imports cluster and request, never flightserver.
package ring
