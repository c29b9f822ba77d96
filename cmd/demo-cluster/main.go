package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/sstable-flight/sstable-flight/flightserver"
	"github.com/sstable-flight/sstable-flight/internal/testkit/cassandratest"
	"github.com/sstable-flight/sstable-flight/loadgen"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "demo-cluster:", err)
		os.Exit(1)
	}
}

func run() error {
	server := flag.String("server", "bin/sstable-flight", "the sstable-flight binary to run beside each node")
	dir := flag.String("dir", "", "directory for the nodes, servers' logs and ticket key (default: a new temporary one, removed afterwards)")
	rows := flag.Int("rows", 3000, "rows to write")
	flag.Parse()
	bin, err := filepath.Abs(*server)
	if err != nil {
		return fmt.Errorf("resolve --server: %w", err)
	}
	if _, err := os.Stat(bin); err != nil {
		return fmt.Errorf("--server: %w (build it: go build -o bin/sstable-flight ./cmd/sstable-flight)", err)
	}
	if *dir == "" {
		if *dir, err = os.MkdirTemp("", "sstf-demo-cluster-"); err != nil {
			return fmt.Errorf("create demo dir: %w", err)
		}
		defer os.RemoveAll(*dir)
	}
	if *dir, err = filepath.Abs(*dir); err != nil {
		return fmt.Errorf("resolve --dir: %w", err)
	}
	// An interrupt cancels whatever is running; the deferred stops below
	// still run, and so end every process started.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	fmt.Printf("starting three Cassandra 5.0 nodes on 127.0.0.1-3 in %s (a few minutes)\n", filepath.Join(*dir, "cassandra"))
	c, err := cassandratest.StartCluster(ctx, cassandratest.ClusterOptions{Dir: filepath.Join(*dir, "cassandra"), Nodes: 3})
	if err != nil {
		return err
	}
	defer func() {
		fmt.Println("stopping the Cassandra nodes")
		if err := c.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "demo-cluster: stop cassandra:", err)
		}
	}()
	fmt.Print(c.Describe())

	const ks = "demo"
	want, err := writeData(ctx, c, ks, *rows)
	if err != nil {
		return err
	}

	servers, err := startServers(ctx, c, bin, *dir)
	defer servers.stop()
	if err != nil {
		return err
	}
	return scan(ctx, servers, ks, want)
}

// writeData creates keyspace ks at RF 2 with table kv, writes rows rows
// at consistency ALL, flushes every node (the servers read SSTables) and
// returns CQL's count at ALL.
func writeData(ctx context.Context, c *cassandratest.Cluster, ks string, rows int) (int, error) {
	s, err := c.Nodes[0].Session()
	if err != nil {
		return 0, err
	}
	defer s.Close()
	for _, q := range []string{
		"DROP KEYSPACE IF EXISTS " + ks,
		"CREATE KEYSPACE " + ks + " WITH replication = {'class': 'NetworkTopologyStrategy', 'dc1': 2}",
		"CREATE TABLE " + ks + ".kv (k int PRIMARY KEY, v text)",
	} {
		if err := s.Query(q).WithContext(ctx).Exec(); err != nil {
			return 0, fmt.Errorf("write data: %s: %w", q, err)
		}
	}
	fmt.Printf("writing %d rows to %s.kv (RF 2) at consistency ALL\n", rows, ks)
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for w := range errs {
		wg.Go(func() {
			for k := w; k < rows && errs[w] == nil; k += len(errs) {
				errs[w] = s.Query("INSERT INTO "+ks+".kv (k, v) VALUES (?, ?)", k, fmt.Sprintf("value %d", k)).
					Consistency(gocql.All).WithContext(ctx).Exec()
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return 0, fmt.Errorf("write data: %w", err)
	}
	for _, n := range c.Nodes {
		if out, err := n.NodeTool(ctx, "flush", ks); err != nil {
			return 0, fmt.Errorf("flush %s: %w: %s", n.IP(), err, out)
		}
	}
	var count int
	if err := s.Query("SELECT count(*) FROM " + ks + ".kv").Consistency(gocql.All).WithContext(ctx).Scan(&count); err != nil {
		return 0, fmt.Errorf("count at ALL: %w", err)
	}
	return count, nil
}

// servers are the running sstable-flight processes, server i beside node i.
type servers struct {
	uris  []string
	procs []*exec.Cmd
	logs  []string
}

// startServers starts one sstable-flight per node and waits until each
// answers node-info.
func startServers(ctx context.Context, c *cassandratest.Cluster, bin, dir string) (*servers, error) {
	sv := &servers{}
	keyFile := filepath.Join(dir, "ticket.key")
	key := make([]byte, 32)
	rand.Read(key)
	if err := os.WriteFile(keyFile, []byte(hex.EncodeToString(key)+"\n"), 0o600); err != nil {
		return sv, fmt.Errorf("write ticket key: %w", err)
	}
	var peers []string
	for _, n := range c.Nodes {
		port, err := freePort(n.IP())
		if err != nil {
			return sv, err
		}
		uri := fmt.Sprintf("grpc://%s:%d", n.IP(), port)
		sv.uris = append(sv.uris, uri)
		peers = append(peers, n.IP()+"="+uri)
	}
	for i, n := range c.Nodes {
		logPath := filepath.Join(dir, fmt.Sprintf("server%d.log", i+1))
		logf, err := os.Create(logPath)
		if err != nil {
			return sv, fmt.Errorf("create server log: %w", err)
		}
		cmd := exec.Command(bin,
			"--data-dir", n.DataDir(),
			"--snapshot-dir", filepath.Join(dir, fmt.Sprintf("snapshots%d", i+1)),
			"--listen", strings.TrimPrefix(sv.uris[i], "grpc://"),
			"--admin-listen", "",
			"--cassandra", n.Addr(),
			"--peers", strings.Join(peers, ","),
			"--ticket-key-file", keyFile)
		cmd.Stdout, cmd.Stderr = logf, logf
		err = cmd.Start()
		logf.Close() // the child has its own descriptor
		if err != nil {
			return sv, fmt.Errorf("start server %d: %w", i+1, err)
		}
		sv.procs = append(sv.procs, cmd)
		sv.logs = append(sv.logs, logPath)
		fmt.Printf("server %d: pid %d, %s, beside node %s (log %s)\n", i+1, cmd.Process.Pid, sv.uris[i], n.Addr(), logPath)
	}
	for i := range sv.uris {
		if err := sv.waitReady(ctx, i); err != nil {
			return sv, err
		}
	}
	return sv, nil
}

// waitReady polls server i's node-info action for up to a minute.
func (sv *servers) waitReady(ctx context.Context, i int) error {
	fc, err := loadgen.DialFlight(&loadgen.Config{Addr: strings.TrimPrefix(sv.uris[i], "grpc://")})
	if err != nil {
		return err
	}
	defer fc.Close()
	deadline := time.Now().Add(time.Minute)
	for {
		cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		stream, err := fc.DoAction(cctx, &flight.Action{Type: flightserver.ActionNodeInfo})
		if err == nil {
			_, err = stream.Recv()
		}
		cancel()
		if err == nil {
			return nil
		}
		if ctx.Err() != nil || time.Now().After(deadline) {
			return fmt.Errorf("server %d not ready (see %s): %w", i+1, sv.logs[i], err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// stop ends every server started, by pid: SIGTERM, then SIGKILL after
// ten seconds.
func (sv *servers) stop() {
	for i, cmd := range sv.procs {
		cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
		fmt.Printf("server %d (pid %d) stopped\n", i+1, cmd.Process.Pid)
	}
	sv.procs = nil
}

// scan plans a full scan of ks.kv through server 1, reads each endpoint
// from its locations and prints the rows each server served.
func scan(ctx context.Context, sv *servers, ks string, want int) error {
	cfg := &loadgen.Config{Addr: strings.TrimPrefix(sv.uris[0], "grpc://")}
	fc, err := loadgen.DialFlight(cfg)
	if err != nil {
		return err
	}
	defer fc.Close()
	locs := loadgen.NewLocations(cfg, fc)
	defer locs.Close()
	info, err := fc.GetFlightInfo(ctx, &flight.FlightDescriptor{Type: flight.DescriptorPATH, Path: []string{ks, "kv"}})
	if err != nil {
		return fmt.Errorf("plan the scan through server 1: %w", err)
	}
	fmt.Printf("\nscan of %s.kv planned by server 1: %d endpoints, app_metadata %s\n", ks, len(info.Endpoint), info.AppMetadata)
	res, err := loadgen.ReadEndpoints(ctx, locs, info.Endpoint, 8)
	if err != nil {
		return fmt.Errorf("read the scan: %w", err)
	}
	fmt.Printf("%-28s %8s %7s %10s\n", "server", "rows", "share", "endpoints")
	for _, l := range locs.Served() {
		name := l.Location
		for i, uri := range sv.uris {
			if uri == l.Location {
				name = fmt.Sprintf("%d %s", i+1, uri)
			}
		}
		fmt.Printf("%-28s %8d %6.1f%% %10d\n", name, l.Rows, 100*float64(l.Rows)/float64(max(res.Rows, 1)), l.Endpoints)
	}
	fmt.Printf("%-28s %8d\n%-28s %8d\n", "total over Flight", res.Rows, "SELECT count(*) at ALL", want)
	if res.Rows != int64(want) {
		return fmt.Errorf("the scan read %d rows, CQL at ALL counts %d", res.Rows, want)
	}
	fmt.Println("every row read once")
	return nil
}

// freePort is a TCP port free on ip just now.
func freePort(ip string) (int, error) {
	l, err := net.Listen("tcp", net.JoinHostPort(ip, "0"))
	if err != nil {
		return 0, fmt.Errorf("find a free port on %s: %w", ip, err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
