package main

// The command line: flags into flightserver.Config, whose defaults and
// checks are the packages' (flightserver.Config and snapshot.Config
// resolve them once); the flags' own defaults are the same named
// constants, or zero where the default depends on something else (the
// CPUs, the snapshot mode).

import (
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/sstable-flight/sstable-flight/cluster"
	"github.com/sstable-flight/sstable-flight/cluster/kube"
	"github.com/sstable-flight/sstable-flight/flightserver"
	"github.com/sstable-flight/sstable-flight/flightserver/auth"
	"github.com/sstable-flight/sstable-flight/flightserver/catalog"
	"github.com/sstable-flight/sstable-flight/flightserver/cqlconn"
	"github.com/sstable-flight/sstable-flight/flightserver/fresh"
	"github.com/sstable-flight/sstable-flight/flightserver/request"
	"github.com/sstable-flight/sstable-flight/overlay"
	"github.com/sstable-flight/sstable-flight/snapshot"
	"github.com/sstable-flight/sstable-flight/snapshot/sidecar"
)

// options are the parsed command line: the server's Config and what
// only the command uses.
type options struct {
	cfg                 flightserver.Config
	listen, adminListen string
	drain               time.Duration
	// cassandra is --cassandra; cql the connection to it (nil without).
	cassandra   string
	cql         *cqlconn.Config
	schemaCheck time.Duration
	// dataDirWait bounds the wait at start for a --data-dir that
	// Cassandra has yet to create (snapshot.AwaitDataDir).
	dataDirWait time.Duration
	sidecarURL  string
	// peers, set by --peers or --peer-port, turns on planning over the
	// ring (flightserver.ClusterConfig); ringRefresh is its interval.
	peers       cluster.PeerSource
	ringRefresh time.Duration
	peerCA      string // --peer-ca
	// kube, set by --kube-service, is the Kubernetes discovery main
	// starts as the peers instead (it talks to the API server).
	kube *kube.Config
	// commitLog is --commitlog-dir resolved ("" reads no commit log);
	// commitLogSet says it was given (a missing directory is then an
	// error, not flushed-only serving).
	commitLog     string
	commitLogSet  bool
	commitLogMax  int64
	commitLogPoll time.Duration
}

// parseFlags registers the flags on fs and parses args. It applies no
// default of its own: what the packages default is left zero or set to
// their constants.
func parseFlags(fs *flag.FlagSet, args []string) (*options, error) {
	o := &options{}
	cfg := &o.cfg
	fs.StringVar(&cfg.DataDir, "data-dir", "", "Cassandra data directory (<keyspace>/<table>-<id>/), e.g. /var/lib/cassandra/data; required unless --sidecar")
	fs.StringVar(&o.listen, "listen", "127.0.0.1:8815", "Flight (gRPC) address")
	fs.StringVar(&o.adminListen, "admin-listen", "127.0.0.1:9102", `admin HTTP address: /metrics, and /debug/pprof with --pprof; "" serves none`)
	fs.IntVar(&cfg.MaxStreams, "max-streams", 0, "concurrent DoGet streams (0: 2 per CPU)")
	fs.DurationVar(&cfg.AdmissionWait, "admission-wait", flightserver.DefaultAdmissionWait, "how long a stream waits for a slot before UNAVAILABLE")
	fs.IntVar(&cfg.BatchRows, "batch-rows", flightserver.DefaultBatchRows, "rows per record batch")
	fs.StringVar(&cfg.TLSCert, "tls-cert", "", "TLS certificate (PEM); enables TLS")
	fs.StringVar(&cfg.TLSKey, "tls-key", "", "TLS private key (PEM)")
	fs.StringVar(&cfg.ClientCA, "tls-client-ca", "", "CA (PEM) that client certificates must chain to; enables mTLS (needs --tls-cert)")
	fs.StringVar(&cfg.AuthTokenFile, "auth-token-file", "", fmt.Sprintf("file holding the bearer token clients must send, at least %d characters (or env %s, not both)", auth.MinTokenLen, authTokenEnv))
	// The admin port's guard: Flight's TLS and token, pprof off.
	fs.BoolVar(&cfg.Pprof, "pprof", false, "serve /debug/pprof/ on the admin port (behind the token and client certificate, as Flight)")
	fs.BoolVar(&cfg.MetricsOpen, "metrics-open", false, "serve /metrics without the token and client certificate Flight requires (for scrapers that send neither; TLS stays)")
	fs.StringVar(&cfg.TicketKeyFile, "ticket-key-file", "", fmt.Sprintf("file of the keys tickets are signed with, one a line in hex (%d bytes or more: openssl rand -hex %d), shared by a cluster; the first signs, all verify (default: a random key per process)", request.MinTicketKeyBytes, request.MinTicketKeyBytes))
	fs.DurationVar(&o.drain, "drain-timeout", 30*time.Second, "on SIGTERM, how long running streams may finish; past it the process exits, non-zero, whatever is still running")
	fs.DurationVar(&cfg.IOTimeout, "io-timeout", flightserver.DefaultIOTimeout, "how long one open or read of an SSTable file may take before its request fails with UNAVAILABLE (hung storage)")
	logLevel := fs.String("log-level", "info", "debug, info, warn or error")
	cqlFlags := registerCassandraFlags(fs)
	fs.DurationVar(&o.dataDirWait, "data-dir-wait", 0, "at start, how long to wait for a missing --data-dir whose parent exists, which Cassandra beside the server creates when it first starts (the chart passes 5m); 0: refuse at once")
	fs.DurationVar(&o.schemaCheck, "schema-check", catalog.DefaultCheckInterval, "how often, at most, to ask Cassandra whether the schema changed")
	fs.StringVar((*string)(&cfg.Snapshot.Mode), "snapshot-mode", "", fmt.Sprintf("%s (the default): link each query's SSTables into --snapshot-dir (safe against compactions); %s: read the data directory in place; %s: the default with --sidecar", snapshot.Hardlink, snapshot.Live, snapshot.Sidecar))
	fs.StringVar(&cfg.Snapshot.Dir, "snapshot-dir", "", "where hardlink snapshots go: on the data directory's filesystem, outside it (default: sstable-flight-snapshots beside --data-dir)")
	fs.DurationVar(&cfg.Snapshot.Window, "snapshot-window", 0, fmt.Sprintf("freshness window: queries within it share one snapshot (0: %v, or %v in Sidecar mode, where each new snapshot flushes the table)", snapshot.DefaultWindow, snapshot.DefaultSidecarWindow))
	fs.DurationVar(&cfg.Snapshot.Grace, "snapshot-grace", snapshot.DefaultGrace, "how long a superseded snapshot stays after its last use, for the rest of its query's splits")
	fs.Int64Var(&cfg.Snapshot.PinnedCap, "snapshot-pinned-cap", 0, "bytes that snapshots may keep of files Cassandra deleted before superseded ones retire early (0: no cap)")
	fs.Int64Var(&cfg.KeyCacheBytes, "key-cache-bytes", flightserver.DefaultKeyCacheBytes, "partition positions kept for point reads of BIG SSTables (negative: none)")
	fs.Int64Var(&cfg.ChunkCacheBytes, "chunk-cache-bytes", flightserver.DefaultChunkCacheBytes, "decompressed Data.db chunks kept for point reads (negative: none); filled by point reads only")
	fs.IntVar(&cfg.QueryPins, "query-pins", flightserver.DefaultQueryPins, "query ids (a command's query_id) whose read time and snapshot epochs are kept, the oldest dropped for a new one; about 1 KiB each")
	fs.DurationVar(&cfg.QueryPinTTL, "query-pin-ttl", flightserver.DefaultQueryPinTTL, "how long a query id's pinned read time and epochs last from its first plan")
	// Limits on what clients may make the server hold (docs/operations.md, "Limits").
	fs.IntVar(&cfg.MaxRequestBytes, "max-request-bytes", flightserver.DefaultMaxRequestBytes, "largest request message (ticket, command, action body); larger ones are refused with RESOURCE_EXHAUSTED")
	fs.IntVar(&cfg.MaxDecodeBytes, "max-decode-bytes", 0, "request bytes decoded and planned at once, server-wide (0: 2 × --max-request-bytes)")
	fs.IntVar(&cfg.MaxRequests, "max-requests", 0, "RPCs in progress, admitted or waiting; more are refused with UNAVAILABLE (0: 64 + 4 × --max-streams)")
	fs.IntVar(&cfg.MaxConnStreams, "max-conn-streams", flightserver.DefaultMaxConnStreams, "concurrent streams per connection (HTTP/2 SETTINGS_MAX_CONCURRENT_STREAMS)")
	fs.IntVar(&cfg.MaxConns, "max-conns", flightserver.DefaultMaxConns, "open client connections; more wait in the kernel's accept queue")
	fs.DurationVar(&cfg.StreamStallTimeout, "stream-stall-timeout", flightserver.DefaultStreamStallTimeout, "how long an RPC waits for its request, or for its client to take a response message, before it is cut (DEADLINE_EXCEEDED without a request, RESOURCE_EXHAUSTED for a client not reading)")
	fs.DurationVar(&cfg.HandshakeTimeout, "handshake-timeout", flightserver.DefaultHandshakeTimeout, "time a new connection has for its TLS and HTTP/2 handshake")
	fs.DurationVar(&cfg.ConnIdleTimeout, "conn-idle-timeout", flightserver.DefaultConnIdleTimeout, "a connection without RPCs for this long is closed")
	fs.DurationVar(&cfg.ConnMaxAge, "conn-max-age", 0, "close each connection this long after it opened, clients reconnecting (0: never)")
	fs.DurationVar(&cfg.ConnMaxAgeGrace, "conn-max-age-grace", flightserver.DefaultConnMaxAgeGrace, "how long the RPCs of a connection closed for its age may run")
	fs.StringVar(&o.sidecarURL, "sidecar", "", "Cassandra Sidecar base URL, e.g. http://127.0.0.1:9043: snapshots are taken and read through it (no shared data directory); token from env SSTF_SIDECAR_TOKEN")
	peers := fs.String("peers", "", "plan over the cluster's ring: each Cassandra node's address and its server's Flight URI, cassandra_addr=grpc://host:port,... (needs --cassandra)")
	peerPort := fs.Int("peer-port", 0, "plan over the cluster's ring, each node's server on the node's native address at this port (grpc+tls with --tls-cert; needs --cassandra)")
	fs.StringVar(&o.peerCA, "peer-ca", "", "CA (PEM) the grpc+tls peers' certificates chain to (default: the system's roots)")
	fs.DurationVar(&o.ringRefresh, "ring-refresh", flightserver.DefaultRingRefresh, "how often the ring and keyspace replication are read again from --cassandra (with --peers, --peer-port or --kube-service)")
	kubeFlags := registerKubeFlags(fs)
	commitLog := fs.String("commitlog-dir", "", `Cassandra's commit log directory, read so that writes not yet flushed are served (needs --cassandra); default: "commitlog" beside --data-dir when it exists; "off": flushed data only`)
	fs.Int64Var(&o.commitLogMax, "commitlog-overlay-max-bytes", overlay.DefaultMaxBytes, "bytes of commit log mutations held for unflushed writes; past it tables are served from their SSTables only, and say so, until the segments are flushed and deleted")
	fs.DurationVar(&o.commitLogPoll, "commitlog-poll", fresh.DefaultPollInterval, "how often the commit log is read for new writes")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q: flags only (sstable-flight -h)", fs.Arg(0))
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		return nil, fmt.Errorf("read --log-level: %w", err)
	}
	cfg.Logger = slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	if err := readAuthTokenEnv(cfg); err != nil {
		return nil, err
	}
	o.cassandra = cqlFlags.addr
	var err error
	if o.cql, err = readCassandra(fs, cqlFlags); err != nil {
		return nil, err
	}
	if err := o.readPeers(*peers, *peerPort, cfg.TLSCert != ""); err != nil {
		return nil, err
	}
	if err := o.readKube(fs, kubeFlags, o.peers != nil, cfg.TLSCert != ""); err != nil {
		return nil, err
	}
	if o.dataDirWait < 0 {
		return nil, fmt.Errorf("read --data-dir-wait: %v is negative (0: do not wait)", o.dataDirWait)
	}
	if err := o.readCommitLog(fs, *commitLog); err != nil {
		return nil, err
	}
	if o.sidecarURL != "" {
		sc, err := sidecar.New(o.sidecarURL, sidecar.Options{BearerToken: os.Getenv("SSTF_SIDECAR_TOKEN")})
		if err != nil {
			return nil, fmt.Errorf("read --sidecar: %w", err)
		}
		cfg.Snapshot.Sidecar = sc
	}
	return o, nil
}

// readCommitLog reads --commitlog-dir and its bounds. Without the flag
// the log is read where Cassandra keeps it beside the data directory,
// if it is there; given, it must be usable.
func (o *options) readCommitLog(fs *flag.FlagSet, dir string) error {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == "commitlog-dir" })
	switch {
	case o.commitLogMax < 0:
		return fmt.Errorf("read --commitlog-overlay-max-bytes: %d is negative", o.commitLogMax)
	case o.commitLogPoll < 0:
		return fmt.Errorf("read --commitlog-poll: %v is negative", o.commitLogPoll)
	case dir == "off":
		return nil
	case set && dir == "":
		return errors.New(`read --commitlog-dir: empty; give a directory, or "off" to serve flushed data only`)
	case set && o.sidecarURL != "":
		return errors.New("read --commitlog-dir: sidecar mode reads no local files; its snapshots are flushed by Cassandra")
	case set && o.cassandra == "":
		return errors.New("read --commitlog-dir: the commit log's tables and host id are read from the node: give --cassandra too")
	case !set && (o.sidecarURL != "" || o.cassandra == "" || o.cfg.DataDir == ""):
		return nil
	case !set:
		dir = filepath.Join(filepath.Dir(filepath.Clean(o.cfg.DataDir)), "commitlog")
	}
	o.commitLog, o.commitLogSet = dir, set
	return nil
}

// readPeers reads --peers or --peer-port, at most one of them: either
// makes the server plan over the ring, which it learns from --cassandra.
func (o *options) readPeers(static string, port int, tls bool) error {
	switch {
	case static != "" && port != 0:
		return errors.New("--peers and --peer-port: give one way to find the peers, not both")
	case static == "" && port == 0:
		return nil
	case o.cassandra == "":
		return errors.New("--peers or --peer-port: planning over the ring needs --cassandra, the node the ring is read from")
	case port < 0 || port > 65535:
		return fmt.Errorf("read --peer-port %d: not a port", port)
	case port != 0:
		scheme := "grpc"
		if tls {
			scheme = "grpc+tls"
		}
		o.peers = cluster.ConventionPeers{Scheme: scheme, Port: uint16(port)}
		return nil
	}
	p, err := cluster.ParseStaticPeers(static)
	if err != nil {
		return fmt.Errorf("read --peers: %w", err)
	}
	o.peers = p
	return nil
}

// configFlags names the flag that sets each flightserver.Config field,
// so a value the server refuses is reported as the operator typed it.
var configFlags = map[string]string{
	"DataDir":                 "data-dir",
	"MaxStreams":              "max-streams",
	"AdmissionWait":           "admission-wait",
	"BatchRows":               "batch-rows",
	"TLSCert":                 "tls-cert",
	"TLSKey":                  "tls-key",
	"ClientCA":                "tls-client-ca",
	"TicketKeyFile":           "ticket-key-file",
	"KeyCacheBytes":           "key-cache-bytes",
	"ChunkCacheBytes":         "chunk-cache-bytes",
	"QueryPins":               "query-pins",
	"QueryPinTTL":             "query-pin-ttl",
	"IOTimeout":               "io-timeout",
	"Snapshot.Mode":           "snapshot-mode",
	"Snapshot.Dir":            "snapshot-dir",
	"Snapshot.Window":         "snapshot-window",
	"Snapshot.Grace":          "snapshot-grace",
	"Snapshot.PinnedCap":      "snapshot-pinned-cap",
	"Snapshot.Sidecar":        "sidecar",
	"AuthTokenFile":           "auth-token-file",
	"MaxRequestBytes":         "max-request-bytes",
	"MaxDecodeBytes":          "max-decode-bytes",
	"MaxRequests":             "max-requests",
	"MaxConnStreams":          "max-conn-streams",
	"MaxConns":                "max-conns",
	"StreamStallTimeout":      "stream-stall-timeout",
	"HandshakeTimeout":        "handshake-timeout",
	"ConnIdleTimeout":         "conn-idle-timeout",
	"ConnMaxAge":              "conn-max-age",
	"ConnMaxAgeGrace":         "conn-max-age-grace",
	"Cluster.Peers":           "peers",
	"Cluster.RefreshInterval": "ring-refresh",
	"Cluster.PeerCA":          "peer-ca",
}

// authTokenEnv is the environment variable that may hold the bearer
// token instead of --auth-token-file.
const authTokenEnv = "SSTF_AUTH_TOKEN"

// readAuthTokenEnv takes the token from the environment. Set but empty
// (or only whitespace), it is refused: Config's empty AuthToken means
// "no authentication", which is not what the operator who set it meant.
func readAuthTokenEnv(cfg *flightserver.Config) error {
	v, ok := os.LookupEnv(authTokenEnv)
	if !ok {
		return nil
	}
	if cfg.AuthTokenFile != "" {
		return fmt.Errorf("--auth-token-file and env %s: give the token one way, not both", authTokenEnv)
	}
	if cfg.AuthToken = strings.TrimSpace(v); cfg.AuthToken == "" {
		return fmt.Errorf("env %s: set but holds no token (empty or only whitespace): refusing to serve without authentication; unset it to serve without a token", authTokenEnv)
	}
	return nil
}

// newServer builds the server, reporting a refused Config value by the
// flag that set it.
func newServer(cfg flightserver.Config) (*flightserver.Server, error) {
	srv, err := flightserver.New(cfg)
	var ce *flightserver.ConfigError
	if err != nil && errors.As(err, &ce) {
		if ce.Field == "AuthToken" { // only the environment sets it
			return nil, fmt.Errorf("env %s: %s", authTokenEnv, ce.Reason)
		}
		if name, ok := configFlags[ce.Field]; ok {
			return nil, flagError(name, ce)
		}
	}
	return srv, err
}
