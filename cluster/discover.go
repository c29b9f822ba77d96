package cluster

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strconv"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/google/uuid"

	"github.com/sstable-flight/sstable-flight/token"
)

// Topology is what Discover learnt from one node: the ring, and the
// replication of every keyspace.
type Topology struct {
	Ring *Ring
	// Keyspaces maps each keyspace to its replication strategy.
	Keyspaces map[string]Replication
	// Unsupported maps each keyspace whose replication cannot be placed
	// here (an unknown strategy class, transient replicas) to why. One
	// such keyspace does not keep the others from being served.
	Unsupported map[string]error
}

// Replicas is the placement of keyspace on the ring.
func (t *Topology) Replicas(keyspace string) (ReplicaMap, error) {
	if err, ok := t.Unsupported[keyspace]; ok {
		return nil, fmt.Errorf("place keyspace %s: %w", keyspace, err)
	}
	s, ok := t.Keyspaces[keyspace]
	if !ok {
		return nil, fmt.Errorf("place keyspace %s: no such keyspace", keyspace)
	}
	m, err := Replicas(t.Ring, s)
	if err != nil {
		return nil, fmt.Errorf("place keyspace %s: %w", keyspace, err)
	}
	return m, nil
}

const murmur3Partitioner = "org.apache.cassandra.dht.Murmur3Partitioner"

// Discover reads the ring and every keyspace's replication from one node
// of session: system.local (the node itself), system.peers_v2 (every
// other node as that node knows it; system.peers before Cassandra 4.0)
// and system_schema.keyspaces.
//
// The node is whichever answers system.local; the other reads are pinned
// to it, since system.local and the peers tables describe the node that
// answers and mixing two nodes' views would list one node twice and
// another never. A server that must learn the ring from its own node
// gives Discover a session that connects only to that node.
//
// A peer that owns tokens but lacks its host ID, data centre or rack is
// an error, not a row to skip: leaving it out would hand its ranges to
// its neighbours.
func Discover(ctx context.Context, s *gocql.Session) (*Topology, error) {
	local, host, err := readLocal(ctx, s)
	if err != nil {
		return nil, err
	}
	peers, err := readPeers(ctx, s, host, local.Native.Port())
	if err != nil {
		return nil, err
	}
	ring, err := NewRing(local.HostID, append([]Node{local}, peers...))
	if err != nil {
		return nil, fmt.Errorf("discover ring from %s: %w", local.Broadcast, err)
	}
	t := &Topology{Ring: ring, Keyspaces: map[string]Replication{}, Unsupported: map[string]error{}}
	iter := s.Query("SELECT keyspace_name, replication FROM system_schema.keyspaces").
		SetHostID(host).WithContext(ctx).Iter()
	var (
		name string
		repl map[string]string
	)
	for iter.Scan(&name, &repl) {
		r, err := ParseReplication(repl)
		if err != nil {
			t.Unsupported[name] = err
		} else {
			t.Keyspaces[name] = r
		}
		repl = nil
	}
	if err := iter.Close(); err != nil {
		return nil, fmt.Errorf("discover ring: read system_schema.keyspaces from %s: %w", local.Broadcast, err)
	}
	return t, nil
}

// readLocal reads system.local and returns the node and the gocql host
// ID of the connection that answered, to pin later reads to.
func readLocal(ctx context.Context, s *gocql.Session) (Node, string, error) {
	var (
		hostID                 gocql.UUID
		broadcast, listen, rpc net.IP
		rpcPort                *int
		dc, rack, partitioner  string
		tokens                 []string
	)
	iter := s.Query("SELECT host_id, broadcast_address, listen_address, rpc_address, rpc_port, data_center, rack, tokens, partitioner FROM system.local WHERE key = 'local'").
		WithContext(ctx).Iter()
	ok := iter.Scan(&hostID, &broadcast, &listen, &rpc, &rpcPort, &dc, &rack, &tokens, &partitioner)
	host := iter.Host()
	if err := iter.Close(); err != nil {
		return Node{}, "", fmt.Errorf("discover ring: read system.local: %w", err)
	}
	if !ok || host == nil {
		return Node{}, "", errors.New("discover ring: read system.local: no row")
	}
	if partitioner != murmur3Partitioner {
		return Node{}, "", fmt.Errorf("discover ring: node %s uses partitioner %q; only %s is supported", host.ConnectAddress(), partitioner, murmur3Partitioner)
	}
	// Later reads are pinned by the driver's ID of the host that
	// answered, which need not be the node's host_id: with
	// DisableInitialHostLookup the driver makes up a random one. Were
	// the pin to miss, the peers read would list this node, and NewRing
	// refuses a host ID seen twice.
	if broadcast == nil {
		broadcast = listen
	}
	port := host.Port()
	if rpcPort != nil {
		port = *rpcPort
	}
	n, err := node("system.local", hostID, broadcast, rpc, port, dc, rack, tokens)
	if err != nil {
		return Node{}, "", err
	}
	return n, host.HostID(), nil
}

// readPeers reads system.peers_v2 from host, or system.peers where the
// node has no peers_v2 (before Cassandra 4.0); the latter has no native
// port, so every peer is taken to use defaultPort, the local node's.
func readPeers(ctx context.Context, s *gocql.Session, host string, defaultPort uint16) ([]Node, error) {
	peers, err := scanPeers(ctx, s, host, defaultPort, false)
	var reqErr gocql.RequestError
	if errors.As(err, &reqErr) && reqErr.Code() == gocql.ErrCodeInvalid {
		return scanPeers(ctx, s, host, defaultPort, true)
	}
	return peers, err
}

// scanPeers reads one peers table: system.peers_v2, or system.peers if
// legacy is set.
func scanPeers(ctx context.Context, s *gocql.Session, host string, defaultPort uint16, legacy bool) ([]Node, error) {
	table, cql := "system.peers_v2", "SELECT peer, host_id, native_address, native_port, data_center, rack, tokens FROM system.peers_v2"
	if legacy {
		table, cql = "system.peers", "SELECT peer, host_id, rpc_address, data_center, rack, tokens FROM system.peers"
	}
	iter := s.Query(cql).SetHostID(host).WithContext(ctx).Iter()
	var peers []Node
	for {
		var (
			peer, native net.IP
			hostID       *gocql.UUID
			port         *int
			dc, rack     *string
			tokens       []string
		)
		dest := []any{&peer, &hostID, &native, &port, &dc, &rack, &tokens}
		if legacy {
			dest = slices.Delete(dest, 3, 4)
		}
		if !iter.Scan(dest...) {
			break
		}
		if len(tokens) == 0 {
			// Not (yet) a ring member: it owns nothing.
			continue
		}
		where := fmt.Sprintf("%s row for %s", table, peer)
		if hostID == nil || dc == nil || rack == nil {
			_ = iter.Close()
			return nil, fmt.Errorf("discover ring: %s owns tokens but lacks its host_id, data_center or rack", where)
		}
		p := int(defaultPort)
		if port != nil {
			p = *port
		}
		n, err := node(where, *hostID, peer, native, p, *dc, *rack, tokens)
		if err != nil {
			_ = iter.Close()
			return nil, err
		}
		peers = append(peers, n)
	}
	if err := iter.Close(); err != nil {
		return nil, fmt.Errorf("discover ring: read %s: %w", table, err)
	}
	return peers, nil
}

// node builds a Node from the columns of one system table row; where
// names the row in errors.
func node(where string, hostID gocql.UUID, broadcast, native net.IP, port int, dc, rack string, tokens []string) (Node, error) {
	n := Node{HostID: uuid.UUID(hostID), DC: dc, Rack: rack}
	var ok bool
	if n.Broadcast, ok = netip.AddrFromSlice(broadcast); !ok {
		return Node{}, fmt.Errorf("discover ring: %s has no broadcast address", where)
	}
	n.Broadcast = n.Broadcast.Unmap()
	if a, ok := netip.AddrFromSlice(native); ok && port > 0 && port <= 65535 {
		// NB: a node with its native transport off has no native
		// address; it still owns its ranges, so it stays on the ring
		// with Native unset.
		n.Native = netip.AddrPortFrom(a.Unmap(), uint16(port))
	}
	for _, s := range tokens {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return Node{}, fmt.Errorf("discover ring: %s: token %q is not a Murmur3 token: %w", where, s, err)
		}
		n.Tokens = append(n.Tokens, token.Token(v))
	}
	return n, nil
}
