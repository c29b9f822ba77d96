package cassandratest

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
)

// Options configure Start.
type Options struct {
	Mode Mode
	// Dir holds the node's config, data and logs. Empty means a new
	// temporary directory, removed by Stop.
	Dir string
	// HeapMB sizes the JVM heap; 0 means 768.
	HeapMB int
	// Detached leaves the node running when this process exits (for
	// deploy/local/cassandra.sh). Otherwise the kernel kills the node if
	// the starting process dies, so a crashed test never leaks a JVM.
	Detached bool
	// StartTimeout bounds the wait for CQL; 0 means 3 minutes.
	StartTimeout time.Duration
	// CQLPort is the node's CQL port; 0 picks a free one. A test that
	// starts a client before its node chooses it (FreePort).
	CQLPort int
	// Auth turns on authentication, ClientTLS TLS on the CQL port
	// (security.go).
	Auth      *Auth
	ClientTLS *ClientTLS
	// ExtraYAML holds cassandra.yaml lines of this node's own (the commit
	// log's sync, segment size or compression, say); each top-level key
	// it sets replaces the harness's line for that key.
	ExtraYAML string
}

// Node is one running Cassandra node, started here or attached to.
type Node struct {
	State
	rt      Runtime
	cmd     *exec.Cmd
	waitErr chan error
	owned   bool        // started by this process: Stop kills it
	tempDir bool        // Dir was created by Start: Stop removes it
	tlsConf *tls.Config // a TLS node's clients' configuration (loadTLS)
}

// State is what another process needs to use a node; it is stored in
// Dir/node.json and passed through the environment.
type State struct {
	Pid     int    `json:"pid"`
	Mode    Mode   `json:"mode"`
	Dir     string `json:"dir"`
	CQLPort int    `json:"cql_port"`
	JMXPort int    `json:"jmx_port"`
	Storage int    `json:"storage_port"`
	// Address is the node's listen and CQL address; empty means Host.
	// Nodes of a cluster each have their own loopback address.
	Address string `json:"address,omitempty"`
	// DC and Rack are a cluster node's place (its
	// cassandra-rackdc.properties); empty for a lone node.
	DC   string `json:"dc,omitempty"`
	Rack string `json:"rack,omitempty"`
	// Auth is set on a node with authentication, TLS on one with TLS
	// on its CQL port (security.go).
	Auth *Auth     `json:"auth,omitempty"`
	TLS  *TLSFiles `json:"tls,omitempty"`
}

// Host is the address a lone node binds, and the one every node's JMX
// (local only) listens on.
const Host = "127.0.0.1"

// IP is the address the node listens on for CQL and gossip.
func (n *Node) IP() string {
	if n.Address == "" {
		return Host
	}
	return n.Address
}

// Start installs the runtime if needed, writes the node's configuration and
// starts CassandraDaemon, returning once CQL answers.
func Start(ctx context.Context, opt Options) (*Node, error) {
	rt, err := Install(ctx)
	if err != nil {
		return nil, err
	}
	n := &Node{rt: rt, owned: true}
	n.Mode = opt.Mode
	if n.Mode == "" {
		n.Mode = ModeOA
	}
	n.Dir = opt.Dir
	if n.Dir == "" {
		d, err := os.MkdirTemp("", "sstf-cassandra-")
		if err != nil {
			return nil, fmt.Errorf("create node dir: %w", err)
		}
		n.Dir, n.tempDir = d, true
	}
	if n.Dir, err = filepath.Abs(n.Dir); err != nil {
		return nil, fmt.Errorf("resolve node dir: %w", err)
	}
	p, err := freePorts(3)
	if err != nil {
		return nil, err
	}
	n.CQLPort, n.Storage, n.JMXPort = p[0], p[1], p[2]
	if opt.CQLPort != 0 {
		n.CQLPort = opt.CQLPort
	}
	seed := net.JoinHostPort(Host, strconv.Itoa(n.Storage))
	nc := nodeConfig{Dir: n.Dir, Mode: n.Mode, Host: Host, Cluster: singleCluster, Seed: seed,
		Ports: ports{CQL: n.CQLPort, Storage: n.Storage, JMX: n.JMXPort}, Auth: opt.Auth != nil,
		ExtraYAML: opt.ExtraYAML}
	var extra []string
	if opt.Auth != nil {
		n.Auth = opt.Auth
		// The default superuser is made at once rather than 10 s after
		// start, so the harness can log in as soon as CQL answers.
		extra = append(extra, "-Dcassandra.superuser_setup_delay_ms=0")
	}
	if opt.ClientTLS != nil {
		if n.TLS, err = PrepareTLS(n.Dir, *opt.ClientTLS); err != nil {
			return nil, err
		}
		if err := n.loadTLS(); err != nil {
			return nil, err
		}
		nc.TLS = n.TLS
	}
	if err := writeConfig(nc); err != nil {
		return nil, err
	}
	heap := opt.HeapMB
	if heap == 0 {
		heap = 768
	}
	if err := n.launch(ctx, heap, opt.Detached, extra); err != nil {
		return nil, err
	}
	if err := n.waitCQL(ctx, startTimeout(opt.StartTimeout)); err != nil {
		stopErr := n.Stop()
		return nil, errors.Join(err, stopErr)
	}
	if err := n.createRole(); err != nil {
		return nil, errors.Join(err, n.Stop())
	}
	return n, nil
}

// createRole creates Auth.Role, a login role with no grants.
func (n *Node) createRole() error {
	if n.Auth == nil || n.Auth.Role == "" {
		return nil
	}
	s, err := n.Session()
	if err != nil {
		return err
	}
	defer s.Close()
	q := fmt.Sprintf("CREATE ROLE IF NOT EXISTS %s WITH PASSWORD = '%s' AND LOGIN = true", n.Auth.Role, strings.ReplaceAll(n.Auth.Password, "'", "''"))
	if err := s.Query(q).Exec(); err != nil {
		return fmt.Errorf("create role %s: %w", n.Auth.Role, err)
	}
	return nil
}

func startTimeout(d time.Duration) time.Duration {
	if d == 0 {
		return 3 * time.Minute
	}
	return d
}

// launch starts CassandraDaemon on the configuration in n.Dir, with extra
// JVM system properties, and stores the node's state in n.Dir/node.json.
// It returns once the process runs; a failure leaves no process.
func (n *Node) launch(ctx context.Context, heapMB int, detached bool, extra []string) error {
	args := []string{
		fmt.Sprintf("-Xms%dm", heapMB), fmt.Sprintf("-Xmx%dm", heapMB), "-Xss512k",
		"-XX:+UseG1GC", "-XX:+ExitOnOutOfMemoryError",
		"-Dcassandra.jmx.local.port=" + strconv.Itoa(n.JMXPort),
		"-Dcassandra-foreground=yes",
		// The node runs on a 2-core machine next to the tests; keep the
		// background thread pools small.
		"-Dcassandra.available_processors=2",
	}
	args = append(args, extra...)
	args = append(args, toolArgs(n.rt, n.Dir)...)
	args = append(args, "org.apache.cassandra.service.CassandraDaemon")
	logf, err := os.Create(filepath.Join(n.Dir, "logs", "stdout.log"))
	if err != nil {
		return fmt.Errorf("create node log: %w", err)
	}
	defer logf.Close()
	n.cmd = exec.Command(n.rt.Java, args...)
	n.cmd.Dir = n.Dir
	n.cmd.Stdout, n.cmd.Stderr = logf, logf
	n.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if !detached {
		n.cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	}
	if err := n.cmd.Start(); err != nil {
		return fmt.Errorf("start cassandra: %w", err)
	}
	n.Pid = n.cmd.Process.Pid
	n.waitErr = make(chan error, 1)
	go func() { n.waitErr <- n.cmd.Wait() }()
	if err := n.writeState(); err != nil {
		return errors.Join(err, n.Stop())
	}
	return nil
}

func (n *Node) writeState() error {
	return writeJSON(filepath.Join(n.Dir, "node.json"), n.State)
}

// AttachDir returns a handle on the node whose state Start stored in dir.
// The handle does not own the process unless own is set.
func AttachDir(ctx context.Context, dir string, own bool) (*Node, error) {
	var st State
	if err := readJSON(filepath.Join(dir, "node.json"), &st); err != nil {
		return nil, err
	}
	return attach(ctx, st, own)
}

func attach(ctx context.Context, st State, own bool) (*Node, error) {
	rt, err := Install(ctx)
	if err != nil {
		return nil, err
	}
	n := &Node{State: st, rt: rt, owned: own}
	if err := n.loadTLS(); err != nil {
		return nil, err
	}
	return n, nil
}

// Addr is the CQL address host:port.
func (n *Node) Addr() string { return net.JoinHostPort(n.IP(), strconv.Itoa(n.CQLPort)) }

// DataDir is the node's data_file_directories entry: <keyspace>/<table>-<id>/.
func (n *Node) DataDir() string { return filepath.Join(n.Dir, "data") }

// Cluster returns a gocql cluster config for the node.
func (n *Node) Cluster() *gocql.ClusterConfig {
	c := gocql.NewCluster(n.IP())
	c.Port = n.CQLPort
	c.Consistency = gocql.One
	c.Timeout = 30 * time.Second
	c.ConnectTimeout = 10 * time.Second
	c.ProtoVersion = 5
	c.DisableInitialHostLookup = true
	n.secure(c)
	return c
}

// Session opens a CQL session; the caller closes it.
func (n *Node) Session() (*gocql.Session, error) {
	s, err := n.Cluster().CreateSession()
	if err != nil {
		return nil, fmt.Errorf("connect to cassandra at %s: %w", n.Addr(), err)
	}
	return s, nil
}

// FreshKeyspace connects to the node, drops and creates keyspace name
// (SimpleStrategy, one replica) and runs ddl (its tables, say), so a test
// starts from a keyspace of its own whatever an earlier run left. The
// session closes when t ends; a failure fails t.
func (n *Node) FreshKeyspace(t testing.TB, name string, ddl ...string) *gocql.Session {
	t.Helper()
	s, err := n.Session()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	Exec(t, s, "DROP KEYSPACE IF EXISTS "+name,
		"CREATE KEYSPACE "+name+" WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	Exec(t, s, ddl...)
	return s
}

// Exec runs CQL statements on s in order; the first that fails fails t,
// naming the statement.
func Exec(t testing.TB, s *gocql.Session, statements ...string) {
	t.Helper()
	for _, q := range statements {
		if err := s.Query(q).Exec(); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

func (n *Node) waitCQL(ctx context.Context, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	var last error
	for time.Now().Before(deadline) {
		select {
		case err := <-n.waitErr:
			n.waitErr <- err
			return fmt.Errorf("cassandra exited during start-up (%v); log tail:\n%s", err, n.LogTail(30))
		case <-ctx.Done():
			return fmt.Errorf("wait for cassandra: %w", ctx.Err())
		case <-time.After(time.Second):
		}
		c, err := net.DialTimeout("tcp", n.Addr(), time.Second)
		if err != nil {
			last = err
			continue
		}
		c.Close()
		s, err := n.Session()
		if err != nil {
			last = err
			continue
		}
		var v string
		err = s.Query("SELECT release_version FROM system.local").Scan(&v)
		s.Close()
		if err == nil {
			return nil
		}
		last = err
	}
	return fmt.Errorf("wait for cassandra CQL on %s: not ready after %s (last: %v); log tail:\n%s", n.Addr(), timeout, last, n.LogTail(30))
}

// LogTail returns the last lines of the node's system log, for error reports.
func (n *Node) LogTail(lines int) string {
	b, err := os.ReadFile(filepath.Join(n.Dir, "logs", "system.log"))
	if err != nil {
		b, _ = os.ReadFile(filepath.Join(n.Dir, "logs", "stdout.log"))
	}
	return tail(string(b), lines)
}

// Stop ends a node this process owns: SIGTERM to its process group, SIGKILL
// after 30 s, then waits until the pid is gone. A temporary directory made
// by Start is removed. Stop on an attached, not owned node does nothing.
func (n *Node) Stop() error { return n.stop(30 * time.Second) }

// Kill ends a node this process owns at once: SIGKILL to its process
// group, then waits until the pid is gone. It is for nodes whose data is
// thrown away, where a drain buys nothing.
func (n *Node) Kill() error { return n.stop(0) }

// stop sends SIGTERM and waits up to grace before SIGKILL; with no grace
// it sends SIGKILL at once.
func (n *Node) stop(grace time.Duration) error {
	if !n.owned || n.Pid == 0 {
		return nil
	}
	gone := false
	if grace > 0 {
		_ = syscall.Kill(-n.Pid, syscall.SIGTERM)
		gone = waitGone(n.Pid, n.waitErr, grace)
	}
	if !gone {
		_ = syscall.Kill(-n.Pid, syscall.SIGKILL)
		if !waitGone(n.Pid, n.waitErr, 10*time.Second) {
			return fmt.Errorf("stop cassandra: pid %d still alive after SIGKILL", n.Pid)
		}
	}
	n.owned = false
	if n.tempDir {
		if err := os.RemoveAll(n.Dir); err != nil {
			return fmt.Errorf("remove node dir: %w", err)
		}
	}
	return nil
}

// waitGone waits for the process to exit. When we are its parent, waitErr
// reaps it; otherwise (attached by node.json) poll with signal 0.
func waitGone(pid int, waitErr chan error, d time.Duration) bool {
	deadline := time.After(d)
	for {
		if waitErr != nil {
			select {
			case err := <-waitErr:
				waitErr <- err
				return true
			case <-deadline:
				return false
			case <-time.After(100 * time.Millisecond):
			}
			continue
		}
		if !Alive(pid) {
			return true
		}
		select {
		case <-deadline:
			return false
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// Alive reports whether a process with this pid exists (and is not a zombie).
func Alive(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// Field 3 of /proc/pid/stat is the state; Z is a zombie.
	for i := len(b) - 1; i > 0; i-- {
		if b[i] == ')' && i+2 < len(b) {
			return b[i+2] != 'Z'
		}
	}
	return true
}

// FreePort returns a port free on Host now: for Options.CQLPort, when
// a client must know the node's address before the node starts.
func FreePort() (int, error) {
	p, err := freePorts(1)
	if err != nil {
		return 0, err
	}
	return p[0], nil
}

// freePorts returns n distinct ports free on Host.
func freePorts(n int) ([]int, error) { return freePortsOn([]string{Host}, n) }

// freePortsOn returns n distinct ports, each free on every one of ips at
// once (a cluster's nodes share their storage port, each on its own
// address). The kernel picks a port on the first address; one taken on
// another is dropped and the pick repeated.
func freePortsOn(ips []string, n int) ([]int, error) {
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	var out []int
	for tries := 0; len(out) < n; tries++ {
		if tries == 100 {
			return nil, fmt.Errorf("find free port on %v: none free on all after %d tries", ips, tries)
		}
		l, err := net.Listen("tcp", net.JoinHostPort(ips[0], "0"))
		if err != nil {
			return nil, fmt.Errorf("find free port: %w", err)
		}
		ls = append(ls, l)
		port := l.Addr().(*net.TCPAddr).Port
		free := true
		for _, ip := range ips[1:] {
			l, err := net.Listen("tcp", net.JoinHostPort(ip, strconv.Itoa(port)))
			if err != nil {
				free = false
				break
			}
			ls = append(ls, l)
		}
		if free {
			out = append(out, port)
		}
	}
	return out, nil
}
