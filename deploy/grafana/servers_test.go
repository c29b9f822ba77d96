package grafana

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/sstable-flight/sstable-flight/internal/testkit/flighttest"
)

// corpus is the committed oa corpus the servers serve (a copy of it:
// hardlink snapshots are cut beside the data).
const corpus = "../../testdata/corpus/oa"

// process is a child process of the test, stopped by its pid when the
// test ends.
type process struct {
	name   string
	cmd    *exec.Cmd
	stderr *flighttest.SyncBuffer
	done   chan struct{} // closed when Wait returned
	err    error
}

// start runs bin with args; the cleanup sends SIGTERM to its pid, and
// SIGKILL if it has not exited 10 s later, and waits for it.
func start(t *testing.T, name, bin string, args ...string) *process {
	t.Helper()
	p := &process{name: name, cmd: exec.Command(bin, args...), stderr: &flighttest.SyncBuffer{}, done: make(chan struct{})}
	p.cmd.Stdout, p.cmd.Stderr = p.stderr, p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	go func() {
		p.err = p.cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		p.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-p.done:
		case <-time.After(10 * time.Second):
			p.cmd.Process.Kill()
			<-p.done
		}
		if t.Failed() {
			t.Logf("%s (pid %d) output:\n%s", name, p.cmd.Process.Pid, p.stderr.String())
		}
	})
	return p
}

// exited reports whether the process has ended.
func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// server is one sstable-flight process standing for one pod.
type server struct {
	*process
	pod, addr, admin string // Flight and admin addresses
	data             string // its copy of the corpus
}

// serverArgs are tight limits, so that a little load sheds: one DoGet
// stream at a time, a 2 ms wait for its slot, four RPCs in progress.
var serverArgs = []string{
	"--listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0",
	"--max-streams", "1", "--admission-wait", "2ms", "--max-requests", "4",
	"--batch-rows", "64", "--drain-timeout", "5s",
}

// buildServer builds the server binary into a directory of the test.
func buildServer(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "sstable-flight")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if out, err := exec.CommandContext(ctx, "go", "build", "-o", bin, "../../cmd/sstable-flight").CombinedOutput(); err != nil {
		t.Fatalf("go build the server: %v\n%s", err, out)
	}
	return bin
}

// startServer starts bin as pod over its own copy of the corpus and
// waits until it logs both its Flight and admin addresses.
func startServer(t *testing.T, bin, pod string) *server {
	t.Helper()
	tmp := t.TempDir()
	data := filepath.Join(tmp, "data")
	if err := os.CopyFS(data, os.DirFS(corpus)); err != nil {
		t.Fatalf("copy the corpus: %v", err)
	}
	args := append([]string{"--data-dir", data, "--snapshot-dir", filepath.Join(tmp, "snapshots")}, serverArgs...)
	s := &server{process: start(t, pod, bin, args...), pod: pod, data: data}
	deadline := time.Now().Add(30 * time.Second)
	for s.addr == "" || s.admin == "" {
		if s.exited() || time.Now().After(deadline) {
			t.Fatalf("server %s did not log its addresses (exited: %v, %v):\n%s", pod, s.exited(), s.err, s.stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
		s.addr, s.admin = flighttest.LoggedAddr(s.stderr.String(), "serving Flight"), flighttest.LoggedAddr(s.stderr.String(), "serving admin")
	}
	return s
}

func (s *server) String() string {
	return fmt.Sprintf("%s (flight %s, admin %s)", s.pod, s.addr, s.admin)
}
