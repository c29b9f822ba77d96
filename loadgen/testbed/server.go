package testbed

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/sstable-flight/sstable-flight/loadgen"
)

// ServerSpec is how a benchmark starts sstable-flight: a separate process
// beside the Cassandra node, as it is deployed, so its RSS and CPU are
// its own and a crash under overload shows as a dead pid.
type ServerSpec struct {
	Bin         string // the sstable-flight binary
	DataDir     string // the node's data directory
	Cassandra   string // the node's CQL host:port, for schemas
	SnapshotDir string // on the data directory's filesystem, outside it
	ExtraArgs   []string
	Log         io.Writer // the server's stdout and stderr; nil discards
}

// ServerProc is one running sstable-flight process.
type ServerProc struct {
	Pid       int
	Addr      string // Flight host:port
	AdminAddr string // /metrics and /debug/pprof host:port
	cmd       *exec.Cmd
	done      chan struct{} // closed once the process was reaped
	waitErr   error
}

// The server's metrics the benchmarks read themselves (docs/operations.md); the
// ramps' RSS and CPU figures are loadgen's.
const (
	MetricRSS     = "process_resident_memory_bytes"
	MetricStarted = "process_start_time_seconds"
)

const (
	serverStartTimeout = 30 * time.Second
	serverDrainTimeout = 5 * time.Second
)

// BuildServer compiles ./cmd/sstable-flight into bin, so the server runs
// as its own process and not inside the rig.
func BuildServer(ctx context.Context, goBin, bin string) error {
	out, err := exec.CommandContext(ctx, goBin, "build", "-o", bin, "./cmd/sstable-flight").CombinedOutput()
	if err != nil {
		return fmt.Errorf("build sstable-flight: %w\n%s", err, out)
	}
	return nil
}

// StartServer starts the server on free loopback ports and returns once
// its health service says SERVING. The process has its own process group
// (a terminal's ctrl-C reaches the rig, which stops it in order) and dies
// with the rig if the rig dies first.
func StartServer(ctx context.Context, spec ServerSpec) (*ServerProc, error) {
	ports, err := FreeLoopbackPorts(2)
	if err != nil {
		return nil, err
	}
	p := &ServerProc{Addr: ports[0], AdminAddr: ports[1], done: make(chan struct{})}
	args := []string{
		"--data-dir", spec.DataDir,
		"--cassandra", spec.Cassandra,
		"--snapshot-dir", spec.SnapshotDir,
		"--listen", p.Addr,
		"--admin-listen", p.AdminAddr,
		"--pprof", // the CPU profiles of each step (profile.go)
		"--drain-timeout", serverDrainTimeout.String(),
	}
	p.cmd = exec.Command(spec.Bin, append(args, spec.ExtraArgs...)...)
	p.cmd.Stdout, p.cmd.Stderr = spec.Log, spec.Log
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := p.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start sstable-flight: %w", err)
	}
	p.Pid = p.cmd.Process.Pid
	go func() {
		p.waitErr = p.cmd.Wait()
		close(p.done)
	}()
	if err := p.waitServing(ctx); err != nil {
		return nil, errors.Join(err, p.Stop())
	}
	return p, nil
}

// waitServing polls the gRPC health service until SERVING.
func (p *ServerProc) waitServing(ctx context.Context) error {
	deadline := time.Now().Add(serverStartTimeout)
	var last error
	for {
		select {
		case <-p.done:
			return fmt.Errorf("wait for sstable-flight: exited during start-up: %v", p.waitErr)
		case <-ctx.Done():
			return fmt.Errorf("wait for sstable-flight: %w", ctx.Err())
		default:
		}
		ok, err := p.Serving(ctx)
		if ok {
			return nil
		}
		last = err
		if time.Now().After(deadline) {
			return fmt.Errorf("wait for sstable-flight: not SERVING after %s (last: %v)", serverStartTimeout, last)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Serving asks the health service once.
func (p *ServerProc) Serving(ctx context.Context) (bool, error) {
	conn, err := grpc.NewClient(p.Addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return false, fmt.Errorf("check health: %w", err)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	resp, err := healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{})
	if err != nil {
		return false, fmt.Errorf("check health: %w", err)
	}
	return resp.GetStatus() == healthpb.HealthCheckResponse_SERVING, nil
}

// MetricsURL is the server's Prometheus endpoint.
func (p *ServerProc) MetricsURL() string { return "http://" + p.AdminAddr + "/metrics" }

// Alive reports whether the process has not exited.
func (p *ServerProc) Alive() bool {
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}

// Metrics scrapes the named metrics once.
func (p *ServerProc) Metrics(ctx context.Context, names ...string) (map[string]float64, error) {
	return loadgen.ScrapeMetrics(ctx, p.MetricsURL(), names...)
}

// PeakRSS is the process's lifetime peak resident set (VmHWM), 0 if
// unknown: a bound on what a once-a-second scrape may miss.
func (p *ServerProc) PeakRSS() int64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", p.Pid))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err == nil {
				return kb << 10
			}
		}
	}
	return 0
}

// Stop sends SIGTERM and waits for the drain; a server still running
// after it (and a grace second) is killed. An exit other than a clean one
// after SIGTERM is an error.
func (p *ServerProc) Stop() error {
	if !p.Alive() {
		if err := p.exitErr("before it was stopped"); err != nil {
			return err
		}
		return fmt.Errorf("sstable-flight pid %d exited before it was stopped", p.Pid)
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
		return p.exitErr("after SIGTERM")
	case <-time.After(serverDrainTimeout + 5*time.Second):
	}
	_ = p.cmd.Process.Kill()
	<-p.done
	return fmt.Errorf("stop sstable-flight pid %d: still running %s after SIGTERM, killed", p.Pid, serverDrainTimeout+5*time.Second)
}

func (p *ServerProc) exitErr(when string) error {
	if p.waitErr != nil {
		return fmt.Errorf("sstable-flight pid %d exited %s: %w", p.Pid, when, p.waitErr)
	}
	return nil
}

// FreeLoopbackPorts returns n loopback addresses free a moment ago (the
// Trino benchmark starts its Trino on one too).
func FreeLoopbackPorts(n int) ([]string, error) {
	var out []string
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("find a free port: %w", err)
		}
		ls = append(ls, l)
		out = append(out, l.Addr().String())
	}
	return out, nil
}
