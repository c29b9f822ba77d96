package cluster

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"

	"github.com/google/uuid"
)

// PeerSource says where each node's sstable-flight server listens: the
// Flight URI of the server beside every node of a ring, by host ID. A
// node it knows no server for is left out. What it says is a claim, not
// a fact: the planner uses a peer only once the server at the URI has
// said it serves that host ID (flightserver's node-info action), so a
// wrong list or a stale DNS name sends no query to the wrong node.
// Kubernetes discovery is one more implementation.
type PeerSource interface {
	Peers(ctx context.Context, ring *Ring) (map[uuid.UUID]string, error)
}

// StaticPeers is a fixed list from --peers: each Cassandra node's
// address (its native or broadcast address, with or without the native
// port) to its server's Flight URI.
type StaticPeers map[string]string

// ParseStaticPeers reads "cassandra_addr=grpc://host:port,...". Every
// URI must be grpc:// or grpc+tls:// with a host and a port, and every
// address an IP, optionally with a port.
func ParseStaticPeers(s string) (StaticPeers, error) {
	out := StaticPeers{}
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		addr, uri, ok := strings.Cut(item, "=")
		if !ok {
			return nil, fmt.Errorf("read peers: %q is not cassandra_addr=grpc://host:port", item)
		}
		key, err := peerKey(addr)
		if err != nil {
			return nil, fmt.Errorf("read peers: %q: %w", item, err)
		}
		if err := CheckFlightURI(uri); err != nil {
			return nil, fmt.Errorf("read peers: %q: %w", item, err)
		}
		if _, dup := out[key]; dup {
			return nil, fmt.Errorf("read peers: cassandra address %s appears twice", key)
		}
		out[key] = uri
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("read peers: no peer in %q", s)
	}
	return out, nil
}

// peerKey normalizes a Cassandra address of the peer list: an IP, or an
// IP and port.
func peerKey(addr string) (string, error) {
	if ap, err := netip.ParseAddrPort(addr); err == nil {
		return netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port()).String(), nil
	}
	a, err := netip.ParseAddr(addr)
	if err != nil {
		return "", fmt.Errorf("cassandra address %q is not an IP or IP:port", addr)
	}
	return a.Unmap().String(), nil
}

// CheckFlightURI checks a peer's Flight URI: grpc:// or grpc+tls://,
// with a host and a port, and nothing else.
func CheckFlightURI(uri string) error {
	u, err := url.Parse(uri)
	if err != nil {
		return fmt.Errorf("flight URI %q: %w", uri, err)
	}
	if u.Scheme != "grpc" && u.Scheme != "grpc+tcp" && u.Scheme != "grpc+tls" {
		return fmt.Errorf("flight URI %q: scheme %q, want grpc, grpc+tcp or grpc+tls", uri, u.Scheme)
	}
	if u.Hostname() == "" || u.Port() == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.User != nil {
		return fmt.Errorf("flight URI %q: want scheme://host:port and nothing more", uri)
	}
	return nil
}

// Peers maps every ring node the list names, by its native address and
// port, its native address, or its broadcast address, in that order.
func (p StaticPeers) Peers(_ context.Context, ring *Ring) (map[uuid.UUID]string, error) {
	out := map[uuid.UUID]string{}
	for _, n := range ring.Nodes() {
		for _, key := range []string{n.Native.String(), n.Native.Addr().String(), n.Broadcast.String()} {
			if uri, ok := p[key]; ok {
				out[n.HostID] = uri
				break
			}
		}
	}
	return out, nil
}

// ConventionPeers places each node's server on the node's own native
// address at Port: the deployment where every server runs beside its
// node and all listen on one port.
type ConventionPeers struct {
	Scheme string // "grpc" or "grpc+tls"; empty is "grpc"
	Port   uint16
}

// Peers gives every ring node with a native address its URI.
func (p ConventionPeers) Peers(_ context.Context, ring *Ring) (map[uuid.UUID]string, error) {
	if p.Port == 0 {
		return nil, fmt.Errorf("list peers by convention: no port")
	}
	scheme := p.Scheme
	if scheme == "" {
		scheme = "grpc"
	}
	out := map[uuid.UUID]string{}
	for _, n := range ring.Nodes() {
		if !n.Native.IsValid() {
			continue // native transport off: no address to put a server at
		}
		out[n.HostID] = scheme + "://" + net.JoinHostPort(n.Native.Addr().String(), strconv.Itoa(int(p.Port)))
	}
	return out, nil
}
