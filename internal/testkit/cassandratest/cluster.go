package cassandratest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Place is a cluster node's data centre and rack, as its
// cassandra-rackdc.properties gives them to GossipingPropertyFileSnitch.
type Place struct {
	DC, Rack string
}

// DefaultPlaces puts n nodes in one data centre, dc1, the first (n+1)/2
// in rack1 and the others in rack2. For three nodes that is rack1, rack1,
// rack2: NetworkTopologyStrategy {'dc1': 2} must pass a rack1 node to
// reach rack2 (so it places unlike SimpleStrategy), and {'dc1': 3} must
// put two replicas on one rack (fewer racks than the factor), the two
// rules of its placement that a wrong implementation gets wrong. Two data
// centres would leave racks with no effect on three nodes.
func DefaultPlaces(n int) []Place {
	out := make([]Place, n)
	for i := range out {
		out[i] = Place{DC: "dc1", Rack: "rack1"}
		if i >= (n+1)/2 {
			out[i].Rack = "rack2"
		}
	}
	return out
}

// ClusterOptions configure StartCluster.
type ClusterOptions struct {
	Mode Mode
	// Dir holds cluster.json and one directory per node (node1, node2,
	// …). Empty means a new temporary directory, removed by Stop. A
	// directory that already holds a cluster is refused: its nodes'
	// saved ring would not match new ports.
	Dir string
	// Nodes is the node count; 0 means 3. Node i (from 0) listens on
	// 127.0.0.(i+1).
	Nodes int
	// Places overrides DefaultPlaces; it must have one entry per node.
	Places []Place
	// HeapMB sizes each JVM's heap; 0 means 512.
	HeapMB int
	// NumTokens is each node's vnode count; 0 means 16, Cassandra 5.0's
	// default.
	NumTokens int
	// Detached leaves the nodes running when this process exits.
	Detached bool
	// StartTimeout bounds each node's start and join; 0 means 3 minutes.
	StartTimeout time.Duration
}

// Cluster is a running multi-node Cassandra cluster on loopback
// addresses, started here or attached to.
//
// Every node has its own address (127.0.0.1, .2, …) and shares one
// storage port with the others, as nodes of a real cluster do; CQL and
// JMX ports are distinct per node (JMX listens on 127.0.0.1 only), so a
// client that reaches node 2 on node 1's CQL port is caught. Node 1 is
// the seed.
type Cluster struct {
	Dir     string
	Nodes   []*Node
	tempDir bool
}

// clusterName is the cluster_name of harness clusters: a lone test node
// on the same machine is of another cluster and never gossips with them.
const clusterName = "sstable-flight-cluster"

// clusterState is Dir/cluster.json: the node directories, relative to Dir.
type clusterState struct {
	Nodes []string `json:"nodes"`
}

// NodeIP is the loopback address of cluster node i (from 0).
func NodeIP(i int) string { return fmt.Sprintf("127.0.0.%d", i+1) }

// StartCluster starts opt.Nodes nodes one after another, as Cassandra
// requires: each node's CQL must answer and every node started so far
// must be Up and Normal in its `nodetool status` before the next starts.
// On any failure every node it started is stopped.
func StartCluster(ctx context.Context, opt ClusterOptions) (*Cluster, error) {
	rt, err := Install(ctx)
	if err != nil {
		return nil, err
	}
	nodes := opt.Nodes
	if nodes == 0 {
		nodes = 3
	}
	if nodes < 1 || nodes > 254 {
		return nil, fmt.Errorf("start cluster: %d nodes; want 1 to 254", nodes)
	}
	places := opt.Places
	if places == nil {
		places = DefaultPlaces(nodes)
	}
	if len(places) != nodes {
		return nil, fmt.Errorf("start cluster: %d places for %d nodes", len(places), nodes)
	}
	mode := opt.Mode
	if mode == "" {
		mode = ModeOA
	}
	heap, tokens := opt.HeapMB, opt.NumTokens
	if heap == 0 {
		heap = 512
	}
	if tokens == 0 {
		tokens = 16
	}
	c := &Cluster{Dir: opt.Dir}
	if c.Dir == "" {
		if c.Dir, err = os.MkdirTemp("", "sstf-cluster-"); err != nil {
			return nil, fmt.Errorf("create cluster dir: %w", err)
		}
		c.tempDir = true
	} else if _, err := os.Stat(filepath.Join(c.Dir, "cluster.json")); err == nil {
		return nil, fmt.Errorf("start cluster: %s already holds a cluster; stop it and remove the directory", c.Dir)
	}
	if c.Dir, err = filepath.Abs(c.Dir); err != nil {
		return nil, fmt.Errorf("resolve cluster dir: %w", err)
	}
	var ips []string
	for i := range nodes {
		ips = append(ips, NodeIP(i))
	}
	// One storage port shared by all, then a CQL and a JMX port per node,
	// every one free on every address so that all are distinct.
	p, err := freePortsOn(ips, 1+2*nodes)
	if err != nil {
		return nil, err
	}
	storage := p[0]
	st := clusterState{}
	for i := range nodes {
		st.Nodes = append(st.Nodes, "node"+strconv.Itoa(i+1))
	}
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("create cluster dir: %w", err)
	}
	if err := writeJSON(filepath.Join(c.Dir, "cluster.json"), st); err != nil {
		return nil, err
	}
	seed := net.JoinHostPort(ips[0], strconv.Itoa(storage))
	for i := range nodes {
		n := &Node{rt: rt, owned: true}
		n.Mode, n.Dir, n.Address = mode, filepath.Join(c.Dir, st.Nodes[i]), ips[i]
		n.DC, n.Rack = places[i].DC, places[i].Rack
		n.Storage, n.CQLPort, n.JMXPort = storage, p[1+i], p[1+nodes+i]
		err := writeConfig(nodeConfig{Dir: n.Dir, Mode: mode, Host: n.Address, Cluster: clusterName, Seed: seed,
			Ports: ports{CQL: n.CQLPort, Storage: storage, JMX: n.JMXPort},
			Ring:  &ringConfig{NumTokens: tokens, DC: n.DC, Rack: n.Rack}})
		if err == nil {
			err = n.launch(ctx, heap, opt.Detached, clusterJVMOptions)
		}
		if err == nil {
			c.Nodes = append(c.Nodes, n)
			err = n.waitCQL(ctx, startTimeout(opt.StartTimeout))
		}
		if err == nil {
			err = c.waitNormal(ctx, n, startTimeout(opt.StartTimeout))
		}
		if err != nil {
			return nil, errors.Join(fmt.Errorf("start cluster node %d of %d (%s): %w", i+1, nodes, n.Address, err), c.Stop())
		}
	}
	return c, nil
}

// clusterJVMOptions shorten the waits a node makes for the ring to
// settle: RING_DELAY (30 s by default) before the seed allocates its
// tokens and before each other node bootstraps, and the wait for gossip
// to settle before serving. Gossip over loopback reaches every node in
// about a second; at the defaults the waits alone made a three-node start
// take 2.5 minutes.
var clusterJVMOptions = []string{
	"-Dcassandra.ring_delay_ms=5000",
	"-Dcassandra.skip_wait_for_gossip_to_settle=0",
}

// statusLine is one node of `nodetool status`: state (UN, DN, UJ, …) and
// address.
var statusLine = regexp.MustCompile(`(?m)^([UD][NLJM])\s+(\S+)\s`)

// waitNormal polls `nodetool status` on n until every node of c started
// so far is UN (up, normal) in n's view.
func (c *Cluster) waitNormal(ctx context.Context, n *Node, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	var last string
	for {
		out, err := n.NodeTool(ctx, "status")
		if err == nil {
			states := map[string]string{}
			for _, m := range statusLine.FindAllStringSubmatch(string(out), -1) {
				states[m[2]] = m[1]
			}
			ok := true
			for _, o := range c.Nodes {
				ok = ok && states[o.Address] == "UN"
			}
			if ok {
				return nil
			}
			last = string(out)
		} else {
			last = err.Error()
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("wait for %d nodes Up and Normal in %s's view: not after %s; last nodetool status:\n%s\nlog tail:\n%s",
				len(c.Nodes), n.Address, timeout, last, n.LogTail(20))
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("wait for nodes Up and Normal: %w", ctx.Err())
		case <-time.After(2 * time.Second):
		}
	}
}

// AttachClusterDir returns a handle on the cluster StartCluster stored in
// dir. The handle does not own the processes unless own is set.
func AttachClusterDir(ctx context.Context, dir string, own bool) (*Cluster, error) {
	var st clusterState
	if err := readJSON(filepath.Join(dir, "cluster.json"), &st); err != nil {
		return nil, err
	}
	c := &Cluster{Dir: dir}
	for _, sub := range st.Nodes {
		n, err := AttachDir(ctx, filepath.Join(dir, sub), own)
		if err != nil {
			// A node that never started has no node.json; the nodes
			// before it are still the cluster's to stop.
			if errors.Is(err, os.ErrNotExist) {
				break
			}
			return nil, err
		}
		c.Nodes = append(c.Nodes, n)
	}
	if len(c.Nodes) == 0 {
		return nil, fmt.Errorf("attach cluster %s: no node started", dir)
	}
	return c, nil
}

// IsClusterDir reports whether dir holds a cluster (rather than a node).
func IsClusterDir(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "cluster.json"))
	return err == nil
}

// Hosts are the nodes' CQL addresses, host:port, in node order.
func (c *Cluster) Hosts() []string {
	var out []string
	for _, n := range c.Nodes {
		out = append(out, n.Addr())
	}
	return out
}

// Stop ends every node this process owns, each by its pid, and removes
// a temporary directory made by StartCluster. It kills them (Node.Kill):
// a harness cluster's data is thrown away, and a graceful stop costs
// more than it is worth here. Told to stop all at once, nodes wait for
// each other's messaging to quiesce until the SIGKILL; one at a time, a
// node still waited up to 26 s for the one stopped before it. It ends
// them all even when one fails, and reports every failure.
func (c *Cluster) Stop() error {
	errs := make([]error, len(c.Nodes))
	var wg sync.WaitGroup
	for i, n := range c.Nodes {
		wg.Go(func() { errs[i] = n.Kill() })
	}
	wg.Wait()
	err := errors.Join(errs...)
	if err == nil && c.tempDir {
		if rmErr := os.RemoveAll(c.Dir); rmErr != nil {
			return fmt.Errorf("remove cluster dir: %w", rmErr)
		}
		c.tempDir = false
	}
	return err
}

// Describe is one line per node: address, CQL port, DC and rack, pid.
func (c *Cluster) Describe() string {
	var b strings.Builder
	for i, n := range c.Nodes {
		fmt.Fprintf(&b, "node%d %s CQL %d JMX %d %s/%s pid %d\n", i+1, n.Address, n.CQLPort, n.JMXPort, n.DC, n.Rack, n.Pid)
	}
	return b.String()
}

// readJSON decodes the state file at path (node.json, cluster.json)
// into v.
func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("read state: %w", err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("decode state %s: %w", path, err)
	}
	return nil
}

// writeJSON stores the state v at path.
func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encode %s: %w", filepath.Base(path), err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", filepath.Base(path), err)
	}
	return nil
}
