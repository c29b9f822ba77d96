package flightserver

import (
	"bytes"
	"context"
	"log/slog"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/sstable-flight/sstable-flight/flightserver/transport"
)

// TestPanicFailsOnlyItsRPC: a handler that panics gets INTERNAL, counted
// by RPC, with its stack logged once per interval; the next RPC through
// the same interceptor is served as if nothing happened.
func TestPanicFailsOnlyItsRPC(t *testing.T) {
	var logged bytes.Buffer
	panics := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "p"}, []string{"rpc"})
	clock := time.Unix(0, 0)
	g := &panicGuard{log: slog.New(slog.NewTextHandler(&logged, nil)),
		limit: transport.NewLogLimiter(time.Minute, func() time.Time { return clock }), panics: panics}
	m := &metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "r"}, []string{"rpc", "code"}),
		latency:  prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "l"}, []string{"rpc"}),
	}
	s := &service{cfg: Config{}, metrics: m, scrub: transport.NewScrubber("/data", "/data"),
		log: slog.New(slog.NewTextHandler(&bytes.Buffer{}, nil)), rpcs: newRPCs(),
		failureLog: transport.NewLogLimiter(time.Minute, time.Now), guard: g}
	info := &grpc.UnaryServerInfo{FullMethod: "/arrow.flight.protocol.FlightService/GetFlightInfo"}
	boom := func(context.Context, any) (any, error) { panic("decoder bug") }
	for i := range 3 {
		resp, err := s.unaryInterceptor(context.Background(), nil, info, boom)
		if resp != nil || status.Code(err) != codes.Internal || strings.Contains(err.Error(), "decoder bug") {
			t.Fatalf("panic %d: got %v, %v; want INTERNAL without the panic's text", i, resp, err)
		}
	}
	if n := testutil.ToFloat64(panics.WithLabelValues("GetFlightInfo")); n != 3 {
		t.Errorf("panics counted %v, want 3", n)
	}
	if n := strings.Count(logged.String(), "rpc panicked"); n != 1 {
		t.Errorf("stack logged %d times in one interval, want once:\n%s", n, logged.String())
	}
	_, self, _, _ := runtime.Caller(0)
	if !strings.Contains(logged.String(), filepath.Base(self)) {
		t.Errorf("the log has no stack naming the panicking code:\n%s", logged.String())
	}
	resp, err := s.unaryInterceptor(context.Background(), nil, info, func(context.Context, any) (any, error) { return "ok", nil })
	if resp != "ok" || err != nil {
		t.Fatalf("the RPC after the panics: %v, %v", resp, err)
	}

	streamInfo := &grpc.StreamServerInfo{FullMethod: "/arrow.flight.protocol.FlightService/DoGet"}
	err = s.streamInterceptor(nil, fakeStream{}, streamInfo, func(any, grpc.ServerStream) error { panic(errPanicked) })
	if status.Code(err) != codes.Internal {
		t.Fatalf("a panicking stream: %v, want INTERNAL", err)
	}
}

// TestPanicRepanicsUnderInvariants: with repanic set (invariants builds)
// the guard counts the panic and lets it through, so a broken buffer
// contract still crashes the test that broke it.
func TestPanicRepanicsUnderInvariants(t *testing.T) {
	panics := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "p"}, []string{"rpc"})
	g := &panicGuard{log: slog.New(slog.NewTextHandler(&bytes.Buffer{}, nil)),
		limit: transport.NewLogLimiter(time.Minute, time.Now), panics: panics, repanic: true}
	defer func() {
		if r := recover(); r != "contract" {
			t.Fatalf("recovered %v, want the handler's panic let through", r)
		}
		if n := testutil.ToFloat64(panics.WithLabelValues("DoGet")); n != 1 {
			t.Errorf("panics counted %v, want 1", n)
		}
	}()
	var err error
	func() {
		defer g.catch("DoGet", &err)
		panic("contract")
	}()
}

type fakeStream struct{ grpc.ServerStream }

func (fakeStream) Context() context.Context { return context.Background() }
