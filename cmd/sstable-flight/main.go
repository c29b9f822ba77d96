package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/sstable-flight/sstable-flight/cluster"
	"github.com/sstable-flight/sstable-flight/cluster/kube"
	"github.com/sstable-flight/sstable-flight/flightserver"
	"github.com/sstable-flight/sstable-flight/flightserver/catalog"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "sstable-flight:", err)
		os.Exit(1)
	}
}

func run() error {
	o, err := parseFlags(flag.CommandLine, os.Args[1:])
	if err != nil {
		return err
	}
	cfg := o.cfg

	catOpts := catalog.Options{CheckInterval: o.schemaCheck}
	// The ring is read again on the driver's topology and schema events
	// too, so they are listened to from the session's start.
	changes := cluster.NewChanges()
	if o.cassandra != "" {
		session, err := cqlSession(o.cassandra, o.cqlUser, changes)
		if err != nil {
			// Serve anyway from schema.cql and headers; a restart picks
			// the node up once it is reachable.
			cfg.Logger.Warn("cassandra unreachable: schemas from schema.cql and SSTable headers", "addr", o.cassandra, "err", err)
		} else {
			defer session.Close()
			catOpts.Session = session
		}
	}
	if o.peers != nil || o.kube != nil {
		if catOpts.Session == nil {
			return errors.New("plan over the ring (--peers, --peer-port, --kube-service): cassandra is unreachable, and the ring is read from it")
		}
		if o.kube != nil {
			kubeLogs(cfg.Logger)
			o.kube.Logger = cfg.Logger
			src, err := kube.Start(context.Background(), *o.kube)
			if err != nil {
				return err
			}
			defer src.Close()
			o.peers = src
		}
		session := catOpts.Session
		cfg.Cluster = &flightserver.ClusterConfig{
			Discover:        func(ctx context.Context) (*cluster.Topology, error) { return cluster.Discover(ctx, session) },
			Peers:           o.peers,
			RefreshInterval: o.ringRefresh,
			Changes:         changes.C(),
			PeerCA:          o.peerCA,
		}
	}
	cat := catalog.New(catOpts)
	cfg.Schemas = flightserver.NewCatalogSchemas(cat)
	srv, err := newServer(cfg)
	if err != nil {
		return err
	}
	if catOpts.Session != nil {
		// Read the schema before serving (and after New refused a bad
		// flag, which must not wait for it): the first query of a table
		// must not wait for a dozen system_schema queries.
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		if err := cat.Refresh(ctx); err != nil {
			cfg.Logger.Warn("read schema from cassandra: will retry on first use", "err", err)
		}
		cancel()
	}
	lis, err := net.Listen("tcp", o.listen)
	if err != nil {
		return fmt.Errorf("listen for Flight: %w", err)
	}
	// An empty --admin-listen serves no admin port: net.Listen would
	// take it for every interface on a random port.
	var adminLis net.Listener
	admin := "admin: off"
	if o.adminListen != "" {
		if adminLis, err = net.Listen("tcp", o.adminListen); err != nil {
			lis.Close()
			return fmt.Errorf("listen for admin: %w", err)
		}
		scheme := "http"
		if cfg.TLSCert != "" {
			scheme = "https"
		}
		admin = fmt.Sprintf("metrics: %s://%s/metrics", scheme, adminLis.Addr())
	}
	source := cfg.DataDir
	if o.sidecarURL != "" {
		source = "the SSTables of Sidecar " + o.sidecarURL
	}
	fmt.Fprintf(os.Stderr, `sstable-flight: serving %s on grpc://%s (%s)
  list tables:  python3 -c "import pyarrow.flight as f; [print(i.descriptor.path) for i in f.connect('grpc://%s').list_flights()]"
  read a table: python3 -c "import pyarrow.flight as f; c=f.connect('grpc://%s'); i=c.get_flight_info(f.FlightDescriptor.for_path('corpus','many')); print(c.do_get(i.endpoints[0].ticket).read_all())"
`, source, lis.Addr(), admin, lis.Addr(), lis.Addr())

	errc := make(chan error, 2)
	go func() { errc <- srv.Serve(lis) }()
	if adminLis != nil {
		go func() { errc <- srv.ServeAdmin(adminLis) }()
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, os.Interrupt)
	select {
	case err = <-errc:
	case s := <-sig:
		cfg.Logger.Info("draining", "signal", s.String(), "timeout", o.drain.String())
	}
	if errors.Is(err, net.ErrClosed) {
		err = nil
	}
	return errors.Join(err, drain(srv, o.drain, cfg.Logger))
}

// drain shuts the server down within timeout and a little: Shutdown is
// bounded itself (it cuts what runs past the timeout), and if it still
// has not returned after drainGrace more (a hung disk under the
// snapshots it removes), the process exits anyway. Past the timeout the
// exit is non-zero, and the log says what was still running.
func drain(srv *flightserver.Server, timeout time.Duration, log *slog.Logger) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- srv.Shutdown(ctx) }()
	select {
	case err := <-done:
		if err != nil {
			log.Error("drain timeout: exiting", "timeout", timeout.String(), "err", err)
		}
		return err
	case <-time.After(timeout + drainGrace):
		err := fmt.Errorf("drain timeout %v: shutdown did not finish, exiting with %s still running", timeout, srv.Running())
		log.Error("drain timeout: exiting", "timeout", timeout.String(), "err", err)
		return err
	}
}

// drainGrace is how long past --drain-timeout the process waits for
// Shutdown before it exits regardless.
const drainGrace = 3 * time.Second

// cqlSession connects to one node only: the schema is the same on every
// node, and the server must not send load elsewhere. changes hears the
// node's topology and schema events.
func cqlSession(addr, user string, changes *cluster.Changes) (*gocql.Session, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("read --cassandra: %w", err)
	}
	c := gocql.NewCluster(host)
	if c.Port, err = strconv.Atoi(port); err != nil {
		return nil, fmt.Errorf("read --cassandra port: %w", err)
	}
	c.Consistency = gocql.One
	c.Timeout = 10 * time.Second
	c.ConnectTimeout = 5 * time.Second
	c.DisableInitialHostLookup = true
	if user != "" {
		c.Authenticator = gocql.PasswordAuthenticator{Username: user, Password: os.Getenv("SSTF_CASSANDRA_PASSWORD")}
	}
	changes.Listen(c)
	s, err := c.CreateSession()
	if err != nil {
		return nil, fmt.Errorf("connect to cassandra %s: %w", addr, err)
	}
	return s, nil
}
