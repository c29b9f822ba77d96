package kube

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/netip"
	"slices"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/sstable-flight/sstable-flight/cluster"
)

// Config's defaults.
const (
	DefaultPortName = "flight"
	DefaultSyncWait = 10 * time.Second
)

// Config says which service's EndpointSlices a Source watches, and how
// it turns an endpoint into a Flight URI.
type Config struct {
	// Client talks to the API server (NewClient builds one from a
	// kubeconfig or the pod's service account).
	Client *Client
	// Namespace and Service name the headless service whose endpoints
	// are the servers: its EndpointSlices carry the label
	// kubernetes.io/service-name=Service.
	Namespace, Service string
	// PortName is the name of the service port Flight listens on
	// (default DefaultPortName).
	PortName string
	// Scheme is "grpc" or "grpc+tls", as the servers serve (empty is
	// "grpc").
	Scheme string
	// SyncWait bounds how long Start waits for the first complete list
	// (default DefaultSyncWait).
	SyncWait time.Duration
	// Logger gets the status changes: peers changed, the API server
	// unreachable and reachable again (default slog.Default()).
	Logger *slog.Logger
}

func (c *Config) resolve() error {
	if c.PortName == "" {
		c.PortName = DefaultPortName
	}
	if c.Scheme == "" {
		c.Scheme = "grpc"
	}
	if c.SyncWait == 0 {
		c.SyncWait = DefaultSyncWait
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	switch {
	case c.Client == nil:
		return errors.New("no API client")
	case c.Namespace == "":
		return errors.New("no namespace")
	case c.Service == "":
		return errors.New("no service name")
	case c.Scheme != "grpc" && c.Scheme != "grpc+tls":
		return fmt.Errorf("scheme %q: want grpc or grpc+tls", c.Scheme)
	case c.SyncWait < 0:
		return fmt.Errorf("sync wait %v is negative", c.SyncWait)
	}
	if err := checkName(c.Namespace, 63, false); err != nil {
		return fmt.Errorf("namespace %q: %w", c.Namespace, err)
	}
	if err := checkName(c.Service, 63, true); err != nil {
		return fmt.Errorf("service name %q: %w", c.Service, err)
	}
	if err := checkPortName(c.PortName); err != nil {
		return fmt.Errorf("port name %q: %w", c.PortName, err)
	}
	return nil
}

// ErrNotSynced is Peers' error until the first complete list of the
// service's EndpointSlices arrived: until then no peer is known, and a
// plan over the ring fails (UNAVAILABLE) rather than plan without them.
var ErrNotSynced = errors.New("EndpointSlices not listed yet")

// Source is a cluster.PeerSource fed by a watch of the EndpointSlices
// of a headless service (watch.go): each ready endpoint's IP is a
// Cassandra node's address (the server runs in the node's pod, or on its
// host network), its Flight URI that IP at the port named
// Config.PortName. The map follows pod churn as the API server reports
// it.
//
// Once listed, it keeps its last map while the API server is
// unreachable: a claim is checked with the peer before any query goes
// to it, so a stale map can cost a plan a peer, never send one to the
// wrong node. Status says whether calls fail, since when and why.
type Source struct {
	cfg      Config
	selector string // the service's slices' label
	cancel   context.CancelFunc
	done     chan struct{} // closed when the watch loop returned
	synced   chan struct{} // closed once the first complete list arrived

	// The watch loop's own: the service's slices by name, and the
	// resource version they are at ("" until listed, and when the API
	// server no longer has it).
	slices map[string]*endpointSlice
	rv     string

	mu       sync.Mutex
	peers    endpointMap
	err      error     // the last failed list or watch; nil once a watch opens
	errSince time.Time // when calls began to fail
	failures int64     // failed lists and watches, ever
	changes  int64     // times the map changed
}

var _ cluster.PeerSource = (*Source)(nil)

// Start starts watching and waits up to cfg.SyncWait for the first
// complete list. It fails only for a Config that cannot work: an API
// server that does not answer in time leaves a Source that keeps
// trying, whose Peers fails with ErrNotSynced (and the API error) until
// it succeeds, and whose Status says why. Close stops it.
func Start(ctx context.Context, cfg Config) (*Source, error) {
	if err := cfg.resolve(); err != nil {
		return nil, fmt.Errorf("start kubernetes discovery: %w", err)
	}
	s := &Source{
		cfg: cfg, selector: labelServiceName + "=" + cfg.Service,
		done: make(chan struct{}), synced: make(chan struct{}),
		slices: map[string]*endpointSlice{}, peers: endpointMap{},
	}
	run, cancel := context.WithCancel(context.WithoutCancel(ctx))
	s.cancel = cancel
	go s.run(run)
	wait, stop := context.WithTimeout(ctx, cfg.SyncWait)
	defer stop()
	select {
	case <-s.synced:
	case <-wait.Done():
		cfg.Logger.Warn("kubernetes discovery: EndpointSlices not listed yet; plans over the ring fail until they are",
			"service", s.what(), "waited", cfg.SyncWait.String(), "err", s.Status().Err)
	}
	return s, nil
}

// Close stops the watch and waits for it.
func (s *Source) Close() {
	s.cancel()
	<-s.done
}

func (s *Source) what() string { return s.cfg.Namespace + "/" + s.cfg.Service }

// Peers maps each ring node whose native or broadcast address is a
// ready endpoint of the service to that endpoint's Flight URI.
func (s *Source) Peers(_ context.Context, ring *cluster.Ring) (map[uuid.UUID]string, error) {
	if !s.isSynced() {
		st := s.Status()
		if st.Err != nil {
			return nil, fmt.Errorf("kubernetes discovery of service %s: %w: API server: %w", s.what(), ErrNotSynced, st.Err)
		}
		return nil, fmt.Errorf("kubernetes discovery of service %s: %w", s.what(), ErrNotSynced)
	}
	m := s.Endpoints()
	out := map[uuid.UUID]string{}
	for _, n := range ring.Nodes() {
		for _, a := range []netip.Addr{n.Native.Addr(), n.Broadcast} {
			if uri, ok := m[a.Unmap()]; ok && a.IsValid() {
				out[n.HostID] = uri
				break
			}
		}
	}
	return out, nil
}

// Endpoints is the current map of ready endpoint IP to Flight URI.
func (s *Source) Endpoints() map[netip.Addr]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.peers)
}

// Status is a Source's health.
type Status struct {
	// Synced: the first complete list arrived; Peers answers.
	Synced bool
	// Endpoints is the number of ready endpoints mapped.
	Endpoints int
	// Err is the last failed list or watch, nil once a watch opened
	// since; Since is when the calls began to fail. While Err is set
	// the map is the last one listed and changes are not followed.
	Err   error
	Since time.Time
	// Failures counts failed lists and watches; Changes, the times the
	// map changed.
	Failures, Changes int64
}

// Status says whether the Source is listed and whether the API server
// answers.
func (s *Source) Status() Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	return Status{Synced: s.isSynced(), Endpoints: len(s.peers), Err: s.err, Since: s.errSince, Failures: s.failures, Changes: s.changes}
}

// record notes the outcome of a list or watch call, logging when the
// API server becomes unreachable and when it answers again.
func (s *Source) record(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err == nil {
		if s.err != nil {
			s.cfg.Logger.Info("kubernetes discovery: API server answers again", "service", s.what(), "failing_since", s.errSince)
		}
		s.err, s.errSince = nil, time.Time{}
		return
	}
	s.failures++
	if s.err == nil {
		s.errSince = time.Now()
		s.cfg.Logger.Warn("kubernetes discovery: API server call failed; plans use the last peers listed until it answers",
			"service", s.what(), "err", err)
	}
	s.err = err
}

// isSynced: the first complete list arrived.
func (s *Source) isSynced() bool {
	select {
	case <-s.synced:
		return true
	default:
		return false
	}
}

// rebuild maps the slices again after any change (the watch loop's).
func (s *Source) rebuild() {
	list := slices.Collect(maps.Values(s.slices))
	m, skips := mapSlices(list, s.cfg.PortName, s.cfg.Scheme)
	for _, sk := range skips {
		s.cfg.Logger.Debug("kubernetes discovery: endpoint not used", "service", s.what(), "slice", sk.slice, "why", sk.why)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if maps.Equal(m, s.peers) {
		return
	}
	s.changes++
	s.cfg.Logger.Info("kubernetes discovery: peers changed", "service", s.what(), "peers", describe(m))
	s.peers = m
}

// describe lists a map's URIs in order, for a log line.
func describe(m endpointMap) []string {
	return slices.Sorted(maps.Values(m))
}
