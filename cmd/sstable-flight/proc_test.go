package main_test

// The server as a child process: start, wait until serving, kill, stop,
// and a Flight client to it.

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/sstable-flight/sstable-flight/internal/testkit/flighttest"
)

// server is a running sstable-flight process.
type server struct {
	cmd     *exec.Cmd
	stderr  *flighttest.SyncBuffer
	addr    string
	done    chan struct{} // closed when Wait returned
	waitErr error
}

func serverArgs(data, snaps string) []string {
	return []string{
		"--data-dir", data,
		"--snapshot-dir", snaps,
		"--listen", "127.0.0.1:0",
		"--admin-listen", "127.0.0.1:0",
		"--batch-rows", "1",
		"--drain-timeout", "5s",
	}
}

// startServer starts the binary and waits until it logs its Flight
// address; it is killed at the test's end if still running.
func startServer(t *testing.T, bin, data, snaps string) *server {
	t.Helper()
	s := spawn(t, bin, nil, serverArgs(data, snaps)...)
	if !s.waitServing(t) {
		s.fatalf(t, "server exited before serving: %v", s.waitErr)
	}
	return s
}

// withDrain is args with --drain-timeout set to drain.
func withDrain(args []string, drain time.Duration) []string {
	for i, a := range args {
		if a == "--drain-timeout" {
			args[i+1] = drain.String()
			return args
		}
	}
	return append(args, "--drain-timeout", drain.String())
}

// sigterm sends SIGTERM and requires the process to end within bound; it
// returns how long it took.
func (s *server) sigterm(t *testing.T, bound time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		s.fatalf(t, "SIGTERM: %v", err)
	}
	select {
	case <-s.done:
		t.Logf("exited %v after SIGTERM: %v", time.Since(start), s.waitErr)
	case <-time.After(bound):
		s.fatalf(t, "still running %v after SIGTERM", time.Since(start))
	}
	return time.Since(start)
}

// startServerArgs is startServer with the whole command line given.
func startServerArgs(t *testing.T, bin string, args []string) *server {
	return startProcess(t, bin, args)
}

// startProcess starts the binary with args and waits until it serves.
func startProcess(t *testing.T, bin string, args []string) *server {
	t.Helper()
	s := spawn(t, bin, nil, args...)
	if !s.waitServing(t) {
		s.fatalf(t, "server exited before serving: %v", s.waitErr)
	}
	return s
}

// spawn starts the binary with args, and env added to the test's own;
// it is killed at the test's end if still running.
func spawn(t testing.TB, bin string, env []string, args ...string) *server {
	t.Helper()
	s := &server{cmd: exec.Command(bin, args...), stderr: &flighttest.SyncBuffer{}, done: make(chan struct{})}
	s.cmd.Stderr = s.stderr
	if env != nil {
		s.cmd.Env = append(os.Environ(), env...)
	}
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		s.waitErr = s.cmd.Wait()
		close(s.done)
	}()
	t.Cleanup(func() {
		select {
		case <-s.done:
		default:
			s.cmd.Process.Kill()
			<-s.done
		}
		if t.Failed() {
			t.Logf("server pid %d stderr:\n%s", s.cmd.Process.Pid, s.stderr.String())
		}
	})
	return s
}

// waitServing waits until the server logs its Flight address (true) or
// exits (false); it fails the test if neither happens within
// startTimeout.
func (s *server) waitServing(t testing.TB) bool {
	t.Helper()
	deadline := time.After(startTimeout)
	for s.addr == "" {
		select {
		case <-s.done:
			s.addr = flighttest.ServingAddr(s.stderr.String())
			return s.addr != ""
		case <-deadline:
			s.fatalf(t, "server neither exited nor logged its Flight address within %v", startTimeout)
		case <-time.After(20 * time.Millisecond):
		}
		s.addr = flighttest.ServingAddr(s.stderr.String())
	}
	return true
}

func (s *server) fatalf(t testing.TB, format string, args ...any) {
	t.Helper()
	t.Fatalf("%s\nserver stderr:\n%s", fmt.Sprintf(format, args...), s.stderr.String())
}

// kill sends SIGKILL and waits for the process to end.
func (s *server) kill(t *testing.T) {
	t.Helper()
	if err := s.cmd.Process.Kill(); err != nil {
		s.fatalf(t, "kill: %v", err)
	}
	select {
	case <-s.done:
	case <-time.After(stopTimeout):
		s.fatalf(t, "server still running %v after SIGKILL", stopTimeout)
	}
}

// terminate sends SIGTERM and requires a clean exit within stopTimeout.
func (s *server) terminate(t *testing.T) {
	t.Helper()
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		s.fatalf(t, "SIGTERM: %v", err)
	}
	select {
	case <-s.done:
	case <-time.After(stopTimeout):
		s.cmd.Process.Kill()
		<-s.done
		s.fatalf(t, "server still running %v after SIGTERM (killed)", stopTimeout)
	}
	if s.waitErr != nil {
		s.fatalf(t, "server exit after SIGTERM: %v", s.waitErr)
	}
}

// dial connects a Flight client and waits until the health service says
// SERVING.
func dial(t *testing.T, s *server) flight.Client {
	t.Helper()
	c, err := flight.NewClientWithMiddleware(s.addr, nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		s.fatalf(t, "dial %s: %v", s.addr, err)
	}
	t.Cleanup(func() { c.Close() })
	conn, err := grpc.NewClient(s.addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		s.fatalf(t, "dial %s: %v", s.addr, err)
	}
	defer conn.Close()
	hc := healthpb.NewHealthClient(conn)
	deadline := time.Now().Add(startTimeout)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		resp, err := hc.Check(ctx, &healthpb.HealthCheckRequest{})
		cancel()
		if err == nil && resp.GetStatus() == healthpb.HealthCheckResponse_SERVING {
			return c
		}
		if time.Now().After(deadline) {
			s.fatalf(t, "health of %s not SERVING within %v: %v %v", s.addr, startTimeout, resp.GetStatus(), err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func wideInfo(ctx context.Context, t *testing.T, s *server, c flight.Client) *flight.FlightInfo {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	info, err := c.GetFlightInfo(ctx, &flight.FlightDescriptor{Type: flight.DescriptorPATH, Path: []string{"corpus", "wide"}})
	if err != nil {
		s.fatalf(t, "GetFlightInfo corpus.wide: %v", err)
	}
	if len(info.Endpoint) == 0 {
		s.fatalf(t, "GetFlightInfo corpus.wide: no endpoints")
	}
	return info
}

// readAll reads every endpoint and returns the rows and batches read.
func readAll(ctx context.Context, t *testing.T, s *server, c flight.Client, info *flight.FlightInfo) (rows int64, batches int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for i, ep := range info.Endpoint {
		stream, err := c.DoGet(ctx, ep.Ticket)
		if err != nil {
			s.fatalf(t, "DoGet endpoint %d: %v", i, err)
		}
		rd, err := flight.NewRecordReader(stream)
		if err != nil {
			s.fatalf(t, "read endpoint %d: %v", i, err)
		}
		for rd.Next() {
			rows += rd.RecordBatch().NumRows()
			batches++
		}
		err = rd.Err()
		rd.Release()
		if err != nil {
			s.fatalf(t, "read endpoint %d: %v", i, err)
		}
	}
	return rows, batches
}
