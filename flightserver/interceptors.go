package flightserver

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/sstable-flight/sstable-flight/flightserver/auth"
	"github.com/sstable-flight/sstable-flight/flightserver/transport"
	"github.com/sstable-flight/sstable-flight/internal/invariants"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// The gRPC interceptors every RPC passes: the bearer-token check, then
// the handler (a panic in it fails that RPC alone: panicGuard, below),
// then metrics and the log line of a failure. Errors leave here as gRPC
// statuses (toStatus). rpcs, at the end, track the RPCs running, for a
// drain that timed out to say what it cut.

// authorize checks the bearer token, when one is configured.
func (s *service) authorize(ctx context.Context, method string) error {
	if s.cfg.AuthToken == "" || strings.HasPrefix(method, "/grpc.health.") {
		return nil
	}
	md, _ := metadata.FromIncomingContext(ctx)
	if auth.ValidBearer(md.Get("authorization"), s.cfg.AuthToken) {
		return nil
	}
	return status.Error(codes.Unauthenticated, "a valid bearer token is required")
}

// rpcName is the method's last path element, the metrics label.
func rpcName(method string) string { return method[strings.LastIndexByte(method, '/')+1:] }

// observe turns err into a status, counts and times the RPC, and logs a
// failure that is the server's concern (not a client's cancel, a missing
// table or a bad request), rate-limited per status code (logLimiter), so
// that a flood of failing calls, unauthenticated ones first, writes a
// line every few seconds rather than one a call. NB: start and the
// latency are real time (time.Now, never Config.Now): a latency is how
// long the RPC took, which an injected clock does not change.
func (s *service) observe(method string, start time.Time, err error) error {
	err = s.scrub.Status(toStatus(err))
	name := rpcName(method)
	code := status.Code(err)
	s.metrics.requests.WithLabelValues(name, code.String()).Inc()
	s.metrics.latency.WithLabelValues(name).Observe(time.Since(start).Seconds())
	if err != nil && code != codes.Canceled && code != codes.NotFound && code != codes.InvalidArgument {
		if ok, held := s.failureLog.Allow(code); ok && held > 0 {
			s.log.Warn("rpc failed", "rpc", name, "err", err, "suppressed", held)
		} else if ok {
			s.log.Warn("rpc failed", "rpc", name, "err", err)
		}
	}
	return err
}

// unaryInterceptor authorizes and observes a unary RPC.
func (s *service) unaryInterceptor(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
	start := time.Now()
	defer s.rpcs.end(s.rpcs.begin(info.FullMethod))
	if err := s.authorize(ctx, info.FullMethod); err != nil {
		return nil, s.observe(info.FullMethod, start, err)
	}
	resp, err := s.callUnary(ctx, req, info, h)
	return resp, s.observe(info.FullMethod, start, err)
}

// streamInterceptor authorizes and observes a streaming RPC.
func (s *service) streamInterceptor(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, h grpc.StreamHandler) error {
	start := time.Now()
	defer s.rpcs.end(s.rpcs.begin(info.FullMethod))
	if err := s.authorize(ss.Context(), info.FullMethod); err != nil {
		return s.observe(info.FullMethod, start, err)
	}
	return s.observe(info.FullMethod, start, s.callStream(srv, ss, info, h))
}

// callUnary and callStream run a handler under the panic guard.
func (s *service) callUnary(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (resp any, err error) {
	defer s.guard.catch(rpcName(info.FullMethod), &err)
	return h(ctx, req)
}

func (s *service) callStream(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, h grpc.StreamHandler) (err error) {
	defer s.guard.catch(rpcName(info.FullMethod), &err)
	return h(srv, ss)
}

// errPanicked is the status of an RPC whose handler panicked: the client
// learns that the server failed, not why (the stack is the operator's).
var errPanicked = status.Error(codes.Internal, "internal error: the server failed this request and logged why")

// panicGuard turns a panic in one RPC's handler into that RPC's INTERNAL
// status, so a decoder bug met on one damaged file fails the request that
// met it instead of the process and every other client's requests. The
// decoders run on the handler's goroutine, so recovering there covers
// them. Each panic is counted; its stack is logged once, at Error, rate-
// limited like failures (a client that can trigger the bug at will must
// not flood the log with stacks).
type panicGuard struct {
	log     *slog.Logger
	limit   *transport.LogLimiter
	panics  *prometheus.CounterVec // rpc
	repanic bool
}

func newPanicGuard(log *slog.Logger, limit *transport.LogLimiter, panics *prometheus.CounterVec) *panicGuard {
	// Builds with the invariants tag let the panic through after counting
	// it: there a panic is a broken contract the test must crash on, not a
	// failure to serve around.
	return &panicGuard{log: log, limit: limit, panics: panics, repanic: invariants.Enabled}
}

// catch, deferred by a handler's caller, turns the handler's panic into
// errPanicked in *err. It calls recover itself, as Go requires of the
// deferred function, so the guard costs no closure per RPC.
func (g *panicGuard) catch(rpc string, err *error) {
	r := recover()
	if r == nil {
		return
	}
	g.panics.WithLabelValues(rpc).Inc()
	if ok, held := g.limit.Allow(codes.Internal); ok {
		g.log.Error("rpc panicked", "rpc", rpc, "panic", r, "suppressed", held, "stack", string(debug.Stack()))
	}
	if g.repanic {
		panic(r)
	}
	*err = errPanicked
}

// rpcs are the RPCs running now: what a drain that timed out reports
// it cut.
type rpcs struct {
	mu      sync.Mutex
	running map[*rpc]struct{}
}

type rpc struct {
	method string
	start  time.Time // real time: how long it has run
}

func newRPCs() *rpcs { return &rpcs{running: map[*rpc]struct{}{}} }

func (r *rpcs) begin(method string) *rpc {
	c := &rpc{method: rpcName(method), start: time.Now()}
	r.mu.Lock()
	r.running[c] = struct{}{}
	r.mu.Unlock()
	return c
}

func (r *rpcs) end(c *rpc) {
	r.mu.Lock()
	delete(r.running, c)
	r.mu.Unlock()
}

// describe says how many RPCs run, by method, with the oldest's age:
// "2 RPCs (DoGet ×1 for 4s, GetFlightInfo ×1 for 3.5s)".
func (r *rpcs) describe() string {
	type method struct {
		n      int
		oldest time.Duration
	}
	now := time.Now()
	by := map[string]*method{}
	r.mu.Lock()
	n := len(r.running)
	for c := range r.running {
		m := by[c.method]
		if m == nil {
			m = &method{}
			by[c.method] = m
		}
		m.n++
		m.oldest = max(m.oldest, now.Sub(c.start))
	}
	r.mu.Unlock()
	if n == 0 {
		return "no RPC"
	}
	names := slices.Sorted(maps.Keys(by))
	parts := make([]string, len(names))
	for i, name := range names {
		parts[i] = fmt.Sprintf("%s ×%d for %v", name, by[name].n, by[name].oldest.Round(time.Millisecond))
	}
	return fmt.Sprintf("%d RPCs (%s)", n, strings.Join(parts, ", "))
}
