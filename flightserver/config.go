package flightserver

import (
	"crypto/tls"
	"errors"
	"log/slog"
	"math"
	"os"
	"runtime"
	"strconv"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/sstable-flight/sstable-flight/flightserver/arrowenc"
	"github.com/sstable-flight/sstable-flight/flightserver/auth"
	"github.com/sstable-flight/sstable-flight/flightserver/catalog"
	"github.com/sstable-flight/sstable-flight/flightserver/cqlconn"
	"github.com/sstable-flight/sstable-flight/flightserver/fresh"
	"github.com/sstable-flight/sstable-flight/flightserver/tables"
	"github.com/sstable-flight/sstable-flight/snapshot"
	"github.com/sstable-flight/sstable-flight/sstable"
)

// Config configures a Server. New applies the defaults noted and refuses
// values that cannot work (resolve, below, is the one place for both);
// the snapshot.Config inside is resolved by snapshot.NewManager.
type Config struct {
	// DataDir is Cassandra's data directory, <keyspace>/<table>-<id>/:
	// required, unless Snapshot is Sidecar mode, which has none.
	DataDir string
	Schemas tables.SchemaSource // default: schema.cql beside the SSTables, else their headers
	// MaxStreams bounds concurrent DoGet streams (default: 2 per CPU of
	// the process' quota, GOMAXPROCS); AdmissionWait is how long a stream
	// beyond it waits before UNAVAILABLE (default DefaultAdmissionWait).
	MaxStreams    int
	AdmissionWait time.Duration
	// BatchRows and BatchBytes bound each record batch (defaults
	// DefaultBatchRows rows and DefaultBatchBytes of value bytes, which
	// keeps IPC messages under gRPC's 4 MiB default receive limit).
	BatchRows  int
	BatchBytes int
	// TLS: a certificate and key enable TLS; a client CA adds mTLS.
	// New reads and checks them before it starts anything (auth.ServerTLS):
	// files that cannot be read, a key not the certificate's, a CA file
	// with no certificate or with anything but certificates are refused.
	TLSCert, TLSKey, ClientCA string
	tlsConf                   *tls.Config // resolved from the three
	// AuthToken, when set, is required as "authorization: Bearer <token>"
	// on every RPC but the health check: at least auth.MinTokenLen
	// visible ASCII characters (auth.ResolveToken). AuthTokenFile, when set,
	// is the file New reads it from, its surrounding whitespace (a
	// trailing newline) trimmed; a file that holds no token is refused,
	// never taken for "no authentication". Set one or the other.
	AuthToken     string
	AuthTokenFile string
	// The admin port (ServeAdmin) serves /metrics, and /debug/pprof/
	// only when Pprof: profiles cost CPU while they run and show the
	// command line. It takes Flight's TLS and token: HTTPS when TLSCert
	// is set, a verified client certificate when ClientCA is, the
	// bearer token when AuthToken is, on every path; MetricsOpen
	// exempts /metrics from the certificate and the token (not from
	// TLS), for scrapers that send neither.
	Pprof       bool
	MetricsOpen bool
	// TicketKeyFile holds the keys tickets are signed with, one a line in
	// hex, at least MinTicketKeyBytes each: the first signs, every one
	// verifies (request/ticketkey.go). The servers of a cluster share it. Empty:
	// a random key per process, so tickets are valid only on the server
	// that planned them, until it restarts.
	TicketKeyFile string

	Logger    *slog.Logger
	Allocator memory.Allocator
	// Now is the server's clock (default time.Now): the read time of
	// TTLs, and every window, grace and age of the snapshots and of the
	// table cache (Snapshot.Now is Now). Latency metrics and timeouts
	// are real time, whatever it says.
	Now func() time.Time
	// Snapshot says how queries hold a table's SSTables still (mode,
	// directory, freshness window, grace, pinned-bytes cap); its DataDir
	// is DataDir and its clock Now. Zero: hard links in snapshot.DefaultDir(DataDir), the
	// mode's window (snapshot.Config.Window).
	Snapshot snapshot.Config
	// ChunkCacheBytes bounds the decompressed Data.db chunks kept for
	// point reads (default DefaultChunkCacheBytes; negative: none). It
	// fills only as point reads run; scans never use it.
	ChunkCacheBytes int64
	// KeyCacheBytes bounds the partition positions kept for point reads
	// of BIG SSTables, so a warm read skips its Index.db scan (default
	// DefaultKeyCacheBytes, ~70,000 short keys; negative: none).
	KeyCacheBytes int64
	// QueryPins caps the query ids whose read time and snapshot epochs
	// the server keeps (request.Command.QueryID, querypin.go), the oldest pin
	// dropped for a new one (default DefaultQueryPins); QueryPinTTL is
	// how long a pin lives from its query's first plan (default
	// DefaultQueryPinTTL): the most a query's later plans may lag its
	// first, and the oldest read time a reused id can get.
	QueryPins   int
	QueryPinTTL time.Duration

	// Limits on what clients may make the server hold, so that memory
	// is bounded by these values whatever they send (docs/operations.md,
	// "Limits", derives the bound).
	//
	// MaxRequestBytes bounds one request message: a ticket, a command,
	// an action's body. gRPC refuses a larger one with RESOURCE_EXHAUSTED
	// before reading it (default DefaultMaxRequestBytes); the server never
	// issues a ticket larger than it accepts.
	MaxRequestBytes int
	// MaxDecodeBytes bounds the request bytes being decoded and planned
	// at once, server-wide, each request weighing its size; a request
	// beyond it waits up to AdmissionWait, then UNAVAILABLE (default 2 ×
	// MaxRequestBytes; at least MaxRequestBytes).
	MaxDecodeBytes int
	// MaxRequests bounds the RPCs in progress, admitted or waiting; one
	// more is refused at once with UNAVAILABLE, before its message is
	// read (default 64 + 4 × MaxStreams).
	MaxRequests int
	// MaxConnStreams bounds one connection's concurrent streams, HTTP/2's
	// SETTINGS_MAX_CONCURRENT_STREAMS (default DefaultMaxConnStreams).
	MaxConnStreams int
	// MaxConns caps the open client connections (default
	// DefaultMaxConns): one more waits in the kernel's accept queue until
	// one closes. Each takes a file descriptor, beside the SSTables'.
	MaxConns int
	// StreamStallTimeout is how long an RPC may wait for its client
	// (default DefaultStreamStallTimeout): for its request message after
	// the call's headers (then DEADLINE_EXCEEDED), and for the client to
	// take each response message (then RESOURCE_EXHAUSTED, and, as gRPC
	// frees what it queued for a client only with its connection, the
	// connection is closed). Either way the RPC's slots are given back.
	StreamStallTimeout time.Duration
	// HandshakeTimeout bounds a new connection's TLS and HTTP/2
	// handshake (default DefaultHandshakeTimeout).
	HandshakeTimeout time.Duration
	// ConnIdleTimeout closes a connection that had no RPC for this long
	// (default DefaultConnIdleTimeout).
	ConnIdleTimeout time.Duration
	// ConnMaxAge, when set, closes each connection this long after it
	// opened (a GOAWAY: clients reconnect), its RPCs given
	// ConnMaxAgeGrace more (default DefaultConnMaxAgeGrace). Zero: no
	// age.
	ConnMaxAge, ConnMaxAgeGrace time.Duration

	// IOTimeout bounds each open and read of an SSTable file (default
	// DefaultIOTimeout; a table's listing and snapshot get twice as
	// long): storage that does not answer within it fails the request
	// with UNAVAILABLE naming the file, while the operation, stuck in the
	// kernel, is counted in sstf_storage_stuck_operations until it
	// returns. A file with a stuck operation refuses the next ones at
	// once; past MaxStuckIO stuck operations (default DefaultMaxStuckIO)
	// every read is refused, so a dead mount cannot pile up threads.
	IOTimeout  time.Duration
	MaxStuckIO int
	// FS opens the SSTables' component files, outside Sidecar mode
	// (default: the local file system). Tests put failing or hanging
	// storage here.
	FS sstable.FS

	// Cluster, when set, plans every query over the ring of the
	// server's Cassandra cluster, each range on its replicas' servers
	// (clusterconfig.go). Nil: the server plans its own node's data.
	Cluster *ClusterConfig
	// Cassandra, when set, is the server's connection to its node (the
	// one Schemas and Cluster.Discover read through): its state is
	// exported on /metrics (sstf_cassandra_*) and in node-info. The
	// caller starts and closes it.
	Cassandra *cqlconn.Conn
	// CommitLog, when set, adds each table's unflushed writes, read from
	// the node's commit log, to its snapshot epochs (Snapshot.Unflushed),
	// and exports its state (sstf_overlay_*). The caller starts and
	// closes it. Nil: flushed data only, and plans say so.
	CommitLog *fresh.Log
}

// Config's defaults (MaxStreams' depends on the CPUs: 2 per CPU).
const (
	DefaultAdmissionWait   = 2 * time.Second
	DefaultBatchRows       = 32768
	DefaultBatchBytes      = 2 << 20
	DefaultChunkCacheBytes = 64 << 20
	DefaultKeyCacheBytes   = 8 << 20
	DefaultQueryPins       = 10000
	DefaultQueryPinTTL     = 15 * time.Minute

	DefaultMaxRequestBytes    = 1 << 20
	DefaultMaxConnStreams     = 100
	DefaultMaxConns           = 512
	DefaultStreamStallTimeout = 30 * time.Second
	DefaultHandshakeTimeout   = 10 * time.Second
	DefaultConnIdleTimeout    = 5 * time.Minute
	DefaultConnMaxAgeGrace    = time.Minute
	DefaultIOTimeout          = 20 * time.Second
	DefaultMaxStuckIO         = 64
)

// ConfigError is a Config value New refuses. Field is spelled as in
// Config ("Snapshot.Window" for a field of Snapshot), Value as given
// (empty when the field is missing), so the command can name the flag
// that set it. It is snapshot's ConfigError, so that one type (and one
// message format) serves both Configs.
type ConfigError = snapshot.ConfigError

// resolve applies the defaults and checks every value of the server's
// own: the one place either happens. Snapshot is passed on to
// snapshot.NewManager, which resolves it; its DataDir is DataDir and its
// clock Now.
func (c *Config) resolve() error {
	switch {
	case c.MaxStreams < 0:
		return &ConfigError{Field: "MaxStreams", Value: strconv.Itoa(c.MaxStreams), Reason: "must not be negative (0: 2 per CPU)"}
	case c.AdmissionWait < 0:
		return &ConfigError{Field: "AdmissionWait", Value: c.AdmissionWait.String(), Reason: "must not be negative (0: " + DefaultAdmissionWait.String() + ")"}
	case c.BatchRows < 0:
		return &ConfigError{Field: "BatchRows", Value: strconv.Itoa(c.BatchRows), Reason: "must not be negative (0: " + strconv.Itoa(DefaultBatchRows) + ")"}
	case c.BatchBytes < 0:
		return &ConfigError{Field: "BatchBytes", Value: strconv.Itoa(c.BatchBytes), Reason: "must not be negative (0: " + strconv.Itoa(DefaultBatchBytes) + ")"}
	case c.IOTimeout < 0:
		return &ConfigError{Field: "IOTimeout", Value: c.IOTimeout.String(), Reason: "must not be negative (0: " + DefaultIOTimeout.String() + ")"}
	case c.MaxStuckIO < 0:
		return &ConfigError{Field: "MaxStuckIO", Value: strconv.Itoa(c.MaxStuckIO), Reason: "must not be negative (0: " + strconv.Itoa(DefaultMaxStuckIO) + ")"}
	case c.QueryPins < 0:
		return &ConfigError{Field: "QueryPins", Value: strconv.Itoa(c.QueryPins), Reason: "must not be negative (0: " + strconv.Itoa(DefaultQueryPins) + ")"}
	case c.QueryPinTTL < 0:
		return &ConfigError{Field: "QueryPinTTL", Value: c.QueryPinTTL.String(), Reason: "must not be negative (0: " + DefaultQueryPinTTL.String() + ")"}
	}
	switch {
	case c.TLSCert != "" && c.TLSKey == "":
		return &ConfigError{Field: "TLSKey", Reason: "required with a TLS certificate: its private key"}
	case c.TLSCert == "" && c.TLSKey != "":
		return &ConfigError{Field: "TLSCert", Reason: "required with a TLS key: its certificate"}
	case c.TLSCert == "" && c.ClientCA != "":
		// A client CA without TLS would serve plaintext to anyone while
		// the operator believes client certificates are checked.
		return &ConfigError{Field: "TLSCert", Reason: "required with a client CA: client certificates are checked only over TLS"}
	}
	var err error
	if c.AuthToken, err = auth.ResolveToken(c.AuthToken, c.AuthTokenFile); err != nil {
		return err
	}
	if c.tlsConf, err = auth.ServerTLS(c.TLSCert, c.TLSKey, c.ClientCA); err != nil {
		return err
	}
	setDefault(&c.MaxStreams, 2*runtime.GOMAXPROCS(0))
	setDefault(&c.AdmissionWait, DefaultAdmissionWait)
	setDefault(&c.BatchRows, DefaultBatchRows)
	setDefault(&c.BatchBytes, DefaultBatchBytes)
	setDefault(&c.ChunkCacheBytes, DefaultChunkCacheBytes)
	setDefault(&c.KeyCacheBytes, DefaultKeyCacheBytes)
	setDefault(&c.QueryPins, DefaultQueryPins)
	setDefault(&c.QueryPinTTL, DefaultQueryPinTTL)
	setDefault(&c.IOTimeout, DefaultIOTimeout)
	setDefault(&c.MaxStuckIO, DefaultMaxStuckIO)
	if c.Logger == nil {
		c.Logger = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	if c.Allocator == nil {
		c.Allocator = arrowenc.NewPoolAllocator()
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Schemas == nil {
		c.Schemas = tables.NewCatalogSchemas(catalog.New(catalog.Options{Now: c.Now}))
	}
	c.Snapshot.DataDir, c.Snapshot.Now = c.DataDir, c.Now
	if c.Cluster != nil {
		cc := *c.Cluster // the caller's stays as given
		if err := cc.resolve(); err != nil {
			return err
		}
		c.Cluster = &cc
	}
	return c.resolveLimits()
}

// setDefault gives a zero field its default.
func setDefault[T comparable](v *T, def T) {
	var zero T
	if *v == zero {
		*v = def
	}
}

// resolveLimits applies the defaults of the limits and checks them, for
// resolve (after MaxStreams, which MaxRequests' default follows).
func (c *Config) resolveLimits() error {
	for _, f := range []struct {
		name string
		v    int
	}{{"MaxRequestBytes", c.MaxRequestBytes}, {"MaxDecodeBytes", c.MaxDecodeBytes}, {"MaxRequests", c.MaxRequests},
		{"MaxConnStreams", c.MaxConnStreams}, {"MaxConns", c.MaxConns}} {
		if f.v < 0 {
			return &ConfigError{Field: f.name, Value: strconv.Itoa(f.v), Reason: "must not be negative (0: the default)"}
		}
	}
	if err := noNegative(durationField{"StreamStallTimeout", c.StreamStallTimeout}, durationField{"HandshakeTimeout", c.HandshakeTimeout},
		durationField{"ConnIdleTimeout", c.ConnIdleTimeout}, durationField{"ConnMaxAge", c.ConnMaxAge}, durationField{"ConnMaxAgeGrace", c.ConnMaxAgeGrace}); err != nil {
		return err
	}
	if c.MaxConnStreams > math.MaxInt32 {
		return &ConfigError{Field: "MaxConnStreams", Value: strconv.Itoa(c.MaxConnStreams), Reason: "must be at most " + strconv.Itoa(math.MaxInt32)}
	}
	setDefault(&c.MaxRequestBytes, DefaultMaxRequestBytes)
	setDefault(&c.MaxDecodeBytes, 2*c.MaxRequestBytes)
	if c.MaxDecodeBytes < c.MaxRequestBytes {
		return &ConfigError{Field: "MaxDecodeBytes", Value: strconv.Itoa(c.MaxDecodeBytes), Reason: "must be at least MaxRequestBytes (" + strconv.Itoa(c.MaxRequestBytes) + "), or the largest request could never be read"}
	}
	setDefault(&c.MaxRequests, 64+4*c.MaxStreams)
	setDefault(&c.MaxConnStreams, DefaultMaxConnStreams)
	setDefault(&c.MaxConns, DefaultMaxConns)
	setDefault(&c.StreamStallTimeout, DefaultStreamStallTimeout)
	setDefault(&c.HandshakeTimeout, DefaultHandshakeTimeout)
	setDefault(&c.ConnIdleTimeout, DefaultConnIdleTimeout)
	setDefault(&c.ConnMaxAgeGrace, DefaultConnMaxAgeGrace)
	return nil
}

// durationField is a duration of a Config by its field's name.
type durationField struct {
	name string
	v    time.Duration
}

// noNegative refuses the first negative duration of fields, whose zero
// is their default.
func noNegative(fields ...durationField) error {
	for _, f := range fields {
		if f.v < 0 {
			return &ConfigError{Field: f.name, Value: f.v.String(), Reason: "must not be negative (0: the default)"}
		}
	}
	return nil
}

// snapshotConfigError names a field snapshot.NewManager refused as a
// field of Config: Snapshot.DataDir is DataDir, the rest are under
// Snapshot.
func snapshotConfigError(err error) error {
	var se *snapshot.ConfigError
	if !errors.As(err, &se) {
		return err
	}
	field := "Snapshot." + se.Field
	if se.Field == "DataDir" {
		field = "DataDir"
	}
	return &ConfigError{Field: field, Value: se.Value, Reason: se.Reason}
}
