package main_test

// Issue #15: hostile clients against the server as a process, whose peak
// resident set (VmHWM) must stay under the bound docs/operations.md
// ("Limits") derives from the configuration.

import (
	"bytes"
	"context"
	"math/rand/v2"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/connectivity"
	"google.golang.org/grpc/status"

	"github.com/sstable-flight/sstable-flight/internal/testkit/flighttest"
)

// limits are the values the memory bound is derived from, as the server
// resolves them (flightserver.Config's defaults for those not given).
type limits struct {
	maxStreams, maxRequests, maxConns int
	requestBytes, decodeBytes         int64
	batchBytes                        int64
	chunkCache, keyCache              int64
	queryPins                         int
}

// defaultLimits are the server's defaults for maxStreams stream slots.
func defaultLimits(maxStreams int) limits {
	return limits{maxStreams: maxStreams, maxRequests: 64 + 4*maxStreams, maxConns: 512,
		requestBytes: 1 << 20, decodeBytes: 2 << 20, batchBytes: 2 << 20, chunkCache: 64 << 20, keyCache: 8 << 20, queryPins: 10000}
}

// The constants of the bound (docs/operations.md, "Limits").
const (
	baseBytes      = 64 << 20  // the process at rest: binary, runtime, one table's readers
	decodeFactor   = 64        // what decoding and planning allocate per byte of request, at most
	ticketFactor   = 8         // a decoded ticket per byte of its request, at most
	streamBatches  = 8         // a stream's builders, IPC body and gRPC message, in batches
	connBytes      = 128 << 10 // a connection's buffers, HPACK tables and goroutines
	pinBytes       = 1 << 10   // a query pin: its id and its tables' epochs
	requestCopies  = 3         // a request in progress: its frames, the message, its decoded bytes
	heapGCHeadroom = 2         // the Go heap grows to twice what is live before it collects (GOGC=100)
)

// bound is the documented peak RSS for these limits.
func (l limits) bound() int64 {
	heap := int64(l.maxRequests)*requestCopies*l.requestBytes +
		decodeFactor*l.decodeBytes +
		int64(l.maxStreams)*(ticketFactor*l.requestBytes+streamBatches*l.batchBytes) +
		int64(l.maxConns)*connBytes +
		int64(l.queryPins)*pinBytes
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
					err := flighttest.DrainDoGet(ctx, c, ticket)
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

// TestHostileClients is issue #15's acceptance test: for ~20 s, against
// one server process, all at once: DoGets of oversized tickets (over the
// request limit) and of forged ones just under it, DoGets whose client
// never reads, garbage as the message of every RPC (and as the bytes of
// raw connections), 50 connections that idle after one call, and 2,000
// TCP connections that never speak, against a cap of 256. The server
// stays up, never holds more connections than its cap, closes the idle
// and the garbage ones, its peak RSS stays under the bound of its flags,
// and a well-behaved client on its own connection is served throughout
// (retrying UNAVAILABLE, as Flight clients do); its latencies are logged.
func TestHostileClients(t *testing.T) {
	const (
		maxConns = 256
		flood    = 2000
		hostile  = 20 * time.Second
	)
	bin := buildServer(t)
	lim := defaultLimits(4)
	lim.maxRequests, lim.maxConns = 48, maxConns
	s := startProcess(t, bin, corpusArgs("--max-streams", "4", "--max-requests", "48", "--max-conns", strconv.Itoa(maxConns),
		"--admission-wait", "2s", "--batch-rows", "2", "--stream-stall-timeout", "2s", "--handshake-timeout", "2s",
		"--conn-idle-timeout", "3s"))
	good := dial(t, s)
	ids := manyIDs(t)
	ctx := context.Background()
	var stop atomic.Bool
	var wg sync.WaitGroup
	run := func(f func()) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f()
		}()
	}
	var fail sync.Mutex // t.Errorf from goroutines, one at a time
	errorf := func(format string, args ...any) {
		fail.Lock()
		defer fail.Unlock()
		t.Errorf(format, args...)
	}

	// Every hostile client connects before the flood, which fills the
	// accept queue for seconds.
	first := goodRead(ctx, good, ids[0])
	if first.err != nil {
		s.fatalf(t, "keyed read before the attack: %v", first.err)
	}
	wideTicket := func() []byte {
		info, err := good.GetFlightInfo(ctx, &flight.FlightDescriptor{Type: flight.DescriptorPATH, Path: []string{"corpus", "wide"}})
		if err != nil {
			s.fatalf(t, "GetFlightInfo corpus.wide: %v", err)
		}
		return info.Endpoint[0].Ticket.Ticket
	}()
	oversized, forged := rawClient(t, s), rawClient(t, s)
	garbageConn := rawConn(t, s)
	for _, c := range []flight.FlightServiceClient{oversized, forged} {
		if _, err := c.ListActions(ctx, &flight.Empty{}); err != nil {
			t.Fatal(err)
		}
	}
	var idle []*grpc.ClientConn
	for range 50 {
		c := rawConn(t, s)
		if _, err := flight.NewFlightServiceClient(c).ListActions(ctx, &flight.Empty{}); err != nil {
			t.Fatal(err)
		}
		idle = append(idle, c)
	}
	garbageTCP := rawGarbage(t, s, 20)
	atRest := openSockets(t, s)

	// The well-behaved client: keyed reads, a scan every tenth.
	var lat []time.Duration
	var retries, ops int
	var worstGap time.Duration
	run(func() {
		last := time.Now()
		for i := 0; !stop.Load(); i++ {
			start := time.Now()
			var r result
			for attempt := 0; ; attempt++ {
				if i%10 == 9 {
					r = goodScan(ctx, good)
				} else {
					r = goodRead(ctx, good, ids[i%len(ids)])
				}
				if status.Code(r.err) != codes.Unavailable || time.Since(start) > 10*time.Second {
					break
				}
				retries++
				time.Sleep(20 * time.Millisecond)
			}
			if r.err != nil || (i%10 != 9 && r.rows != 1) || (i%10 == 9 && r.rows != int64(len(ids))) {
				errorf("well-behaved read %d: %d rows, %v", i, r.rows, r.err)
				continue
			}
			now := time.Now()
			lat, ops = append(lat, now.Sub(start)), ops+1
			worstGap, last = max(worstGap, now.Sub(last)), now
		}
	})

	// Oversized tickets (refused by gRPC unread) and forged ones (read
	// under the decode budget, once admitted).
	ticketCodes := map[string]map[codes.Code]int{"oversized": {}, "forged": {}}
	var ticketMu sync.Mutex
	for _, tc := range []struct {
		name   string
		c      flight.FlightServiceClient
		ticket []byte
		n      int
		want   []codes.Code
	}{
		{"oversized", oversized, forgedTicket(2 << 20), 4, []codes.Code{codes.ResourceExhausted, codes.Unavailable}},
		{"forged", forged, forgedTicket(1000 << 10), 2, []codes.Code{codes.InvalidArgument, codes.Unavailable}},
	} {
		for range tc.n {
			run(func() {
				// Paced a little: the machine running the test is shared.
				for ; !stop.Load(); time.Sleep(20 * time.Millisecond) {
					err := flighttest.DrainDoGet(ctx, tc.c, tc.ticket)
					code := status.Code(err)
					ticketMu.Lock()
					ticketCodes[tc.name][code]++
					ticketMu.Unlock()
					if !slices.Contains(tc.want, code) {
						errorf("%s ticket: %v, want one of %v", tc.name, err, tc.want)
					}
				}
			})
		}
	}

	// Two DoGets never read, on a connection of their own, again and
	// again: each is cut after the stall timeout and its connection
	// closed.
	var episodes atomic.Int64
	run(func() {
		for !stop.Load() {
			c, conn := stingyConn(t, s)
			for range 2 {
				if _, err := c.DoGet(ctx, &flight.Ticket{Ticket: wideTicket}); err != nil {
					errorf("stalled DoGet: %v", err)
				}
			}
			for conn.GetState() != connectivity.TransientFailure && conn.GetState() != connectivity.Idle && !stop.Load() {
				wctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
				conn.WaitForStateChange(wctx, conn.GetState())
				cancel()
			}
			if !stop.Load() {
				episodes.Add(1)
			}
			conn.Close()
		}
	})

	// Garbage as every RPC's message, and as the ticket, command, path,
	// action and criteria of well-formed messages.
	garbageCodes := map[string]map[codes.Code]int{}
	garbageClient := flight.NewFlightServiceClient(garbageConn)
	run(func() {
		rnd := rand.New(rand.NewPCG(15, 3))
		for i := 0; !stop.Load(); i++ {
			msg := make([]byte, rnd.IntN(4096))
			for j := range msg {
				msg[j] = byte(rnd.UintN(256))
			}
			cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			var method string
			var err error
			if i%2 == 0 {
				method = garbageMethods[i/2%len(garbageMethods)]
				err = rawCall(cctx, garbageConn, method, msg)
			} else {
				g := garbageCalls[i/2%len(garbageCalls)]
				method = g.name
				err = g.call(cctx, garbageClient, msg)
			}
			cancel()
			code := status.Code(err)
			if garbageCodes[method] == nil {
				garbageCodes[method] = map[codes.Code]int{}
			}
			garbageCodes[method][code]++
			if code == codes.DeadlineExceeded {
				errorf("garbage %s: no answer in 10 s: %v", method, err)
			}
		}
	})

	// The flood, once the rest runs; the server's descriptors are
	// sampled throughout.
	time.Sleep(2 * time.Second)
	floodConns := dialFlood(t, s, flood)
	peak := 0
	for deadline := time.Now().Add(hostile); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		peak = max(peak, openSockets(t, s))
		select {
		case <-s.done:
			s.fatalf(t, "the server exited under attack: %v", s.waitErr)
		default:
		}
	}
	stop.Store(true)
	wg.Wait()
	closedFlood := 0
	for _, c := range floodConns {
		if closedByServer(c, time.Millisecond) {
			closedFlood++
		}
		c.Close()
	}

	hwm, bound := vmHWM(t, s), lim.bound()
	slices.Sort(lat)
	pct := func(p float64) time.Duration {
		if len(lat) == 0 {
			return 0
		}
		return lat[min(len(lat)-1, int(p*float64(len(lat))))]
	}
	t.Logf("well-behaved client: %d reads, %d UNAVAILABLE retried, latency p50 %v p90 %v p99 %v max %v, longest gap between reads %v",
		ops, retries, pct(0.5), pct(0.9), pct(0.99), pct(1), worstGap)
	t.Logf("tickets by code: %v; stall episodes %d; garbage RPCs by code: %v", ticketCodes, episodes.Load(), garbageCodes)
	t.Logf("connections: %d flooded (%d seen closed by the server); server sockets %d before the flood, %d at peak (cap %d and 2 listeners)",
		len(floodConns), closedFlood, atRest, peak, maxConns)
	t.Logf("server peak RSS %d MiB, bound %d MiB", hwm>>20, bound>>20)

	if ops < 20 || worstGap > 5*time.Second {
		t.Errorf("the well-behaved client made %d reads, the longest gap %v: not served throughout", ops, worstGap)
	}
	if peak > maxConns+2 {
		t.Errorf("server held %d sockets at peak: more connections than the cap %d", peak-2, maxConns)
	}
	if peak < maxConns*3/4 {
		t.Errorf("server held %d sockets at peak: the flood never came near the cap %d", peak, maxConns)
	}
	if episodes.Load() == 0 {
		t.Errorf("no stalled connection was cut and closed")
	}
	for i, c := range idle {
		if c.GetState() == connectivity.Ready {
			t.Errorf("idle connection %d still open", i)
		}
	}
	for i, c := range garbageTCP {
		if !closedByServer(c, time.Second) {
			t.Errorf("raw garbage connection %d not closed by the server", i)
		}
	}
	if hwm > bound {
		t.Errorf("server peak RSS %d MiB over the bound of its configuration, %d MiB", hwm>>20, bound>>20)
	}
	if r := goodRead(ctx, good, ids[0]); r.err != nil || r.rows != 1 {
		t.Errorf("keyed read after the attack: %d rows, %v", r.rows, r.err)
	}
	if t.Failed() {
		s.fatalf(t, "hostile clients")
	}
	s.terminate(t)
}
