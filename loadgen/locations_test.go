package loadgen

import (
	"context"
	"net"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// scanEndpoints plans a 4-way scan of table through l's planner.
func scanEndpoints(t *testing.T, l *Locations, table string) []*flight.FlightEndpoint {
	t.Helper()
	info, err := l.planner.GetFlightInfo(context.Background(), &flight.FlightDescriptor{Type: flight.DescriptorCMD,
		Cmd: []byte(`{"version":1,"keyspace":"corpus","table":"` + table + `","splits":4}`)})
	if err != nil {
		t.Fatal(err)
	}
	if len(info.Endpoint) < 2 {
		t.Fatalf("scan planned %d endpoints, want several", len(info.Endpoint))
	}
	return info.Endpoint
}

// deadURI is a location nothing listens at: a port just closed.
func deadURI(t *testing.T) string {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := lis.Addr().String()
	lis.Close()
	return "grpc://" + addr
}

func servedAt(t *testing.T, l *Locations, loc string) LocationServed {
	t.Helper()
	for _, s := range l.Served() {
		if s.Location == loc {
			return s
		}
	}
	return LocationServed{Location: loc}
}

// An endpoint whose first location is unreachable is read from its next
// one, every row once, and the skip is counted against the dead one.
func TestLocationsSkipUnreachable(t *testing.T) {
	ts := startServer(t)
	cfg := ts.config("many", ShapeScan)
	l, _ := connect(t, &cfg)
	eps := scanEndpoints(t, l, "many")
	dead, live := deadURI(t), "grpc://"+ts.addr
	for _, ep := range eps {
		ep.Location = []*flight.Location{{Uri: dead}, {Uri: live}}
	}
	res, err := ReadEndpoints(context.Background(), l, eps, 0)
	if err != nil {
		t.Fatal(err)
	}
	if res.Rows != 520 {
		t.Fatalf("read %d rows, want the table's 520", res.Rows)
	}
	if d := servedAt(t, l, dead); d.Skipped != int64(len(eps)) || d.Rows != 0 {
		t.Errorf("dead location: %+v, want %d skips and no rows", d, len(eps))
	}
	if s := servedAt(t, l, live); s.Rows != 520 || s.Endpoints != int64(len(eps)) {
		t.Errorf("live location: %+v, want all 520 rows over %d endpoints", s, len(eps))
	}

	// Every location dead: the op fails naming them, rather than read
	// nothing as success.
	for _, ep := range eps {
		ep.Location = []*flight.Location{{Uri: dead}}
	}
	if _, err := ReadEndpoints(context.Background(), l, eps, 0); err == nil || !strings.Contains(err.Error(), dead) {
		t.Fatalf("every location dead: %v, want an error naming %s", err, dead)
	}
}

// failAfterFirstBatch fails every DoGet stream UNAVAILABLE once it has
// delivered its schema and one record batch, as a server stopped in the
// middle of a stream would.
func failAfterFirstBatch() grpc.DialOption {
	return grpc.WithChainStreamInterceptor(func(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, s grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
		cs, err := s(ctx, desc, cc, method, opts...)
		if err != nil || !strings.HasSuffix(method, "/DoGet") {
			return cs, err
		}
		return &cutStream{ClientStream: cs}, nil
	})
}

type cutStream struct {
	grpc.ClientStream
	msgs int
}

func (c *cutStream) RecvMsg(m any) error {
	if c.msgs == 2 { // the schema, then one batch
		return status.Error(codes.Unavailable, "test: stream cut after its first batch")
	}
	c.msgs++
	return c.ClientStream.RecvMsg(m)
}

// A location that fails after its first batch fails the endpoint: the
// next location is not tried, since its rows would repeat those read.
func TestLocationsFailAfterFirstBatch(t *testing.T) {
	ts := startServer(t)
	cfg := ts.config("many", ShapeScan)
	cfg.DialOptions = []grpc.DialOption{failAfterFirstBatch()}
	l, _ := connect(t, &cfg)
	eps := scanEndpoints(t, l, "many")
	first, second := "grpc://"+ts.addr, "grpc+tcp://"+ts.addr // one server, two connections
	for _, ep := range eps {
		ep.Location = []*flight.Location{{Uri: first}, {Uri: second}}
	}
	_, err := ReadEndpoints(context.Background(), l, eps, 1)
	if codeOf(err) != Unavailable || !strings.Contains(err.Error(), "cut after its first batch") {
		t.Fatalf("stream cut after a batch: %v, want that UNAVAILABLE", err)
	}
	if s := servedAt(t, l, second); s.Endpoints != 0 || s.Rows != 0 {
		t.Errorf("second location served %+v after the first failed mid-stream, want nothing", s)
	}
	if f := servedAt(t, l, first); f.Skipped != 0 {
		t.Errorf("first location skipped %d times, want 0: it failed after a batch", f.Skipped)
	}
}
