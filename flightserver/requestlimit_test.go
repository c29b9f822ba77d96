package flightserver_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/sstable-flight/sstable-flight/flightserver"
)

// Issue #15, finding 2: what a request may make the server hold before
// it is admitted is bounded by the configuration.

// bigTicket is a well-formed ticket of about n bytes: keys of corpus.many
// (one bigint each), as a forged ticket would list them.
func bigTicket(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"v":1,"ks":"corpus","t":"many","now":1700000000,"keys":[`)
	for i := 0; b.Len() < n-16; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"AAAAAAAAAAE="`)
	}
	b.WriteString(`]}`)
	return b.Bytes()
}

// bigCommand is a well-formed command of about n bytes with many keys.
func bigCommand(n int) []byte { return keysCommand(n, true) }

// keysCommand is a command of about n bytes listing keys: distinct ones,
// or one key again and again (which plans one endpoint, so DoGet takes
// the command as its ticket).
func keysCommand(n int, distinct bool) []byte {
	var b bytes.Buffer
	b.WriteString(`{"version":1,"keyspace":"corpus","table":"many","keys":[`)
	for i := 0; b.Len() < n-16; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		id := 1
		if distinct {
			id = i
		}
		fmt.Fprintf(&b, `{"id":%d}`, id)
	}
	b.WriteString(`]}`)
	return b.Bytes()
}

// TestRequestsOverTheLimitAreRefused: a ticket, a command or an action
// body over MaxRequestBytes is refused by gRPC with RESOURCE_EXHAUSTED
// before the server reads it; one under the limit is read as before.
func TestRequestsOverTheLimitAreRefused(t *testing.T) {
	const limit = 64 << 10
	ts := startServer(t, "oa", func(c *flightserver.Config) { c.MaxRequestBytes = limit })
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	over := func(what string, err error) {
		t.Helper()
		if status.Code(err) != codes.ResourceExhausted {
			t.Errorf("%s over %d bytes: %v, want RESOURCE_EXHAUSTED", what, limit, err)
		}
	}
	doGet := func(ticket []byte) error {
		stream, err := ts.client.DoGet(ctx, flightTicket(ticket))
		if err != nil {
			return err
		}
		for {
			if _, err := stream.Recv(); err != nil {
				return err
			}
		}
	}
	over("DoGet ticket", doGet(bigTicket(limit+1024)))
	_, err := ts.client.GetFlightInfo(ctx, &flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: bigCommand(limit + 1024)})
	over("GetFlightInfo command", err)
	_, err = ts.client.GetSchema(ctx, &flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: bigCommand(limit + 1024)})
	over("GetSchema command", err)
	actions, err := ts.client.DoAction(ctx, &flight.Action{Type: flightserver.ActionTableStats, Body: bigCommand(limit + 1024)})
	if err == nil {
		_, err = actions.Recv()
	}
	over("DoAction body", err)

	// Under the limit: read as ever (the keys exist or not; no error).
	// A ticket must be signed, so the DoGet sends a command as its ticket.
	if err := doGet(keysCommand(limit-1024, false)); err != io.EOF {
		t.Errorf("DoGet of a ticket under the limit: %v", err)
	}
	if _, err := ts.client.GetFlightInfo(ctx, &flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: bigCommand(limit - 1024)}); err != nil {
		t.Errorf("GetFlightInfo of a command under the limit: %v", err)
	}
}

// TestTicketReadOnlyOnceAdmitted: a DoGet's ticket is decoded (and a
// command planned) only once the stream holds an admission slot, so the
// streams that wait hold only their raw request. With the one slot held,
// a malformed ticket waits and is shed (UNAVAILABLE), where it used to be
// decoded at once and refused as INVALID_ARGUMENT; once the slot is free
// it is refused as malformed.
func TestTicketReadOnlyOnceAdmitted(t *testing.T) {
	ts := startServer(t, "oa", func(c *flightserver.Config) {
		c.MaxStreams, c.AdmissionWait, c.BatchRows = 1, 300*time.Millisecond, 1
	})
	metric := adminMetric(t, ts)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	holdWideStream(ctx, t, ts) // hold the slot: a stream read once, then left
	if v := metric("sstf_streams_active"); v != "1" {
		t.Fatalf("streams active: %q, want the held one", v)
	}
	for _, bad := range [][]byte{[]byte("not a ticket"), []byte(`{"version":1,"keyspace":"corpus"}`)} {
		start := time.Now()
		_, err := readStream(ctx, ts, bad)
		if status.Code(err) != codes.Unavailable {
			t.Errorf("DoGet %q with the slot held: %v after %v, want UNAVAILABLE (shed before it is read)", bad, err, time.Since(start))
		}
	}
	cancel() // frees the slot
	for metric("sstf_streams_active") != "0" {
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := readStream(context.Background(), ts, []byte("not a ticket")); status.Code(err) != codes.InvalidArgument {
		t.Errorf("DoGet of a malformed ticket with a free slot: %v, want INVALID_ARGUMENT", err)
	}
}

// readStream reads a DoGet stream to its end and returns the messages.
func readStream(ctx context.Context, ts *testServer, ticket []byte) (int, error) {
	stream, err := ts.client.DoGet(ctx, flightTicket(ticket))
	if err != nil {
		return 0, err
	}
	for n := 0; ; n++ {
		if _, err := stream.Recv(); err != nil {
			if err == io.EOF {
				return n, nil
			}
			return n, err
		}
	}
}
