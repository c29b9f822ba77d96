package flightserver_test

import (
	"context"
	"io"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/connectivity"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/sstable-flight/sstable-flight/flightserver"
	"github.com/sstable-flight/sstable-flight/internal/testkit/flighttest"
)

// Issue #15, finding 3: clients that stop reading, or never send, or sit
// on idle connections, hold nothing for ever.

// stingyClient is a Flight client on its own connection whose HTTP/2
// windows stay at 64 KiB (no dynamic window): a stream it does not read
// fills them, and the server's Send blocks.
func stingyClient(t *testing.T, addr string) (flight.FlightServiceClient, *grpc.ClientConn) {
	t.Helper()
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithInitialWindowSize(64<<10), grpc.WithInitialConnWindowSize(64<<10))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return flight.NewFlightServiceClient(conn), conn
}

// wideFlight plans a scan of corpus.wide.
func wideFlight(t *testing.T, ts *testServer) *flight.FlightInfo {
	t.Helper()
	info, err := ts.client.GetFlightInfo(context.Background(), path("corpus", "wide"))
	if err != nil {
		t.Fatal(err)
	}
	return info
}

// TestStalledStreamsLoseTheirSlots: DoGets whose client never reads hold
// every slot; after StreamStallTimeout they are cut, their slots freed
// (another client's scan is served), their connection closed, and the
// stalled client gets an error, never a short success. Before, every
// other DoGet was UNAVAILABLE for as long as they stayed connected.
func TestStalledStreamsLoseTheirSlots(t *testing.T) {
	const stall = time.Second
	ts := startServer(t, "oa", func(c *flightserver.Config) {
		// One row a batch: corpus.wide is then ~500 KB of messages, more
		// than the stingy client's window and gRPC's write quota.
		c.MaxStreams, c.AdmissionWait, c.BatchRows, c.StreamStallTimeout = 2, 200*time.Millisecond, 1, stall
	})
	metric := adminMetric(t, ts)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	info := wideFlight(t, ts)
	want := 0
	for _, r := range ts.readAll(t, info) {
		want += int(r.NumRows())
	}
	stingy, conn := stingyClient(t, ts.addr)
	var stalled []flight.FlightService_DoGetClient
	for range 2 {
		s, err := stingy.DoGet(ctx, info.Endpoint[0].Ticket)
		if err != nil {
			t.Fatal(err)
		}
		stalled = append(stalled, s)
	}
	for metric("sstf_streams_active") != "2" {
		time.Sleep(10 * time.Millisecond)
	}
	start := time.Now()
	if n, err := readStream(ctx, ts, info.Endpoint[0].Ticket.Ticket); status.Code(err) != codes.Unavailable {
		t.Fatalf("DoGet with both slots stalled: %d messages, %v; want UNAVAILABLE", n, err)
	}
	var rows int
	for {
		n, err := countRows(ctx, ts, info.Endpoint[0].Ticket.Ticket)
		if err == nil {
			rows = n
			break
		}
		if status.Code(err) != codes.Unavailable {
			t.Fatalf("DoGet after the stall: %v", err)
		}
		if time.Since(start) > stall+10*time.Second {
			t.Fatalf("still UNAVAILABLE %v after the stall began (StreamStallTimeout %v): %v", time.Since(start), stall, err)
		}
	}
	t.Logf("a scan was served %v after two stalled streams took both slots", time.Since(start))
	if rows != want {
		t.Errorf("scan after the stall: %d rows, want %d", rows, want)
	}
	// Both were cut by their watch, or the second went with the
	// connection the first one's cut closed.
	if v := metric(`sstf_limit_refusals_total{limit="stall"}`); v != "1" && v != "2" {
		t.Errorf(`sstf_limit_refusals_total{limit="stall"} %q, want 1 or 2`, v)
	}
	// Its connection is closed; what it reads now ends in an error.
	for conn.GetState() == connectivity.Ready {
		if time.Since(start) > stall+10*time.Second {
			t.Fatalf("the stalled client's connection still open %v later", time.Since(start))
		}
		time.Sleep(20 * time.Millisecond)
	}
	for i, s := range stalled {
		var err error
		for err == nil {
			_, err = s.Recv()
		}
		if err == io.EOF {
			t.Errorf("stalled stream %d ended as a success", i)
		}
		t.Logf("stalled stream %d: %v", i, err)
	}
}

// TestRequestNeverSentIsCut: a DoGet whose client opens the call but
// never sends its ticket is cut after StreamStallTimeout with
// DEADLINE_EXCEEDED, where it used to wait for ever.
func TestRequestNeverSentIsCut(t *testing.T) {
	const stall = 500 * time.Millisecond
	ts := startServer(t, "oa", func(c *flightserver.Config) { c.StreamStallTimeout = stall })
	metric := adminMetric(t, ts)
	conn, err := grpc.NewClient(ts.addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	desc := &grpc.StreamDesc{ServerStreams: true, ClientStreams: true}
	stream, err := conn.NewStream(ctx, desc, "/arrow.flight.protocol.FlightService/DoGet")
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan error, 1)
	start := time.Now()
	go func() { got <- stream.RecvMsg(new(flight.FlightData)) }()
	select {
	case err := <-got:
		t.Logf("cut after %v: %v", time.Since(start), err)
		if status.Code(err) != codes.DeadlineExceeded {
			t.Errorf("call without a request: %v, want DEADLINE_EXCEEDED", err)
		}
		if v := metric(`sstf_limit_refusals_total{limit="request_timeout"}`); v != "1" {
			t.Errorf(`sstf_limit_refusals_total{limit="request_timeout"} %q, want 1`, v)
		}
	case <-time.After(stall + 3*time.Second):
		t.Fatalf("a call without a request still open after %v (StreamStallTimeout %v)", time.Since(start), stall)
	}
}

// TestIdleConnectionsAreClosed: a TCP connection that never completes
// its HTTP/2 handshake is closed after HandshakeTimeout, and one without
// calls after ConnIdleTimeout (gRPC's defaults: 120 s and never).
func TestIdleConnectionsAreClosed(t *testing.T) {
	const timeout = 500 * time.Millisecond
	ts := startServer(t, "oa", func(c *flightserver.Config) { c.HandshakeTimeout, c.ConnIdleTimeout = timeout, timeout })
	raw, err := net.Dial("tcp", ts.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	start := time.Now()
	raw.SetReadDeadline(time.Now().Add(timeout + 5*time.Second))
	_, err = io.Copy(io.Discard, raw) // the server's SETTINGS, then its close
	if err != nil {
		t.Errorf("a connection that sent nothing: %v after %v, want closed by the server after %v", err, time.Since(start), timeout)
	} else {
		t.Logf("a connection that sent nothing was closed after %v", time.Since(start))
	}

	_, conn := stingyClient(t, ts.addr)
	conn.Connect()
	for conn.GetState() != connectivity.Ready {
		if !conn.WaitForStateChange(context.Background(), conn.GetState()) {
			t.Fatal("no connection")
		}
	}
	start = time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), timeout+5*time.Second)
	defer cancel()
	// The server's GOAWAY and close make an idle client connection IDLE.
	for conn.GetState() == connectivity.Ready {
		if !conn.WaitForStateChange(ctx, connectivity.Ready) {
			t.Fatalf("a connection without calls still open after %v, ConnIdleTimeout %v", time.Since(start), timeout)
		}
	}
	t.Logf("a connection without calls was closed after %v", time.Since(start))
}

// TestConnectionsAreCapped: beyond MaxConns a connection is not accepted
// (it waits in the kernel's queue, holding no descriptor of the server)
// until one closes.
func TestConnectionsAreCapped(t *testing.T) {
	const max = 4
	ts := startServer(t, "oa", func(c *flightserver.Config) { c.MaxConns = max })
	metric := adminMetric(t, ts)
	var conns []net.Conn
	for range 3 * max {
		c, err := net.Dial("tcp", ts.addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		conns = append(conns, c)
	}
	// An accepted connection gets the server's SETTINGS at once.
	accepted := func(c net.Conn) bool {
		c.SetReadDeadline(time.Now().Add(150 * time.Millisecond))
		n, _ := c.Read(make([]byte, 64))
		return n > 0
	}
	var open []int
	for i, c := range conns {
		if accepted(c) {
			open = append(open, i)
		}
	}
	if len(open) != max {
		t.Fatalf("%d of %d connections accepted, want MaxConns %d", len(open), len(conns), max)
	}
	if v := metric("sstf_connections"); v != "4" {
		t.Errorf("sstf_connections %q, want %d", v, max)
	}
	conns[open[0]].Close()
	more := 0
	for _, c := range conns[max:] {
		if accepted(c) {
			more++
		}
	}
	if more != 1 {
		t.Errorf("after one closed, %d more accepted, want 1", more)
	}
}

// TestConnectionThatReadsNothingIsClosed: a client asks for a response
// larger than its window and never reads it. The handler is long done,
// but gRPC keeps the rest queued (and the stream open, so the connection
// is never idle) until the client reads it or the connection closes: the
// connection is closed once it has written nothing for twice
// StreamStallTimeout. Before, it stayed open, holding the response, for
// as long as the client liked.
func TestConnectionThatReadsNothingIsClosed(t *testing.T) {
	const stall = 500 * time.Millisecond
	ts := startServer(t, "oa", func(c *flightserver.Config) { c.StreamStallTimeout, c.ConnIdleTimeout = stall, stall })
	metric := adminMetric(t, ts)
	_, conn := stingyClient(t, ts.addr)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// GetFlightInfo of 4,096 splits: ~600 KB of endpoints, sent as one
	// message; the call's response is never received.
	stream, err := conn.NewStream(ctx, &grpc.StreamDesc{}, "/arrow.flight.protocol.FlightService/GetFlightInfo")
	if err != nil {
		t.Fatal(err)
	}
	if err := stream.SendMsg(cmd(t, map[string]any{"version": 1, "keyspace": "corpus", "table": "wide", "splits": 4096})); err != nil {
		t.Fatal(err)
	}
	if err := stream.CloseSend(); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	for conn.GetState() == connectivity.Ready {
		if time.Since(start) > 2*stall+5*time.Second {
			t.Fatalf("a connection that reads nothing still open after %v (StreamStallTimeout %v)", time.Since(start), stall)
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("a connection that reads nothing was closed after %v", time.Since(start))
	if v := metric(`sstf_limit_refusals_total{limit="conn_stall"}`); v != "1" {
		t.Errorf(`sstf_limit_refusals_total{limit="conn_stall"} %q, want 1`, v)
	}
}

// TestStalledStreamTellsTheClient: a client that stops reading a DoGet,
// then reads on after the watch cut the stream (within the second its
// connection stays open), gets the rows gRPC had queued and then a status
// saying what happened and what to do: RESOURCE_EXHAUSTED, "stream made
// no send progress for 1s (client not reading) ... admission slot
// released". The server's log line for the cut says the same. Before,
// gRPC wrote the status of the failed Send from the stream's context,
// DEADLINE_EXCEEDED "context deadline exceeded", before the handler
// returned its own.
func TestStalledStreamTellsTheClient(t *testing.T) {
	const stall = time.Second
	var logs flighttest.SyncBuffer
	ts := startServer(t, "oa", func(c *flightserver.Config) {
		c.BatchRows, c.StreamStallTimeout = 1, stall
		c.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	})
	metric := adminMetric(t, ts)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	info := wideFlight(t, ts)
	stingy, _ := stingyClient(t, ts.addr)
	stream, err := stingy.DoGet(ctx, info.Endpoint[0].Ticket)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := stream.Recv(); err != nil { // the schema; then nothing is read
		t.Fatal(err)
	}
	start := time.Now()
	for metric(`sstf_limit_refusals_total{limit="stall"}`) != "1" {
		if time.Since(start) > stall+5*time.Second {
			t.Fatalf("a stream whose client reads nothing not cut %v later (StreamStallTimeout %v)", time.Since(start), stall)
		}
		time.Sleep(10 * time.Millisecond)
	}
	n := 0
	for err == nil {
		_, err = stream.Recv()
		n++
	}
	st := status.Convert(err)
	t.Logf("read on after the cut: %d messages, then %v", n, err)
	const want = "stream made no send progress for 1s (client not reading"
	if st.Code() != codes.ResourceExhausted || !strings.Contains(st.Message(), want) || !strings.Contains(st.Message(), "admission slot released") {
		t.Fatalf("a stalled stream read on after its cut: %v; want RESOURCE_EXHAUSTED %q…admission slot released", err, want)
	}
	var logged bool
	for _, line := range strings.Split(logs.String(), "\n") {
		if strings.Contains(line, "rpc failed") && strings.Contains(line, "DoGet") && strings.Contains(line, st.Message()) {
			logged = true
		}
	}
	if !logged {
		t.Fatalf("no log line of the cut with the client's message %q:\n%s", st.Message(), logs.String())
	}
}
