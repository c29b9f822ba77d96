// Package cluster knows Cassandra's token ring: which nodes there are,
// where each serves CQL, and which of them replicate each token range of
// a keyspace.
//
// Data flows one way through it:
//
//	system.local, system.peers_v2 ──────┐
//	system_schema.keyspaces.replication ─┴─ Discover (discover.go) ─▶ Topology:
//	Ring (ring.go): sorted tokens → owning Node
//	Replication (replication.go): SimpleStrategy, NetworkTopologyStrategy,
//	    LocalStrategy, EverywhereStrategy, parsed from the replication map
//	        │
//	        ▼
//	Replicas(ring, strategy) (replicas.go, nts.go) ──▶ ReplicaMap: for every
//	    range (prev, t] of the ring, its replicas, primary first
//
// Placement is computed exactly as Cassandra 5.0 computes it, so that
// what this package says a node holds is what the node holds. Each ring
// token t ends one range (prev, t], the range after the last token wraps
// around to the first; the replicas of a range are found by walking the
// ring clockwise from t (TokenMetadata.ringIterator), passing tokens of
// nodes already taken (vnodes). SimpleStrategy takes the first RF
// distinct nodes; NetworkTopologyStrategy fills every data centre at
// once, on distinct racks while racks last (nts.go has the rules). The
// oracle is Cassandra itself: the tests compare Replicas, range for range
// and endpoint for endpoint in order, with `nodetool describering` (and
// keys with `nodetool getendpoints`) on a real three-node cluster
// (describering_test.go, internal/testkit/cassandratest's SharedCluster).
//
// NB: a node that is joining, leaving or moving is placed as the ring
// says now (its tokens in system.peers_v2), not as Cassandra's pending
// ranges will place it; during such a change a range's replicas can be
// about to move. Callers that read data check ownership again at read
// time.
//
// Changes (events.go) turns the driver's topology and schema events into
// a signal to read the topology again; the event itself is not trusted
// for what changed.
//
// Where each node's sstable-flight server listens is a PeerSource's
// claim (peers.go: a static list or a port convention), which
// flightserver checks with the peer before using it. ReplicaMap.Unowned
// (owns.go) says whether a node replicates all of a requested range.
//
// It knows no SSTables and no Arrow; flightserver imports it, never the
// reverse. Tokens, ranges and a key's token are package token's; of the
// module it imports only token.
package cluster
