package flightserver

import (
	"context"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/sstable-flight/sstable-flight/flightserver/auth"
)

// The gRPC interceptors every RPC passes: the bearer-token check, then
// the handler (a panic in it fails that RPC alone: panicGuard), then metrics and the log line of a failure. Errors leave
// here as gRPC statuses (toStatus).

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
