package flighttest

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/sstable-flight/sstable-flight/flightserver"
)

// Server is a Flight server built from a Config and serving on loopback
// ports for the length of a test.
type Server struct {
	*flightserver.Server
	// Addr is the Flight listener's address; AdminAddr the admin
	// endpoint's, empty unless Serve was asked for one.
	Addr, AdminAddr string
}

// Serve builds a server from cfg, failing t on a refused Config, and
// serves Flight on a loopback port, and the admin endpoint on another
// when admin is set. When the test ends it shuts the server down (5 s at
// most) and waits for every Serve to return, so that a leak check after
// the tests sees none of the server's goroutines. Cleanups run last
// registered first: one registered before Serve runs after the shutdown.
func Serve(t testing.TB, cfg flightserver.Config, admin bool) *Server {
	t.Helper()
	srv, err := flightserver.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan struct{}, 2)
	running := 0
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
		for range running {
			<-served
		}
	})
	listen := func(serve func(net.Listener) error) string {
		lis, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		running++
		go func() {
			serve(lis)
			served <- struct{}{}
		}()
		return lis.Addr().String()
	}
	s := &Server{Server: srv, Addr: listen(srv.Serve)}
	if admin {
		s.AdminAddr = listen(srv.ServeAdmin)
	}
	return s
}

// Dial returns a plaintext Flight client of addr, closed when the test
// ends; opts are added to the dial options.
func Dial(t testing.TB, addr string, opts ...grpc.DialOption) flight.Client {
	t.Helper()
	c, err := flight.NewClientWithMiddleware(addr, nil, nil, append([]grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials())}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}
