package transport

import (
	"context"
	"strings"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/tap"
)

// The limits on what a client can make the server hold before (and
// while) its request is admitted: docs/operations.md, "Limits", derives
// the memory bound from them.

const (
	// maxHeaderListBytes bounds a request's metadata (gRPC's default
	// is 16 MiB): a bearer token and a few headers need far less.
	maxHeaderListBytes = 16 << 10
	// requestWindow is the HTTP/2 window of each stream's request data,
	// fixed so that a stream holds at most this much its handler has not
	// read (gRPC's dynamic window grows up to 16 MiB). Requests are
	// small; responses follow the client's window, not this one.
	requestWindow = 64 << 10
	// connRequestWindow is a connection's window for request data.
	connRequestWindow = 16 * requestWindow
	// maxHealthRequests bounds health checks in progress apart from
	// MaxRequests, so that a flood of Flight RPCs does not fail the
	// probes of a server that is working.
	maxHealthRequests = 16
	// TicketFraming is what a ticket adds to its bytes as a message (a
	// field tag and a length), which MaxRequestBytes counts too.
	TicketFraming = 8
	// keepaliveMinTime is how often a client may ping.
	keepaliveMinTime = 10 * time.Second
)

// Limits are the bounds ServerOptions gives gRPC: the server's
// Config's fields of the same names, which document them.
type Limits struct {
	MaxRequestBytes  int
	MaxConnStreams   int
	HandshakeTimeout time.Duration
	ConnIdleTimeout  time.Duration
	ConnMaxAge       time.Duration
	ConnMaxAgeGrace  time.Duration
}

// ServerOptions are the gRPC options that bound what a request may hold
// and how long a client may hold it.
func ServerOptions(cfg Limits, reqs *RequestLimit) []grpc.ServerOption {
	return []grpc.ServerOption{
		grpc.MaxRecvMsgSize(cfg.MaxRequestBytes),
		grpc.MaxConcurrentStreams(uint32(cfg.MaxConnStreams)),
		grpc.MaxHeaderListSize(maxHeaderListBytes),
		grpc.StaticStreamWindowSize(requestWindow),
		grpc.StaticConnWindowSize(connRequestWindow),
		grpc.InTapHandle(reqs.tap),
		// Inside the service's own interceptors, so that they log and
		// count the status of an RPC a watch cut.
		grpc.ChainUnaryInterceptor(watchUnary),
		grpc.ChainStreamInterceptor(watchStream),
		grpc.ConnectionTimeout(cfg.HandshakeTimeout),
		grpc.KeepaliveParams(keepalive.ServerParameters{
			MaxConnectionIdle: cfg.ConnIdleTimeout, MaxConnectionAge: cfg.ConnMaxAge, MaxConnectionAgeGrace: cfg.ConnMaxAgeGrace,
		}),
		// Clients may keep a connection alive with pings every 10 s, with
		// or without calls (gRPC's default refuses pings more often than
		// every 5 minutes, and any without calls); a client that pings
		// more often is sent GOAWAY.
		grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{MinTime: keepaliveMinTime, PermitWithoutStream: true}),
	}
}

// RequestLimit bounds the RPCs in progress (Config.MaxRequests), and
// health checks apart. Its tap runs as a stream's headers arrive, before
// any of its message is read: an RPC beyond the bound is refused then,
// so it costs no more than its headers.
type RequestLimit struct {
	flight, health atomic.Int64
	max            int64
	stall          time.Duration
	conns          *ConnLimit
	refused        *prometheus.CounterVec // by limit
}

// NewRequestLimit bounds the Flight RPCs in progress to max, and cuts a
// stream stalled for stall (Config.MaxRequests, StreamStallTimeout);
// refused counts what it refused or cut, by limit.
func NewRequestLimit(max int, stall time.Duration, conns *ConnLimit, refused *prometheus.CounterVec) *RequestLimit {
	for _, limit := range []string{"requests", "request_timeout", "stall", "conn_stall"} {
		refused.WithLabelValues(limit) // listed at 0
	}
	return &RequestLimit{max: int64(max), stall: stall, conns: conns, refused: refused}
}

func (r *RequestLimit) cut(limit string) { r.refused.WithLabelValues(limit).Inc() }

// tap counts the RPC in until its stream ends (gRPC cancels a stream's
// context when it ends, however it ends) and sets its watch. NB: gRPC
// calls it with its connection's lock held: it must not block.
func (r *RequestLimit) tap(ctx context.Context, info *tap.Info) (context.Context, error) {
	n, max := &r.flight, r.max
	if strings.HasPrefix(info.FullMethodName, "/grpc.health.") {
		n, max = &r.health, maxHealthRequests
	}
	if n.Add(1) > max {
		n.Add(-1)
		r.cut("requests")
		return nil, status.Errorf(codes.Unavailable, "server busy: %d requests in progress (MaxRequests); retry later", max)
	}
	ctx, w := newWatch(ctx, r.stall, r.conns, r.cut)
	context.AfterFunc(ctx, func() {
		w.stop()
		n.Add(-1)
	})
	return ctx, nil
}
