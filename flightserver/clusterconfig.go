package flightserver

import (
	"context"
	"crypto/x509"
	"strconv"
	"time"

	"github.com/sstable-flight/sstable-flight/cluster"
	"github.com/sstable-flight/sstable-flight/internal/secretfile"
)

// ClusterConfig makes a server plan over the whole ring: each token
// range read once, from a server whose node replicates it
// (docs/architecture.md, "Ring, peers and planning"). Without one the
// server plans only its own node's data, as a single node.
type ClusterConfig struct {
	// Discover reads the topology from the server's own node: the ring
	// (its local node is this server's) and every keyspace's
	// replication. cmd/sstable-flight passes cluster.Discover over the
	// session it has to its node (that session connects to no other).
	Discover func(ctx context.Context) (*cluster.Topology, error)
	// Peers says where each node's server listens. A peer is used only
	// once it answered node-info with the node's host ID. A grpc:// peer
	// is dialled without TLS, a grpc+tls:// one verified against PeerCA
	// (else the system's roots); the server's own AuthToken goes with
	// the call (a cluster shares it as it shares the ticket key). The
	// check sends no client certificate: peers that require one
	// (ClientCA) cannot be proven.
	Peers cluster.PeerSource
	// PeerCA is a PEM file of the CA the peers' certificates chain to (a
	// cluster's private CA); New reads it, and refuses a file with no
	// certificate.
	PeerCA    string
	peerRoots *x509.CertPool
	// RefreshInterval is how often the ring is read again (default
	// DefaultRingRefresh); RefreshTimeout bounds one read (default
	// DefaultRingRefreshTimeout). Requests never wait for a refresh: they
	// plan on the last ring read.
	RefreshInterval, RefreshTimeout time.Duration
	// Changes, when set, signals that the ring or a keyspace's
	// replication may have changed (cluster.Changes over the driver's
	// topology and schema events): the ring is read again then, besides
	// the periodic read. Signals are debounced: a read starts
	// ChangeDebounce (default DefaultRingChangeDebounce) after the first
	// signal, and signals during that wait or during the read ask for at
	// most one more, so a burst of DDL costs two reads, not one each.
	Changes        <-chan struct{}
	ChangeDebounce time.Duration
	// RingWait is how long a request waits for the first ring after the
	// server starts before it fails with UNAVAILABLE (default
	// DefaultRingWait).
	RingWait time.Duration
	// PeerTTL is how long a peer's proven host ID is trusted before it
	// is asked again (default DefaultPeerTTL); a failed check is retried
	// after a fifth of it. PeerTimeout bounds one check (default
	// DefaultPeerTimeout), so a peer that does not answer delays a plan
	// at most that long, once per PeerTTL/5.
	PeerTTL, PeerTimeout time.Duration
}

// ClusterConfig's defaults.
const (
	DefaultRingRefresh        = 30 * time.Second
	DefaultRingRefreshTimeout = 10 * time.Second
	DefaultRingWait           = 5 * time.Second
	DefaultRingChangeDebounce = 500 * time.Millisecond
	DefaultPeerTTL            = 30 * time.Second
	DefaultPeerTimeout        = 2 * time.Second
)

// resolve applies the defaults and refuses a ClusterConfig that cannot
// work.
func (c *ClusterConfig) resolve() error {
	switch {
	case c.Discover == nil:
		return &ConfigError{Field: "Cluster.Discover", Reason: "required: how the server reads the ring from its node"}
	case c.Peers == nil:
		return &ConfigError{Field: "Cluster.Peers", Reason: "required: where each node's server listens"}
	}
	if err := noNegative(durationField{"Cluster.RefreshInterval", c.RefreshInterval}, durationField{"Cluster.RefreshTimeout", c.RefreshTimeout},
		durationField{"Cluster.RingWait", c.RingWait}, durationField{"Cluster.PeerTTL", c.PeerTTL}, durationField{"Cluster.PeerTimeout", c.PeerTimeout},
		durationField{"Cluster.ChangeDebounce", c.ChangeDebounce}); err != nil {
		return err
	}
	if c.PeerCA != "" {
		pool, err := secretfile.CAPool(c.PeerCA)
		if err != nil {
			return &ConfigError{Field: "Cluster.PeerCA", Value: strconv.Quote(c.PeerCA), Reason: err.Error()}
		}
		c.peerRoots = pool
	}
	setDefault(&c.RefreshInterval, DefaultRingRefresh)
	setDefault(&c.RefreshTimeout, DefaultRingRefreshTimeout)
	setDefault(&c.RingWait, DefaultRingWait)
	setDefault(&c.ChangeDebounce, DefaultRingChangeDebounce)
	setDefault(&c.PeerTTL, DefaultPeerTTL)
	setDefault(&c.PeerTimeout, DefaultPeerTimeout)
	return nil
}
