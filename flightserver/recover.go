package flightserver

import (
	"log/slog"
	"runtime/debug"

	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/sstable-flight/sstable-flight/flightserver/transport"
	"github.com/sstable-flight/sstable-flight/internal/invariants"
)

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
