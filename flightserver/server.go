package flightserver

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	flightgen "github.com/apache/arrow-go/v18/arrow/flight/gen/flight"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

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
	conns  *connLimit // caps the connections Serve accepts
}

// New builds a server over cfg.DataDir; Serve starts it.
func New(cfg Config) (*Server, error) {
	if err := cfg.resolve(); err != nil {
		return nil, fmt.Errorf("start server: %w", err)
	}
	keys, err := loadTicketKeys(cfg.TicketKeyFile)
	if err != nil {
		return nil, fmt.Errorf("start server: %w", err)
	}
	sc := cfg.Snapshot
	var caches sstable.Options // the point reads' caches every reader shares
	if cfg.ChunkCacheBytes > 0 {
		caches.ChunkCache = sstable.NewChunkCache(cfg.ChunkCacheBytes)
	}
	if cfg.KeyCacheBytes > 0 {
		caches.KeyCache = sstable.NewKeyCache(cfg.KeyCacheBytes)
	}
	if sc.Open == nil {
		sc.Open = func(path string) (*sstable.Reader, error) { return sstable.Open(path, caches) }
	}
	if sc.OpenFS == nil {
		sc.OpenFS = func(path string, fsys sstable.FS) (*sstable.Reader, error) {
			o := caches
			o.FS = fsys
			return sstable.Open(path, o)
		}
	}
	snaps, err := snapshot.NewManager(sc)
	if err != nil {
		return nil, fmt.Errorf("start server: %w", snapshotConfigError(err))
	}
	adm := newAdmission(cfg.MaxStreams, cfg.AdmissionWait)
	m := newMetrics(adm, snaps, sc.Sidecar, caches)
	svc := &service{cfg: cfg, mem: cfg.Allocator, adm: adm, metrics: m, log: cfg.Logger, keys: keys,
		failureLog: newLogLimiter(failureLogInterval, time.Now)}
	// The table cache trusts what it found for the snapshots' window,
	// as the manager resolved it for its mode: one rule, not a guess.
	// Listings start from the data directory as the manager resolved
	// it; a keyspace or table directory that is a link is skipped, and
	// logged once.
	skipped := func(l snapshot.SkippedLink) {
		cfg.Logger.Warn("skipped a symbolic link in the data directory: keyspace and table directories are never read through links",
			"path", l.Path, "target", l.Target)
	}
	svc.tables = &tables{dataDir: snaps.DataDir(), lister: snapshot.NewLister(snaps.DataDir(), skipped), schemas: cfg.Schemas, snaps: snaps,
		fresh: snaps.Window(), now: cfg.Now, built: map[string]*table{}, found: map[tableName]foundDir{}}

	opts := []grpc.ServerOption{
		grpc.ChainUnaryInterceptor(svc.unaryInterceptor),
		grpc.ChainStreamInterceptor(svc.streamInterceptor),
		// NB: RPCs run on reused workers, whose stacks have already
		// grown to what a DoGet needs: a new goroutine per RPC copied its
		// stack as it grew (runtime.newstack/copystack: 8% of the
		// server's CPU under 32 concurrent point reads).
		grpc.NumStreamWorkers(uint32(streamWorkers(cfg.MaxStreams))),
		// A request that does not decode is INVALID_ARGUMENT, not
		// INTERNAL (undecodable.go).
		grpc.ForceServerCodecV2(newRequestCodec()),
	}
	// What a request may hold before it is admitted (limits.go).
	svc.decoding = newBudget(int64(cfg.MaxDecodeBytes), cfg.AdmissionWait)
	conns := newConnLimit(cfg.MaxConns, cfg.StreamStallTimeout, func(limit string) { m.refused.WithLabelValues(limit).Inc() })
	m.connections(conns)
	opts = append(opts, limitOptions(&cfg, newRequestLimit(&cfg, conns, m.refused))...)
	if cfg.tlsConf != nil {
		opts = append(opts, grpc.Creds(credentials.NewTLS(cfg.tlsConf)))
	}
	s := &Server{cfg: cfg, svc: svc, grpc: grpc.NewServer(opts...), health: health.NewServer(), conns: conns}
	s.grpc.RegisterService(invalidWhenUndecodable(&flightgen.FlightService_ServiceDesc), svc)
	s.grpc.RegisterService(invalidWhenUndecodable(&healthpb.Health_ServiceDesc), s.health)

	s.admin = newAdmin(cfg, m.reg)
	return s, nil
}

// streamWorkers sizes gRPC's worker pool: every admitted stream and as
// many waiting ones, plus room for unary calls; RPCs beyond it still get
// a goroutine of their own.
func streamWorkers(maxStreams int) int { return max(16, 4*maxStreams) }

// Serve serves Flight on lis until Shutdown.
func (s *Server) Serve(lis net.Listener) error {
	s.health.SetServingStatus("", healthpb.HealthCheckResponse_SERVING)
	snaps := s.svc.tables.snaps
	s.cfg.Logger.Info("serving Flight", "addr", lis.Addr().String(), "data_dir", s.cfg.DataDir, "max_streams", s.cfg.MaxStreams,
		"snapshot_mode", snaps.Mode(), "snapshot_dir", snaps.Dir())
	return s.grpc.Serve(s.conns.listen(lis))
}

// ServeAdmin serves /metrics, and /debug/pprof when Config.Pprof, on
// lis until Shutdown: over TLS when Flight has it (newAdmin).
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

// Shutdown drains: health turns NOT_SERVING, new RPCs are refused,
// running streams finish until ctx ends, then the rest are cut.
func (s *Server) Shutdown(ctx context.Context) {
	s.health.Shutdown()
	done := make(chan struct{})
	go func() {
		s.grpc.GracefulStop()
		close(done)
	}()
	select {
	case <-done:
	case <-ctx.Done():
		s.grpc.Stop()
		<-done
	}
	s.admin.Shutdown(ctx)
	if err := s.svc.tables.snaps.Close(); err != nil {
		s.cfg.Logger.Warn("remove snapshots", "err", err)
	}
}
