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
	"syscall"
	"time"

	"github.com/sstable-flight/sstable-flight/cluster"
	"github.com/sstable-flight/sstable-flight/cluster/kube"
	"github.com/sstable-flight/sstable-flight/flightserver"
	"github.com/sstable-flight/sstable-flight/flightserver/catalog"
	"github.com/sstable-flight/sstable-flight/flightserver/cqlconn"
	"github.com/sstable-flight/sstable-flight/flightserver/fresh"
	"github.com/sstable-flight/sstable-flight/flightserver/tables"
	"github.com/sstable-flight/sstable-flight/snapshot"
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
	// too, so they are listened to from each session's start.
	changes := cluster.NewChanges()
	// srv is set before the connection starts: each time it comes up,
	// tables served from SSTable headers until then get Cassandra's
	// schema, and the ring is read.
	var srv *flightserver.Server
	var conn *cqlconn.Conn
	if o.cql != nil {
		o.cql.Logger = cfg.Logger
		o.cql.Listen = changes.Listen
		o.cql.OnUp = func(ctx context.Context) {
			changes.Signal()
			if err := srv.RefreshSchema(ctx); err != nil {
				cfg.Logger.Warn("read schema from cassandra: will retry on first use", "err", err)
			}
		}
		if conn, err = newCassandra(*o.cql); err != nil {
			return err
		}
		catOpts.Conn = conn
		cfg.Cassandra = conn
	}
	if o.peers != nil || o.kube != nil {
		if o.kube != nil {
			o.kube.Logger = cfg.Logger
			src, err := kube.Start(context.Background(), *o.kube)
			if err != nil {
				return err
			}
			defer src.Close()
			o.peers = src
		}
		// Until the node answers, plans over the ring are UNAVAILABLE
		// saying why (cqlconn.ErrNotConnected); the server serves and
		// stays ready meanwhile.
		cfg.Cluster = &flightserver.ClusterConfig{
			Discover: func(ctx context.Context) (*cluster.Topology, error) {
				s, err := conn.Session()
				if err != nil {
					return nil, err
				}
				return cluster.Discover(ctx, s)
			},
			Peers:           o.peers,
			RefreshInterval: o.ringRefresh,
			Changes:         changes.C(),
			PeerCA:          o.peerCA,
		}
	}
	cat := catalog.New(catOpts)
	cfg.Schemas = tables.NewCatalogSchemas(cat)
	if o.commitLog != "" {
		clog, err := startCommitLog(o, cat, conn)
		if err != nil {
			return err
		}
		if clog != nil {
			defer clog.Close()
			cfg.CommitLog = clog
		}
	}
	awaitDataDir(cfg, o.dataDirWait)
	if srv, err = newServer(cfg); err != nil {
		return err
	}
	if conn != nil {
		// Connect in the background, after New refused a bad flag: the
		// server never waits for, nor exits for, its node.
		conn.Start()
		defer conn.Close()
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
  query it with pyarrow (python3 -m pip install pyarrow; make run's build/venv/bin/python3 has it):
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

// startCommitLog follows --commitlog-dir. A default directory that
// does not exist or cannot be read is no commit log (flushed data only,
// logged); one given is an error.
func startCommitLog(o *options, cat *catalog.Catalog, conn *cqlconn.Conn) (*fresh.Log, error) {
	log := o.cfg.Logger
	l, err := fresh.Start(fresh.Config{Dir: o.commitLog, MaxBytes: o.commitLogMax, PollInterval: o.commitLogPoll,
		Catalog: cat, Sessions: conn, Logger: log})
	switch {
	case errors.Is(err, fresh.ErrNoDir) && !o.commitLogSet:
		log.Info("no commit log beside the data directory: serving flushed data only (--commitlog-dir)", "dir", o.commitLog)
		return nil, nil
	case err != nil && !o.commitLogSet:
		log.Warn("the commit log beside the data directory cannot be read: serving flushed data only (--commitlog-dir)", "dir", o.commitLog, "err", err)
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read --commitlog-dir: %w", err)
	}
	log.Info("reading the commit log: writes not yet flushed are served", "dir", o.commitLog)
	return l, nil
}

// awaitDataDir waits for a data directory Cassandra has yet to create
// (snapshot.AwaitDataDir), or until SIGTERM; a directory still missing
// is then refused by the server's config check, naming it.
func awaitDataDir(cfg flightserver.Config, wait time.Duration) {
	if cfg.DataDir == "" || wait == 0 {
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	snapshot.AwaitDataDir(ctx, cfg.DataDir, wait, time.Second, func() {
		cfg.Logger.Info("waiting for the data directory, which Cassandra creates when it first starts", "data_dir", cfg.DataDir, "wait", wait)
	})
}
