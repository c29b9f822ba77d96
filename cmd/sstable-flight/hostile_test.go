package main_test

// Issue #15: hostile clients against the server as a process, whose peak
// resident set (VmHWM) must stay under the bound docs/operations.md
// ("Limits") derives from the configuration.

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
)

// limits are the values the memory bound is derived from, as the server
// resolves them (flightserver.Config's defaults for those not given).
type limits struct {
	maxStreams, maxRequests, maxConns int
	requestBytes, decodeBytes         int64
	batchBytes                        int64
	chunkCache, keyCache              int64
}

// defaultLimits are the server's defaults for maxStreams stream slots.
func defaultLimits(maxStreams int) limits {
	return limits{maxStreams: maxStreams, maxRequests: 64 + 4*maxStreams, maxConns: 512,
		requestBytes: 1 << 20, decodeBytes: 2 << 20, batchBytes: 2 << 20, chunkCache: 64 << 20, keyCache: 8 << 20}
}

// The constants of the bound (docs/operations.md, "Limits").
const (
	baseBytes      = 64 << 20  // the process at rest: binary, runtime, one table's readers
	decodeFactor   = 64        // what decoding and planning allocate per byte of request, at most
	ticketFactor   = 8         // a decoded ticket per byte of its request, at most
	streamBatches  = 8         // a stream's builders, IPC body and gRPC message, in batches
	connBytes      = 128 << 10 // a connection's buffers, HPACK tables and goroutines
	requestCopies  = 3         // a request in progress: its frames, the message, its decoded bytes
	heapGCHeadroom = 2         // the Go heap grows to twice what is live before it collects (GOGC=100)
)

// bound is the documented peak RSS for these limits.
func (l limits) bound() int64 {
	heap := int64(l.maxRequests)*requestCopies*l.requestBytes +
		decodeFactor*l.decodeBytes +
		int64(l.maxStreams)*(ticketFactor*l.requestBytes+streamBatches*l.batchBytes) +
		int64(l.maxConns)*connBytes
	return baseBytes + l.chunkCache + heapGCHeadroom*(l.keyCache+heap)
}

// corpusArgs serve the committed corpus in place (live mode writes
// nothing) on loopback.
func corpusArgs(extra ...string) []string {
	return append([]string{
		"--data-dir", corpusSrc,
		"--snapshot-mode", "live",
		"--listen", "127.0.0.1:0",
		"--admin-listen", "127.0.0.1:0",
		"--drain-timeout", "5s",
	}, extra...)
}

// forgedTicket is a well-formed ticket of about n bytes for
// corpus.clustered listing empty keys: a forged one, the costliest to
// decode per byte (each key is a slice of its own), which the server
// refuses as soon as it reads the keys (the table's key has two
// components).
func forgedTicket(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"v":1,"ks":"corpus","t":"clustered","now":1700000000,"keys":[""`)
	for b.Len() < n-8 {
		b.WriteString(`,""`)
	}
	b.WriteString(`]}`)
	return b.Bytes()
}

// TestForgedTicketsHoldBoundedMemory (finding 2): 128 concurrent DoGets,
// on two connections, of a forged ticket just under the request limit,
// against two stream slots, for a few seconds. Every one is refused
// (INVALID_ARGUMENT once decoded, UNAVAILABLE when shed or beyond
// MaxRequests) and the server's peak RSS stays under the bound of its
// configuration. Tickets used to be decoded before admission: 100 such
// streams grew the server to 3 GB.
func TestForgedTicketsHoldBoundedMemory(t *testing.T) {
	bin := buildServer(t)
	s := startProcess(t, bin, corpusArgs("--max-streams", "2"))
	dial(t, s)
	ticket := forgedTicket(1000 << 10)
	ctx := context.Background()
	var stopped atomic.Bool
	time.AfterFunc(6*time.Second, func() { stopped.Store(true) })
	var mu sync.Mutex
	codesSeen := map[codes.Code]int{}
	var wg sync.WaitGroup
	for range 2 {
		c := rawClient(t, s)
		for range 64 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for !stopped.Load() {
					err := drainDoGet(ctx, c, ticket)
					mu.Lock()
					codesSeen[status.Code(err)]++
					mu.Unlock()
				}
			}()
		}
	}
	wg.Wait()
	hwm := vmHWM(t, s)
	bound := defaultLimits(2).bound()
	t.Logf("DoGets by code: %v; server peak RSS %d MiB, bound %d MiB", codesSeen, hwm>>20, bound>>20)
	for code, n := range codesSeen {
		if code != codes.InvalidArgument && code != codes.Unavailable {
			t.Errorf("%d DoGets ended %v, want INVALID_ARGUMENT or UNAVAILABLE", n, code)
		}
	}
	if codesSeen[codes.InvalidArgument] == 0 {
		t.Errorf("no forged ticket was read and refused: %v", codesSeen)
	}
	if hwm > bound {
		s.fatalf(t, "server peak RSS %d MiB over the bound of its configuration, %d MiB", hwm>>20, bound>>20)
	}
}

// rawClient is a Flight client on a connection of its own.
func rawClient(t *testing.T, s *server) flight.FlightServiceClient {
	t.Helper()
	conn, err := grpc.NewClient(s.addr, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallSendMsgSize(64<<20)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return flight.NewFlightServiceClient(conn)
}

// drainDoGet reads a DoGet stream to its end: nil, or its error.
func drainDoGet(ctx context.Context, c flight.FlightServiceClient, ticket []byte) error {
	stream, err := c.DoGet(ctx, &flight.Ticket{Ticket: ticket})
	if err != nil {
		return err
	}
	for {
		if _, err := stream.Recv(); err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
	}
}

// vmHWM is the server process' peak resident set.
func vmHWM(t *testing.T, s *server) int64 {
	t.Helper()
	return procStatus(t, s, "VmHWM:")
}

// procStatus reads a "kB" field of /proc/PID/status, in bytes.
func procStatus(t *testing.T, s *server, field string) int64 {
	t.Helper()
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	if err != nil {
		s.fatalf(t, "read server status: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), field); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				s.fatalf(t, "read %s %q: %v", field, v, err)
			}
			return kb << 10
		}
	}
	s.fatalf(t, "no %s in /proc/%d/status", field, s.cmd.Process.Pid)
	return 0
}
