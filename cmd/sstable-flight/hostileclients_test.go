package main_test

// The clients of the hostile tests (hostile_test.go): the well-behaved
// one, garbage in every RPC, raw and flooding connections, and what
// they read of the server process.

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/mem"

	"github.com/sstable-flight/sstable-flight/flightserver"
	"github.com/sstable-flight/sstable-flight/internal/testkit/flighttest"
)

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

// garbageMethods are every Flight RPC, the health check and a method
// that does not exist.
var garbageMethods = []string{
	"/arrow.flight.protocol.FlightService/Handshake",
	"/arrow.flight.protocol.FlightService/ListFlights",
	"/arrow.flight.protocol.FlightService/GetFlightInfo",
	"/arrow.flight.protocol.FlightService/PollFlightInfo",
	"/arrow.flight.protocol.FlightService/GetSchema",
	"/arrow.flight.protocol.FlightService/DoGet",
	"/arrow.flight.protocol.FlightService/DoPut",
	"/arrow.flight.protocol.FlightService/DoExchange",
	"/arrow.flight.protocol.FlightService/DoAction",
	"/arrow.flight.protocol.FlightService/ListActions",
	"/grpc.health.v1.Health/Check",
	"/arrow.flight.protocol.FlightService/NoSuchMethod",
}

// garbageCalls put garbage into the fields of well-formed requests.
var garbageCalls = []struct {
	name string
	call func(ctx context.Context, c flight.FlightServiceClient, g []byte) error
}{
	{"DoGet(garbage ticket)", func(ctx context.Context, c flight.FlightServiceClient, g []byte) error {
		return flighttest.DrainDoGet(ctx, c, g)
	}},
	{"DoGet(command, garbage keys)", func(ctx context.Context, c flight.FlightServiceClient, g []byte) error {
		return flighttest.DrainDoGet(ctx, c, append([]byte(`{"version":1,"keyspace":"corpus","table":"many","keys":[`), g...))
	}},
	{"GetFlightInfo(garbage command)", func(ctx context.Context, c flight.FlightServiceClient, g []byte) error {
		_, err := c.GetFlightInfo(ctx, &flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: g})
		return err
	}},
	{"GetFlightInfo(garbage path)", func(ctx context.Context, c flight.FlightServiceClient, g []byte) error {
		half := len(g) / 2
		_, err := c.GetFlightInfo(ctx, &flight.FlightDescriptor{Type: flight.DescriptorPATH,
			Path: []string{strings.ToValidUTF8(string(g[:half]), "?"), strings.ToValidUTF8(string(g[half:]), "?")}})
		return err
	}},
	{"GetSchema(garbage command)", func(ctx context.Context, c flight.FlightServiceClient, g []byte) error {
		_, err := c.GetSchema(ctx, &flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: g})
		return err
	}},
	{"DoAction(table-stats, garbage body)", func(ctx context.Context, c flight.FlightServiceClient, g []byte) error {
		return drainAction(ctx, c, &flight.Action{Type: flightserver.ActionTableStats, Body: g})
	}},
	{"DoAction(garbage type)", func(ctx context.Context, c flight.FlightServiceClient, g []byte) error {
		return drainAction(ctx, c, &flight.Action{Type: strings.ToValidUTF8(string(g), "?"), Body: g})
	}},
	{"ListFlights(garbage criteria)", func(ctx context.Context, c flight.FlightServiceClient, g []byte) error {
		stream, err := c.ListFlights(ctx, &flight.Criteria{Expression: g})
		for err == nil {
			_, err = stream.Recv()
		}
		if err == io.EOF {
			return nil
		}
		return err
	}},
}

func drainAction(ctx context.Context, c flight.FlightServiceClient, a *flight.Action) error {
	stream, err := c.DoAction(ctx, a)
	for err == nil {
		_, err = stream.Recv()
	}
	if err == io.EOF {
		return nil
	}
	return err
}

// rawCodec sends and receives messages as the bytes given.
type rawCodec struct{}

func (rawCodec) Marshal(v any) (mem.BufferSlice, error) {
	return mem.BufferSlice{mem.SliceBuffer(v.([]byte))}, nil
}

func (rawCodec) Unmarshal(data mem.BufferSlice, v any) error {
	*(v.(*[]byte)) = data.Materialize()
	return nil
}

func (rawCodec) Name() string { return "proto" }

// rawCall sends msg as the only message of a call to method and reads
// the responses to the end: nil, or the call's error.
func rawCall(ctx context.Context, conn *grpc.ClientConn, method string, msg []byte) error {
	stream, err := conn.NewStream(ctx, &grpc.StreamDesc{ServerStreams: true, ClientStreams: true}, method, grpc.ForceCodecV2(rawCodec{}))
	if err != nil {
		return err
	}
	if err := stream.SendMsg(msg); err != nil && err != io.EOF {
		return err
	}
	stream.CloseSend()
	for {
		var out []byte
		if err := stream.RecvMsg(&out); err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
	}
}

// result is a well-behaved read: its rows, or its error.
type result struct {
	rows int64
	err  error
}

// goodRead reads one key of corpus.many: GetFlightInfo, then DoGet.
func goodRead(ctx context.Context, c flight.Client, id string) result {
	cmd := fmt.Appendf(nil, `{"version":1,"keyspace":"corpus","table":"many","keys":[{"id":%s}]}`, id)
	return readInfo(ctx, c, &flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: cmd})
}

// goodScan reads the whole of corpus.many.
func goodScan(ctx context.Context, c flight.Client) result {
	return readInfo(ctx, c, &flight.FlightDescriptor{Type: flight.DescriptorPATH, Path: []string{"corpus", "many"}})
}

func readInfo(ctx context.Context, c flight.Client, d *flight.FlightDescriptor) result {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	info, err := c.GetFlightInfo(ctx, d)
	if err != nil {
		return result{err: err}
	}
	var r result
	for _, ep := range info.Endpoint {
		stream, err := c.DoGet(ctx, ep.Ticket)
		if err != nil {
			return result{err: err}
		}
		rd, err := flight.NewRecordReader(stream)
		if err != nil {
			return result{err: err}
		}
		for rd.Next() {
			r.rows += rd.RecordBatch().NumRows()
		}
		err = rd.Err()
		rd.Release()
		if err != nil {
			return result{err: err}
		}
	}
	return r
}

// manyIDs are corpus.many's partition keys, from its expected.json.
func manyIDs(t *testing.T) []string {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join(corpusSrc, "corpus", "many-*", "expected.json"))
	if err != nil || len(dirs) != 1 {
		t.Fatalf("corpus.many's expected.json: %v %v", dirs, err)
	}
	b, err := os.ReadFile(dirs[0])
	if err != nil {
		t.Fatal(err)
	}
	var exp struct {
		Rows []struct {
			Values struct {
				ID string `json:"id"`
			} `json:"values"`
		} `json:"rows"`
	}
	if err := json.Unmarshal(b, &exp); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range exp.Rows {
		ids = append(ids, r.Values.ID)
	}
	return ids
}

// rawConn is a client connection of its own.
func rawConn(t *testing.T, s *server) *grpc.ClientConn {
	t.Helper()
	conn, err := grpc.NewClient(s.addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// stingyConn is a client whose HTTP/2 windows stay at 64 KiB, so a
// stream it does not read blocks the server's Send.
func stingyConn(t *testing.T, s *server) (flight.FlightServiceClient, *grpc.ClientConn) {
	conn, err := grpc.NewClient(s.addr, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithInitialWindowSize(64<<10), grpc.WithInitialConnWindowSize(64<<10))
	if err != nil {
		t.Error(err)
	}
	return flight.NewFlightServiceClient(conn), conn
}

// rawGarbage opens n TCP connections that send random bytes instead of
// HTTP/2's preface.
func rawGarbage(t *testing.T, s *server, n int) []net.Conn {
	t.Helper()
	rnd := rand.New(rand.NewPCG(15, 4))
	var conns []net.Conn
	for range n {
		c, err := net.Dial("tcp", s.addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		b := make([]byte, 1+rnd.IntN(512))
		for i := range b {
			b[i] = byte(rnd.UintN(256))
		}
		c.Write(b)
		conns = append(conns, c)
	}
	return conns
}

// dialFlood opens up to n TCP connections that send nothing, as many as
// this process' descriptor limit leaves room for.
func dialFlood(t *testing.T, s *server, n int) []net.Conn {
	t.Helper()
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err == nil && lim.Cur < uint64(n)+512 && lim.Max > lim.Cur {
		lim.Cur = min(lim.Max, uint64(n)+512)
		syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim)
		syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim)
	}
	if room := int(lim.Cur) - 512; room < n {
		t.Logf("descriptor limit %d: flooding with %d connections, not %d", lim.Cur, room, n)
		n = room
	}
	d := net.Dialer{Timeout: 5 * time.Second}
	var conns []net.Conn
	for range n {
		c, err := d.Dial("tcp", s.addr)
		if err != nil {
			t.Errorf("flood connection %d: %v", len(conns), err)
			break
		}
		conns = append(conns, c)
	}
	t.Cleanup(func() {
		for _, c := range conns {
			c.Close()
		}
	})
	return conns
}

// closedByServer reads c to its end: whether the server closed it (an
// end of stream or a reset, not a timeout) within d.
func closedByServer(c net.Conn, d time.Duration) bool {
	c.SetReadDeadline(time.Now().Add(d))
	_, err := io.Copy(io.Discard, c)
	var ne net.Error
	return !errors.As(err, &ne) || !ne.Timeout()
}

// openSockets counts the server process' open sockets: its two
// listeners and its connections.
func openSockets(t *testing.T, s *server) int {
	t.Helper()
	dir := fmt.Sprintf("/proc/%d/fd", s.cmd.Process.Pid)
	fds, err := os.ReadDir(dir)
	if err != nil {
		s.fatalf(t, "list server descriptors: %v", err)
	}
	n := 0
	for _, fd := range fds {
		if l, err := os.Readlink(filepath.Join(dir, fd.Name())); err == nil && strings.HasPrefix(l, "socket:") {
			n++
		}
	}
	return n
}
