package transport

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

// A client must keep its streams moving: send its request, and take the
// response as it comes. A watch, one per RPC (set up by the request
// limit's tap), cuts an RPC that does neither for StreamStallTimeout:
// it ends the stream with a status saying why (endStream), then cancels
// its context, which ends a Send blocked on HTTP/2 flow control (gRPC's
// Send waits on the stream's context) or a read of the request, so the
// handler returns and gives back its slots.
//
// NB: the status must be written before the context is cancelled. A Send
// or a read of the request that fails writes the stream's status itself,
// from the context's error (DEADLINE_EXCEEDED "context deadline
// exceeded", whatever the cause), before the handler returns, and gRPC
// writes only a stream's first status: the handler's own would never be
// seen. A trailer is not flow-controlled, but gRPC queues it behind the
// stream's unsent messages, so a client that reads on gets what was
// queued, then the status.
//
// NB: what gRPC has queued for a stream stays queued until the client
// reads it or the connection closes: a stream whose handler returned is
// freed only when its trailer is written. So a stream cut for not
// reading closes its connection too, after stalledConnGrace (in which a
// client that was only slow still gets the status).

var (
	errNoRequest = errors.New("no request message")
	errStalled   = errors.New("stream made no send progress")
)

// stalledConnGrace is how long a stalled stream's connection stays open
// after the stream is cut.
const stalledConnGrace = time.Second

// Phases of a watch: what the RPC waits for, if anything.
const (
	watchIdle int32 = iota
	watchReceiving
	watchSending
)

type watch struct {
	stall    time.Duration
	cancel   context.CancelCauseFunc
	timer    *time.Timer
	phase    atomic.Int32
	deadline atomic.Int64       // unix nanoseconds: when the phase stalls
	conn     *limitedConn       // nil when not served through a connLimit
	cut      func(limit string) // counts a cut RPC
	// cutPhase is the phase the watch cut the RPC in, once it did. The
	// context's cause cannot say: ending the stream cancels its parent
	// context first.
	cutPhase atomic.Int32
	// stream ends the RPC's stream with a status; nil until a stream
	// interceptor has seen the RPC (gRPC reads a unary RPC's request
	// before any interceptor runs).
	stream atomic.Pointer[endStream]
}

// endStream is what gRPC's transport stream (the grpc.ServerTransportStream
// in a handler's context) does beyond that interface: end the stream with
// a status, once. NB: it is not part of gRPC's API; a gRPC without it
// leaves a cut RPC with the status its failed Send writes
// (TestStalledStreamTellsTheClient fails then).
type endStream interface {
	WriteStatus(*status.Status) error
}

type watchKey struct{}

// newWatch watches an RPC whose context is ctx, waiting for its request.
func newWatch(ctx context.Context, stall time.Duration, conns *ConnLimit, cut func(string)) (context.Context, *watch) {
	cctx, cancel := context.WithCancelCause(ctx)
	w := &watch{stall: stall, cancel: cancel, cut: cut}
	if p, ok := peer.FromContext(ctx); ok && conns != nil {
		w.conn = conns.conn(p.Addr)
	}
	w.arm(watchReceiving)
	w.timer = time.AfterFunc(stall, w.fire)
	return &watchContext{Context: cctx, w: w}, w
}

// watchContext is an RPC's context: it holds the RPC's watch, and its
// error is DeadlineExceeded once the watch cut it, so that where the
// watch could not end the stream first (a unary RPC's request), the
// status gRPC writes from it does not read as the client's own cancel.
type watchContext struct {
	context.Context
	w *watch
}

func (c *watchContext) Value(key any) any {
	if key == (watchKey{}) {
		return c.w
	}
	return c.Context.Value(key)
}

func (c *watchContext) Err() error {
	err := c.Context.Err()
	if err != nil && c.w.cutPhase.Load() != watchIdle {
		return context.DeadlineExceeded
	}
	return err
}

func watchOf(ctx context.Context) *watch {
	w, _ := ctx.Value(watchKey{}).(*watch)
	return w
}

func (w *watch) arm(phase int32) {
	// A real clock, not Config.Now: a stall is the client's real time.
	w.deadline.Store(time.Now().Add(w.stall).UnixNano())
	w.phase.Store(phase)
}

// wait starts a phase: the RPC waits for the client.
func (w *watch) wait(phase int32) {
	w.arm(phase)
	w.timer.Reset(w.stall)
}

// queued counts a response message gRPC will queue for the client, for
// the connection's sweep.
func (w *watch) queued(m any) {
	if pm, ok := m.(proto.Message); ok && w.conn != nil {
		w.conn.queued.Add(int64(proto.Size(pm)))
	}
}

// done ends a phase: the client did its part.
func (w *watch) done() {
	w.phase.Store(watchIdle)
	w.timer.Stop()
}

// stop ends the watch, as the RPC ends.
func (w *watch) stop() {
	w.phase.Store(watchIdle)
	w.timer.Stop()
}

// fire cuts the RPC if its phase has stalled: it ends the stream with
// the cut's status, then cancels the context. A timer that fires late,
// after its phase ended or a new one began, finds the phase idle or its
// deadline ahead, and does nothing.
func (w *watch) fire() {
	phase := w.phase.Load()
	if phase == watchIdle || time.Now().UnixNano() < w.deadline.Load() {
		return
	}
	w.cutPhase.Store(phase)
	cause, limit := errNoRequest, "request_timeout"
	if phase == watchSending {
		cause, limit = errStalled, "stall"
	}
	w.cut(limit)
	if es := w.stream.Load(); es != nil {
		st, _ := status.FromError(w.cutStatus(cause))
		(*es).WriteStatus(st) // an error leaves the stream to the cancel
	}
	w.cancel(cause)
	if c := w.conn; phase == watchSending && c != nil {
		time.AfterFunc(stalledConnGrace, func() { c.Close() })
	}
}

// cutStatus is the status of an RPC its watch cut, or err as it is.
func (w *watch) cutStatus(err error) error {
	if err == nil {
		return nil
	}
	switch w.cutPhase.Load() {
	case watchReceiving:
		return status.Errorf(codes.DeadlineExceeded, "%v within %v of the call (StreamStallTimeout): call cut", errNoRequest, w.stall)
	case watchSending:
		// RESOURCE_EXHAUSTED, as for the other limits a client exceeds
		// (gRPC's own for a peer that abuses the connection): the client
		// gave no deadline that expired, and the call is not worth
		// retrying unchanged, only with a client that reads.
		return status.Errorf(codes.ResourceExhausted, "%v for %v (client not reading; StreamStallTimeout): stream cut, admission slot released, connection closed in %v; read a stream's messages as they arrive",
			errStalled, w.stall, stalledConnGrace)
	}
	return err
}

// watchUnary ends a unary RPC's wait for its request, which gRPC has read
// by the time interceptors run.
func watchUnary(ctx context.Context, req any, _ *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
	w := watchOf(ctx)
	if w == nil {
		return h(ctx, req)
	}
	w.done()
	resp, err := h(ctx, req)
	if err == nil {
		w.queued(resp)
	}
	return resp, err
}

// watchStream times a streaming RPC's request and each of its sends.
func watchStream(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, h grpc.StreamHandler) error {
	w := watchOf(ss.Context())
	if w == nil {
		return h(srv, ss)
	}
	if es, ok := grpc.ServerTransportStreamFromContext(ss.Context()).(endStream); ok {
		w.stream.Store(&es)
	}
	return w.cutStatus(h(srv, &watchedStream{ServerStream: ss, w: w}))
}

type watchedStream struct {
	grpc.ServerStream
	w        *watch
	received bool
}

// RecvMsg reads the request; the handler's error, as it leaves
// watchStream, says whether the watch cut it.
func (s *watchedStream) RecvMsg(m any) error {
	err := s.ServerStream.RecvMsg(m)
	if !s.received {
		s.received = true
		s.w.done()
	}
	return err
}

func (s *watchedStream) SendMsg(m any) error {
	s.w.queued(m)
	s.w.wait(watchSending)
	err := s.ServerStream.SendMsg(m)
	s.w.done()
	return err
}
