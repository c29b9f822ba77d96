package flightserver_test

import (
	"bytes"
	"context"
	"io"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
)

// rawCodec sends and receives messages as the bytes given, so a test can
// send what no protobuf library would marshal.
type rawCodec struct{}

func (rawCodec) Marshal(v any) ([]byte, error)      { return v.([]byte), nil }
func (rawCodec) Unmarshal(data []byte, v any) error { *v.(*[]byte) = bytes.Clone(data); return nil }
func (rawCodec) Name() string                       { return "proto" }

// pathDescriptor is a FlightDescriptor of type PATH as protobuf bytes:
// field 1 (type) = 1, then field 3 (path) per element, whatever bytes.
func pathDescriptor(elems ...string) []byte {
	b := []byte{0x08, 0x01}
	for _, e := range elems {
		b = append(b, 0x1a, byte(len(e)))
		b = append(b, e...)
	}
	return b
}

// TestUndecodableRequestsAreInvalid: a request whose protobuf does not
// decode (invalid UTF-8 in a PATH descriptor's string, a truncated
// field) is INVALID_ARGUMENT on every RPC, not INTERNAL as before: it is
// the client's mistake, not the server's.
func TestUndecodableRequestsAreInvalid(t *testing.T) {
	ts := startServer(t, "oa")
	ctx := context.Background()
	conn, err := grpc.NewClient(ts.addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	const svc = "/arrow.flight.protocol.FlightService/"
	unary := func(method string, req []byte) error {
		var resp []byte
		return conn.Invoke(ctx, svc+method, req, &resp, grpc.ForceCodec(rawCodec{}))
	}
	stream := func(method string, req []byte) error {
		s, err := conn.NewStream(ctx, &grpc.StreamDesc{ServerStreams: true}, svc+method, grpc.ForceCodec(rawCodec{}))
		if err != nil {
			return err
		}
		if err := s.SendMsg(req); err != nil {
			return err
		}
		if err := s.CloseSend(); err != nil {
			return err
		}
		for {
			var resp []byte
			if err := s.RecvMsg(&resp); err != nil {
				if err == io.EOF {
					return nil
				}
				return err
			}
		}
	}
	// The raw path itself works: a good descriptor is served.
	if err := unary("GetSchema", pathDescriptor("corpus", "many")); err != nil {
		t.Fatalf("a good raw descriptor: %v", err)
	}
	for _, c := range []struct {
		name string
		call func() error
	}{
		{"GetFlightInfo, invalid UTF-8 in the path", func() error { return unary("GetFlightInfo", pathDescriptor("corpus", "m\xffny")) }},
		{"GetSchema, invalid UTF-8 in the path", func() error { return unary("GetSchema", pathDescriptor("\xc3", "many")) }},
		{"GetFlightInfo, truncated", func() error { return unary("GetFlightInfo", []byte{0x08, 0x01, 0x1a, 0x09, 'c'}) }},
		{"DoGet, truncated ticket", func() error { return stream("DoGet", []byte{0x0a, 0x05, 'a', 'b'}) }},
		{"ListFlights, bad wire type", func() error { return stream("ListFlights", []byte{0x0f}) }},
		{"DoAction, invalid UTF-8 in the type", func() error { return stream("DoAction", []byte{0x0a, 0x02, 0xff, 0xfe}) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			if err := c.call(); status.Code(err) != codes.InvalidArgument {
				t.Fatalf("%v, want INVALID_ARGUMENT", err)
			}
		})
	}
}
