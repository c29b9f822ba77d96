package flightserver

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	flightgen "github.com/apache/arrow-go/v18/arrow/flight/gen/flight"
	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/google/uuid"
	"github.com/sstable-flight/sstable-flight/flightserver/auth"
	"github.com/sstable-flight/sstable-flight/flightserver/request"
	"github.com/sstable-flight/sstable-flight/flightserver/ring"
	"github.com/sstable-flight/sstable-flight/flightserver/tables"
	"github.com/sstable-flight/sstable-flight/flightserver/transport"
	"github.com/sstable-flight/sstable-flight/internal/iostall"
	"github.com/sstable-flight/sstable-flight/snapshot"
	"github.com/sstable-flight/sstable-flight/sstable"
)

// Server is the Flight server and its admin endpoint.
type Server struct {
	cfg    Config
	svc    *service
	grpc   *grpc.Server
	health *health.Server
	admin  *http.Server
	conns  *transport.ConnLimit // caps the connections Serve accepts
	io     *iostall.Guard
}

// New builds a server over cfg.DataDir; Serve starts it.
func New(cfg Config) (*Server, error) {
	if err := cfg.resolve(); err != nil {
		return nil, fmt.Errorf("start server: %w", err)
	}
	keys, err := request.LoadTicketKeys(cfg.TicketKeyFile)
	if err != nil {
		return nil, fmt.Errorf("start server: %w", err)
	}
	sc := cfg.Snapshot
	// What every reader shares: the point reads' caches and the guard
	// of its files' opens and reads.
	guard := iostall.New(cfg.IOTimeout, cfg.MaxStuckIO)
	caches := sstable.Options{IOGuard: guard}
	if cfg.ChunkCacheBytes > 0 {
		caches.ChunkCache = sstable.NewChunkCache(cfg.ChunkCacheBytes)
	}
	if cfg.KeyCacheBytes > 0 {
		caches.KeyCache = sstable.NewKeyCache(cfg.KeyCacheBytes)
	}
	if sc.Open == nil {
		o := caches
		o.FS = cfg.FS
		sc.Open = func(path string) (*sstable.Reader, error) { return sstable.Open(path, o) }
	}
	if sc.OpenFS == nil {
		sc.OpenFS = func(path string, fsys sstable.FS) (*sstable.Reader, error) {
			o := caches
			o.FS = fsys
			return sstable.Open(path, o)
		}
	}
	if cfg.CommitLog != nil {
		sc.Unflushed = cfg.CommitLog
	}
	snaps, err := snapshot.NewManager(sc)
	if err != nil {
		return nil, fmt.Errorf("start server: %w", snapshotConfigError(err))
	}
	adm := transport.NewAdmission(cfg.MaxStreams, cfg.AdmissionWait)
	m := newMetrics(adm, snaps, sc.Sidecar, caches, cfg.Cassandra, cfg.CommitLog)
	svc := &service{cfg: cfg, mem: cfg.Allocator, adm: adm, metrics: m, log: cfg.Logger, keys: keys, rpcs: newRPCs(),
		failureLog: transport.NewLogLimiter(transport.FailureLogInterval, time.Now), scrub: transport.NewScrubber(cfg.DataDir, snaps.Dir()),
		pins: newQueryPins(cfg.QueryPins, cfg.QueryPinTTL)}
	svc.guard = newPanicGuard(cfg.Logger, transport.NewLogLimiter(transport.FailureLogInterval, time.Now), m.panics)
	m.queryPins(svc.pins)
	// A keyspace or table directory that is a link is skipped, and
	// logged once.
	skipped := func(l snapshot.SkippedLink) {
		cfg.Logger.Warn("skipped a symbolic link in the data directory: keyspace and table directories are never read through links",
			"path", l.Path, "target", l.Target)
	}
	svc.tables = tables.NewRegistry(snaps, cfg.Schemas, cfg.Now, guard, skipped)

	if cc := cfg.Cluster; cc != nil {
		// A PeerSource that reports its own health (Kubernetes
		// discovery's status) is scraped with the server's metrics.
		if c, ok := cc.Peers.(prometheus.Collector); ok {
			if err := m.reg.Register(c); err != nil {
				// Only a name clash fails, which costs the metrics, not
				// the peers.
				cfg.Logger.Warn("peer source's metrics not exported", "err", err)
			}
		}
		svc.ring = ring.NewView(&ring.Options{Discover: cc.Discover, Changes: cc.Changes, RefreshInterval: cc.RefreshInterval,
			RefreshTimeout: cc.RefreshTimeout, ChangeDebounce: cc.ChangeDebounce, RingWait: cc.RingWait}, cfg.Logger)
		roots := cc.peerRoots
		svc.peers = ring.NewPeerChecks(cc.PeerTTL, cc.PeerTimeout, cfg.AuthToken, func(ctx context.Context, uri, token string) (uuid.UUID, error) {
			return askNodeInfo(ctx, uri, token, roots)
		})
		svc.ring.Start()
	}

	opts := []grpc.ServerOption{
		grpc.ChainUnaryInterceptor(svc.unaryInterceptor),
		grpc.ChainStreamInterceptor(svc.streamInterceptor),
		// NB: RPCs run on reused workers, whose stacks have already
		// grown to what a DoGet needs: a new goroutine per RPC copied its
		// stack as it grew (runtime.newstack/copystack: 8% of the
		// server's CPU under 32 concurrent point reads).
		grpc.NumStreamWorkers(uint32(streamWorkers(cfg.MaxStreams))),
		// A request that does not decode is INVALID_ARGUMENT, not
		// INTERNAL (transport/undecodable.go).
		grpc.ForceServerCodecV2(transport.NewRequestCodec()),
	}
	// What a request may hold before it is admitted (package transport).
	svc.decoding = transport.NewBudget(int64(cfg.MaxDecodeBytes), cfg.AdmissionWait)
	conns := transport.NewConnLimit(cfg.MaxConns, cfg.StreamStallTimeout, func(limit string) { m.refused.WithLabelValues(limit).Inc() })
	m.connections(conns)
	limits := transport.Limits{MaxRequestBytes: cfg.MaxRequestBytes, MaxConnStreams: cfg.MaxConnStreams, HandshakeTimeout: cfg.HandshakeTimeout,
		ConnIdleTimeout: cfg.ConnIdleTimeout, ConnMaxAge: cfg.ConnMaxAge, ConnMaxAgeGrace: cfg.ConnMaxAgeGrace}
	opts = append(opts, transport.ServerOptions(limits, transport.NewRequestLimit(cfg.MaxRequests, cfg.StreamStallTimeout, conns, m.refused))...)
	if cfg.tlsConf != nil {
		opts = append(opts, grpc.Creds(credentials.NewTLS(cfg.tlsConf)))
	}
	s := &Server{cfg: cfg, svc: svc, grpc: grpc.NewServer(opts...), health: health.NewServer(), conns: conns, io: guard}
	s.grpc.RegisterService(transport.InvalidWhenUndecodable(&flightgen.FlightService_ServiceDesc), svc)
	s.grpc.RegisterService(transport.InvalidWhenUndecodable(&healthpb.Health_ServiceDesc), s.health)

	s.admin = auth.NewAdmin(auth.Admin{Token: cfg.AuthToken, TLS: cfg.tlsConf, ClientCerts: cfg.ClientCA != "",
		MetricsOpen: cfg.MetricsOpen, Pprof: cfg.Pprof}, m.reg)
	return s, nil
}

// streamWorkers sizes gRPC's worker pool: every admitted stream and as
// many waiting ones, plus room for unary calls; RPCs beyond it still get
// a goroutine of their own.
func streamWorkers(maxStreams int) int { return max(16, 4*maxStreams) }

// Serve serves Flight on lis until Shutdown.
func (s *Server) Serve(lis net.Listener) error {
	s.health.SetServingStatus("", healthpb.HealthCheckResponse_SERVING)
	snaps := s.svc.tables.Snapshots()
	s.cfg.Logger.Info("serving Flight", "addr", lis.Addr().String(), "data_dir", s.cfg.DataDir, "max_streams", s.cfg.MaxStreams,
		"snapshot_mode", snaps.Mode(), "snapshot_dir", snaps.Dir())
	return s.grpc.Serve(s.conns.Listen(lis))
}

// ServeAdmin serves /metrics, and /debug/pprof when Config.Pprof, on
// lis until Shutdown: over TLS when Flight has it (auth.NewAdmin).
func (s *Server) ServeAdmin(lis net.Listener) error {
	// NB: TLS is decided by the Config, not by s.admin.TLSConfig, which
	// http.Server.Serve fills in itself (HTTP/2's NextProtos): a second
	// ServeAdmin on another listener then took a plaintext server for a
	// TLS one and returned at once, leaving its listener unserved.
	useTLS := s.cfg.tlsConf != nil
	s.cfg.Logger.Info("serving admin", "addr", lis.Addr().String(), "tls", useTLS,
		"pprof", s.cfg.Pprof, "metrics_open", s.cfg.MetricsOpen)
	var err error
	if useTLS {
		err = s.admin.ServeTLS(lis, "", "") // the certificate is in TLSConfig
	} else {
		err = s.admin.Serve(lis)
	}
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// RefreshSchema reads the schemas again now, as the refresh-schema
// action does: for the caller that knows they changed (the connection
// to the node came up, and tables served from SSTable headers until now
// have Cassandra's schema).
func (s *Server) RefreshSchema(ctx context.Context) error { return s.svc.refreshSchema(ctx) }

// Shutdown drains: health turns NOT_SERVING, new RPCs are refused,
// running streams finish until ctx ends. Then the drain is over whatever
// still runs: waits on storage are given up (their operations stay
// stuck in the kernel), the remaining RPCs are cut, and Shutdown returns
// within stopGrace of ctx's end, with an error saying what was still
// running, even if a handler never returns (one blocked where neither
// its context nor the storage guard reaches it). The snapshots are
// removed within the same bound.
func (s *Server) Shutdown(ctx context.Context) error {
	defer s.io.Close() // and its ticker goes
	if s.svc.ring != nil {
		defer s.svc.ring.Close()
	}
	s.health.Shutdown()
	done := make(chan struct{})
	go func() {
		s.grpc.GracefulStop()
		close(done)
	}()
	var err error
	select {
	case <-done:
	case <-ctx.Done():
		running := s.Running()
		s.io.Close()
		s.grpc.Stop()
		select {
		case <-done:
		case <-time.After(stopGrace):
			running += "; handlers still running after they were cut: " + s.svc.rpcs.describe()
		}
		err = fmt.Errorf("drain timeout: cut %s", running)
	}
	s.admin.Shutdown(ctx)
	closed := make(chan error, 1)
	go func() { closed <- s.svc.tables.Snapshots().Close() }()
	// The snapshots go within ctx, or within stopGrace once it ended.
	removed := func(cerr error) error {
		if cerr != nil {
			s.cfg.Logger.Warn("remove snapshots", "err", cerr)
		}
		return err
	}
	select {
	case cerr := <-closed:
		return removed(cerr)
	case <-ctx.Done():
	}
	select {
	case cerr := <-closed:
		return removed(cerr)
	case <-time.After(stopGrace):
		return errors.Join(err, errors.New("drain timeout: snapshots not removed (storage does not answer); the next start removes them"))
	}
}

// stopGrace is how long Shutdown waits, once its context ended, for the
// cut RPCs to return and the snapshots to go.
const stopGrace = time.Second

// Running describes what the server is running: RPCs by method, and
// storage operations stuck in the kernel.
func (s *Server) Running() string {
	out := s.svc.rpcs.describe()
	if stuck := s.io.StuckOps(); len(stuck) > 0 {
		out += fmt.Sprintf("; %d storage operations stuck:", len(stuck))
		for i, st := range stuck {
			if i == 3 {
				out += " ..."
				break
			}
			out += fmt.Sprintf(" %s (%v)", st.Op, st.For.Round(time.Millisecond))
		}
	}
	return out
}
