package cassandratest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// Environment variables through which a running node is shared with the
// test binaries of every package (set by Env, read by Shared).
const (
	EnvPid  = "SSTF_CASSANDRA_PID"
	EnvMode = "SSTF_CASSANDRA_MODE"
	EnvDir  = "SSTF_CASSANDRA_DIR"
	EnvCQL  = "SSTF_CASSANDRA_CQL_PORT"
	EnvJMX  = "SSTF_CASSANDRA_JMX_PORT"
	// EnvCluster names the directory of the run's shared multi-node
	// cluster (set by Cluster.Env, read by SharedCluster).
	EnvCluster = "SSTF_CASSANDRA_CLUSTER_DIR"
)

// Env returns the variables that let Shared attach to this node.
func (n *Node) Env() []string {
	return []string{
		EnvPid + "=" + strconv.Itoa(n.Pid),
		EnvMode + "=" + string(n.Mode),
		EnvDir + "=" + n.Dir,
		EnvCQL + "=" + strconv.Itoa(n.CQLPort),
		EnvJMX + "=" + strconv.Itoa(n.JMXPort),
	}
}

func stateFromEnv() (State, bool, error) {
	if os.Getenv(EnvCQL) == "" {
		return State{}, false, nil
	}
	var st State
	var err error
	atoi := func(name string) int {
		v, e := strconv.Atoi(os.Getenv(name))
		if e != nil && err == nil {
			err = fmt.Errorf("read %s: %w", name, e)
		}
		return v
	}
	st.Pid, st.CQLPort, st.JMXPort = atoi(EnvPid), atoi(EnvCQL), atoi(EnvJMX)
	st.Dir = os.Getenv(EnvDir)
	st.Mode, _ = ParseMode(os.Getenv(EnvMode))
	return st, true, err
}

// shared is one resource the tests of a binary share: opened once, by
// the first test that asks for it.
type shared[T any] struct {
	once sync.Once
	v    T
	err  error
}

func (s *shared[T]) get(t testing.TB, what string, open func() (T, error)) T {
	t.Helper()
	s.once.Do(func() { s.v, s.err = open() })
	if s.err != nil {
		t.Fatalf("%s: %v", what, s.err)
	}
	return s.v
}

var (
	sharedNode    shared[*Node]
	sharedCluster shared[*Cluster]
)

// Shared returns the node shared by this test run. When the environment
// names one (make test), it is attached to; otherwise this test binary
// starts its own, stopped by RunMain. In CI a missing shared node is a
// failure, never a skip: every CI test run must exercise real Cassandra.
func Shared(t testing.TB) *Node {
	t.Helper()
	return sharedNode.get(t, "cassandra node", func() (*Node, error) {
		st, ok, err := stateFromEnv()
		switch {
		case err != nil:
			return nil, err
		case ok:
			return attach(context.Background(), st, false)
		case os.Getenv("CI") != "":
			return nil, fmt.Errorf("no shared Cassandra node in CI: run the tests through `make test` (cmd/cassandra-harness sets %s)", EnvCQL)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		return Start(ctx, Options{Mode: ModeOA})
	})
}

// Env returns the variable that lets SharedCluster attach to this
// cluster.
func (c *Cluster) Env() []string { return []string{EnvCluster + "=" + c.Dir} }

// SharedCluster returns the three-node cluster shared by this test run
// (DefaultPlaces, 16 tokens per node), which tests must leave as they
// found it but for keyspaces of their own. Under `make test` the
// harness starts one cluster for the whole run and names its directory
// in SSTF_CASSANDRA_CLUSTER_DIR; run alone, the test binary starts its
// own, stopped by RunMain. In CI a missing cluster is a failure, never a
// skip.
func SharedCluster(t testing.TB) *Cluster {
	t.Helper()
	return sharedCluster.get(t, "cassandra cluster", func() (*Cluster, error) {
		if dir := os.Getenv(EnvCluster); dir != "" {
			return AttachClusterDir(context.Background(), dir, false)
		}
		if os.Getenv("CI") != "" {
			return nil, fmt.Errorf("no shared Cassandra cluster in CI: run the tests through `make test` (cmd/cassandra-harness run -cluster 3 sets %s)", EnvCluster)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		return StartCluster(ctx, ClusterOptions{})
	})
}

// RunMain runs the package's tests and then stops a node or cluster that
// Shared or SharedCluster started for this binary. Use it from TestMain:
//
//	func TestMain(m *testing.M) { os.Exit(cassandratest.RunMain(m)) }
func RunMain(m *testing.M) int {
	code := m.Run()
	var errs []error
	if sharedNode.v != nil {
		errs = append(errs, sharedNode.v.Stop())
	}
	if sharedCluster.v != nil {
		errs = append(errs, sharedCluster.v.Stop())
	}
	if err := errors.Join(errs...); err != nil {
		fmt.Fprintln(os.Stderr, err)
		if code == 0 {
			code = 1
		}
	}
	return code
}

// RunMainNoLeaks is RunMain for packages whose tests start servers,
// clients and sessions: once every test passed and the node is stopped,
// it fails the binary if a goroutine was left behind (goleak), so that
// whatever a test starts must stop completely. Use it from TestMain:
//
//	func TestMain(m *testing.M) { os.Exit(cassandratest.RunMainNoLeaks(m)) }
func RunMainNoLeaks(m *testing.M) int {
	code := RunMain(m)
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goroutines left behind:", err)
			code = 1
		}
	}
	return code
}
