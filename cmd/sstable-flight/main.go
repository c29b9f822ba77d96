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
	"strings"
	"syscall"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/sstable-flight/sstable-flight/flightserver"
	"github.com/sstable-flight/sstable-flight/flightserver/catalog"
	"github.com/sstable-flight/sstable-flight/snapshot"
	"github.com/sstable-flight/sstable-flight/snapshot/sidecar"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "sstable-flight:", err)
		os.Exit(1)
	}
}

func run() error {
	var cfg flightserver.Config
	flag.StringVar(&cfg.DataDir, "data-dir", "testdata/corpus/oa", "Cassandra data directory (<keyspace>/<table>-<id>/)")
	listen := flag.String("listen", "127.0.0.1:8815", "Flight (gRPC) address")
	adminListen := flag.String("admin-listen", "127.0.0.1:9102", "admin HTTP address: /metrics, /debug/pprof")
	flag.IntVar(&cfg.MaxStreams, "max-streams", 0, "concurrent DoGet streams (0: 2 per CPU)")
	flag.DurationVar(&cfg.AdmissionWait, "admission-wait", 2*time.Second, "how long a stream waits for a slot before UNAVAILABLE")
	flag.IntVar(&cfg.BatchRows, "batch-rows", 0, "rows per record batch (0: 32768)")
	flag.StringVar(&cfg.TLSCert, "tls-cert", "", "TLS certificate (PEM); enables TLS")
	flag.StringVar(&cfg.TLSKey, "tls-key", "", "TLS private key (PEM)")
	flag.StringVar(&cfg.ClientCA, "tls-client-ca", "", "CA (PEM) that client certificates must chain to; enables mTLS")
	tokenFile := flag.String("auth-token-file", "", "file holding the bearer token clients must send (or env SSTF_AUTH_TOKEN)")
	drain := flag.Duration("drain-timeout", 30*time.Second, "on SIGTERM, how long running streams may finish")
	logLevel := flag.String("log-level", "info", "debug, info, warn or error")
	cassandra := flag.String("cassandra", "", "local Cassandra node HOST:PORT (CQL) to read schemas from; without it schema.cql files, else SSTable headers")
	cqlUser := flag.String("cassandra-user", "", "CQL user (password from env SSTF_CASSANDRA_PASSWORD)")
	schemaCheck := flag.Duration("schema-check", catalog.DefaultCheckInterval, "how often, at most, to ask Cassandra whether the schema changed")
	mode := flag.String("snapshot-mode", string(snapshot.Hardlink), "hardlink: link each query's SSTables into --snapshot-dir (safe against compactions); live: read the data directory in place")
	flag.StringVar(&cfg.Snapshot.Dir, "snapshot-dir", "", "where hardlink snapshots go: on the data directory's filesystem, outside it (default: sstable-flight-snapshots beside --data-dir)")
	flag.DurationVar(&cfg.Snapshot.Window, "snapshot-window", 0, fmt.Sprintf("freshness window: queries within it share one snapshot (0: %v, or %v in Sidecar mode, where each new snapshot flushes the table)", snapshot.DefaultWindow, snapshot.DefaultSidecarWindow))
	flag.DurationVar(&cfg.Snapshot.Grace, "snapshot-grace", snapshot.DefaultGrace, "how long a superseded snapshot stays after its last use, for the rest of its query's splits")
	flag.Int64Var(&cfg.Snapshot.PinnedCap, "snapshot-pinned-cap", 0, "bytes that snapshots may keep of files Cassandra deleted before superseded ones retire early (0: no cap)")
	flag.Int64Var(&cfg.KeyCacheBytes, "key-cache-bytes", flightserver.DefaultKeyCacheBytes, "partition positions kept for point reads of BIG SSTables (negative: none)")
	flag.Int64Var(&cfg.ChunkCacheBytes, "chunk-cache-bytes", flightserver.DefaultChunkCacheBytes, "decompressed Data.db chunks kept for point reads (negative: none); filled by point reads only")
	sidecarURL := flag.String("sidecar", "", "Cassandra Sidecar base URL, e.g. http://127.0.0.1:9043: snapshots are taken and read through it (no shared data directory); token from env SSTF_SIDECAR_TOKEN")
	flag.Parse()
	cfg.Snapshot.Mode = snapshot.Mode(*mode)
	if *sidecarURL != "" {
		cfg.Snapshot.Mode = snapshot.Sidecar
		sc, err := sidecar.New(*sidecarURL, sidecar.Options{BearerToken: os.Getenv("SSTF_SIDECAR_TOKEN")})
		if err != nil {
			return fmt.Errorf("read --sidecar: %w", err)
		}
		cfg.Snapshot.Sidecar = sc
	}

	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		return fmt.Errorf("read --log-level: %w", err)
	}
	cfg.Logger = slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	cfg.AuthToken = os.Getenv("SSTF_AUTH_TOKEN")
	if *tokenFile != "" {
		b, err := os.ReadFile(*tokenFile)
		if err != nil {
			return fmt.Errorf("read --auth-token-file: %w", err)
		}
		cfg.AuthToken = strings.TrimSpace(string(b))
	}

	catOpts := catalog.Options{CheckInterval: *schemaCheck}
	if *cassandra != "" {
		session, err := cqlSession(*cassandra, *cqlUser)
		if err != nil {
			// Serve anyway from schema.cql and headers; a restart picks
			// the node up once it is reachable.
			cfg.Logger.Warn("cassandra unreachable: schemas from schema.cql and SSTable headers", "addr", *cassandra, "err", err)
		} else {
			defer session.Close()
			catOpts.Session = session
		}
	}
	cat := catalog.New(catOpts)
	if catOpts.Session != nil {
		// Read the schema before serving: the first query of a table
		// must not wait for a dozen system_schema queries.
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		if err := cat.Refresh(ctx); err != nil {
			cfg.Logger.Warn("read schema from cassandra: will retry on first use", "err", err)
		}
		cancel()
	}
	cfg.Schemas = flightserver.NewCatalogSchemas(cat)

	srv, err := flightserver.New(cfg)
	if err != nil {
		return err
	}
	lis, err := net.Listen("tcp", *listen)
	if err != nil {
		return fmt.Errorf("listen for Flight: %w", err)
	}
	adminLis, err := net.Listen("tcp", *adminListen)
	if err != nil {
		return fmt.Errorf("listen for admin: %w", err)
	}
	fmt.Fprintf(os.Stderr, `sstable-flight: serving %s on grpc://%s (metrics: http://%s/metrics)
  list tables:  python3 -c "import pyarrow.flight as f; [print(i.descriptor.path) for i in f.connect('grpc://%s').list_flights()]"
  read a table: python3 -c "import pyarrow.flight as f; c=f.connect('grpc://%s'); i=c.get_flight_info(f.FlightDescriptor.for_path('corpus','many')); print(c.do_get(i.endpoints[0].ticket).read_all())"
`, cfg.DataDir, lis.Addr(), adminLis.Addr(), lis.Addr(), lis.Addr())

	errc := make(chan error, 2)
	go func() { errc <- srv.Serve(lis) }()
	go func() { errc <- srv.ServeAdmin(adminLis) }()
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, os.Interrupt)
	select {
	case err = <-errc:
	case s := <-sig:
		cfg.Logger.Info("draining", "signal", s.String(), "timeout", drain.String())
	}
	ctx, cancel := context.WithTimeout(context.Background(), *drain)
	defer cancel()
	srv.Shutdown(ctx)
	if errors.Is(err, net.ErrClosed) {
		err = nil
	}
	return err
}

// cqlSession connects to one node only: the schema is the same on every
// node, and the server must not send load elsewhere.
func cqlSession(addr, user string) (*gocql.Session, error) {
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
	s, err := c.CreateSession()
	if err != nil {
		return nil, fmt.Errorf("connect to cassandra %s: %w", addr, err)
	}
	return s, nil
}
