package flightserver

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/sstable-flight/sstable-flight/flightserver/cqlconn"
	"github.com/sstable-flight/sstable-flight/flightserver/fresh"
	"github.com/sstable-flight/sstable-flight/flightserver/transport"
	"github.com/sstable-flight/sstable-flight/overlay"
	"github.com/sstable-flight/sstable-flight/snapshot"
	"github.com/sstable-flight/sstable-flight/snapshot/sidecar"
	"github.com/sstable-flight/sstable-flight/sstable"
)

// metrics are the server's Prometheus metrics, registered on their own
// registry (with the Go runtime and process collectors, so RSS is there)
// and served on the admin port.
type metrics struct {
	reg *prometheus.Registry

	requests *prometheus.CounterVec   // rpc, code
	latency  *prometheus.HistogramVec // rpc
	phase    *prometheus.HistogramVec // plan, open, decode, encode, send
	rowsOut  prometheus.Counter
	bytesOut prometheus.Counter
	sheds    prometheus.Counter
	// refused counts what the limits refused or cut, by limit
	// (docs/operations.md, "Limits").
	refused *prometheus.CounterVec
	// panics counts RPCs whose handler panicked (panicGuard).
	panics *prometheus.CounterVec
}

func newMetrics(adm *transport.Admission, snaps *snapshot.Manager, side *sidecar.Client, caches sstable.Options, cql *cqlconn.Conn, clog *fresh.Log) *metrics {
	m := &metrics{reg: prometheus.NewRegistry()}
	m.requests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "sstf_requests_total", Help: "Flight RPCs by method and gRPC status code.",
	}, []string{"rpc", "code"})
	m.latency = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "sstf_request_seconds", Help: "Flight RPC latency by method, to the end of the response stream.",
		Buckets: prometheus.ExponentialBuckets(0.0001, 2, 20),
	}, []string{"rpc"})
	m.phase = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "sstf_phase_seconds",
		Help:    "Time per phase: plan (GetFlightInfo), open (readers and mergers), decode (merge and append to Arrow builders, per batch), encode (record assembly), send (IPC write to the stream, per batch).",
		Buckets: prometheus.ExponentialBuckets(0.00001, 2, 22),
	}, []string{"phase"})
	m.rowsOut = prometheus.NewCounter(prometheus.CounterOpts{Name: "sstf_rows_out_total", Help: "Rows sent in DoGet streams."})
	m.bytesOut = prometheus.NewCounter(prometheus.CounterOpts{Name: "sstf_bytes_out_total", Help: "Arrow buffer bytes sent in DoGet streams."})
	m.sheds = prometheus.NewCounter(prometheus.CounterOpts{Name: "sstf_sheds_total", Help: "DoGet streams refused with UNAVAILABLE after waiting for a slot."})
	m.refused = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "sstf_limit_refusals_total", Help: "RPCs refused or cut by a limit: requests (MaxRequests in progress), request_timeout (no request message within StreamStallTimeout), stall (the client took no response data for StreamStallTimeout), conn_stall (a connection closed: bytes queued, none written for StreamStallTimeout).",
	}, []string{"limit"})
	m.panics = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "sstf_rpc_panics_total", Help: "RPCs whose handler panicked and were failed with INTERNAL (the stack is in the log); any is a bug to report.",
	}, []string{"rpc"})
	active := prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "sstf_streams_active", Help: "DoGet streams holding a slot."},
		func() float64 { return float64(adm.Active()) })
	waiting := prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "sstf_streams_waiting", Help: "DoGet streams waiting for a slot."},
		func() float64 { return float64(adm.Waiting()) })
	slots := prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "sstf_streams_max", Help: "DoGet stream slots."},
		func() float64 { return float64(adm.Slots()) })
	m.reg.MustRegister(m.requests, m.latency, m.phase, m.rowsOut, m.bytesOut, m.sheds, m.refused, m.panics,
		active, waiting, slots,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m.reg.MustRegister(snapshotMetrics(snaps)...)
	if side != nil {
		m.reg.MustRegister(sidecarMetrics(side)...)
	}
	if cql != nil {
		m.reg.MustRegister(cassandraMetrics(cql)...)
	}
	if clog != nil {
		m.reg.MustRegister(overlayMetrics(clog)...)
	}
	if c := caches.ChunkCache; c != nil {
		m.reg.MustRegister(cacheMetrics("chunk", "Data.db chunk lookups of point reads: hit (decompressed chunk cached) or miss (read and decompressed).",
			"Bytes of decompressed chunks in the point reads' chunk cache.",
			func() (int64, int64, int64) { s := c.Stats(); return s.Hits, s.Misses, s.Bytes })...)
	}
	if g := caches.IOGuard; g != nil {
		m.reg.MustRegister(storageMetrics(g)...)
	}
	if c := caches.KeyCache; c != nil {
		m.reg.MustRegister(cacheMetrics("key", "Partition position lookups of point reads in BIG SSTables: hit (position cached) or miss (Index.db scanned).",
			"Bytes the key cache accounts for its entries (keys plus 96 each).",
			func() (int64, int64, int64) { s := c.Stats(); return s.Hits, s.Misses, s.Bytes })...)
	}
	return m
}

// cacheMetrics reads one of the point reads' caches at scrape time:
// sstf_<name>_cache_total{result} and sstf_<name>_cache_bytes.
func cacheMetrics(name, lookups, bytes string, stats func() (hits, misses, size int64)) []prometheus.Collector {
	counter := func(result string, pick func(h, m, b int64) int64) prometheus.Collector {
		return prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "sstf_" + name + "_cache_total", Help: lookups, ConstLabels: prometheus.Labels{"result": result}},
			func() float64 { return float64(pick(stats())) })
	}
	return []prometheus.Collector{
		counter("hit", func(h, _, _ int64) int64 { return h }),
		counter("miss", func(_, m, _ int64) int64 { return m }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "sstf_" + name + "_cache_bytes", Help: bytes},
			func() float64 { _, _, b := stats(); return float64(b) }),
	}
}

// storageMetrics reads the storage guard's counters at scrape time: the
// opens and reads (and table listings) storage did not answer in time.
func storageMetrics(g *sstable.IOGuard) []prometheus.Collector {
	return []prometheus.Collector{
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "sstf_storage_stuck_operations",
			Help: "File opens, reads and table listings given up on after --io-timeout that have not returned yet: each holds a thread in the kernel (hung storage)."},
			func() float64 { return float64(g.Stats().Stuck) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "sstf_storage_stalls_total",
			Help: "File opens, reads and table listings given up on after --io-timeout; their requests failed with UNAVAILABLE."},
			func() float64 { return float64(g.Stats().Stalls) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "sstf_storage_refused_total",
			Help: "File opens and reads refused at once because one on the same file, or the limit of them, was stuck."},
			func() float64 { return float64(g.Stats().Refused) }),
	}
}

// cassandraMetrics read the connection to the node (--cassandra) at
// scrape time: whether it is up, and the failed attempts by reason
// (every reason exported from the start, so a rate over them is defined
// before the first failure).
func cassandraMetrics(c *cqlconn.Conn) []prometheus.Collector {
	out := []prometheus.Collector{prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "sstf_cassandra_up",
		Help: "1 while the server holds a session to its Cassandra node (--cassandra) whose probes answer, else 0 (not up yet, refused, or lost): schemas and the ring are then the last read, or schema.cql and SSTable headers."},
		func() float64 {
			if c.Status().Up {
				return 1
			}
			return 0
		})}
	const help = "Failed attempts to connect to the Cassandra node, by reason: unreachable (no connection: the node is down or starting), tls (handshake: CA, server name, client certificate), auth (credentials refused, or asked for and none configured), credentials (the user or password file unreadable or empty), other."
	for _, r := range cqlconn.Reasons {
		out = append(out, prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "sstf_cassandra_connect_failures_total", Help: help, ConstLabels: prometheus.Labels{"reason": r}},
			func() float64 { return float64(c.Failures(r)) }))
	}
	return out
}

// overlayMetrics read the commit log's overlay (--commitlog-dir) at
// scrape time.
func overlayMetrics(l *fresh.Log) []prometheus.Collector {
	stat := func(f func(overlay.Stats) float64) func() float64 {
		return func() float64 { return f(l.Stats()) }
	}
	return []prometheus.Collector{
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "sstf_overlay_bytes",
			Help: "Bytes the commit log entries held for writes not yet flushed take: each mutation and about 224 bytes of its own (bounded by sstf_overlay_max_bytes)."},
			stat(func(s overlay.Stats) float64 { return float64(s.Bytes) })),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "sstf_overlay_max_bytes", Help: "The bound on sstf_overlay_bytes (--commitlog-overlay-max-bytes)."},
			func() float64 { return float64(l.MaxBytes()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "sstf_overlay_updates", Help: "Partition updates held from the commit log."},
			stat(func(s overlay.Stats) float64 { return float64(s.Updates) })),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "sstf_overlay_pending_entries",
			Help: "Commit log entries waiting for the schema to be read again (a table or column it lacks); their tables are served flushed-only meanwhile."},
			stat(func(s overlay.Stats) float64 { return float64(s.Pending) })),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "sstf_overlay_skipped_entries_total",
			Help: "Commit log entries skipped: they write a table the node's schema does not have (a system table, or one dropped)."},
			stat(func(s overlay.Stats) float64 { return float64(s.Unknown) })),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "sstf_overlay_lost",
			Help: "1 while some write in the commit log is not held (the bound hit, a damaged segment): every table is then served from its SSTables only, and its plans say so; 0 otherwise."},
			stat(func(s overlay.Stats) float64 {
				if s.Lost {
					return 1
				}
				return 0
			})),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "sstf_overlay_lost_tables",
			Help: "Tables a commit log write of which could not be decoded (the log says why): each is served from its SSTables only until that segment is flushed and deleted."},
			stat(func(s overlay.Stats) float64 { return float64(s.LostTables) })),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "sstf_overlay_segment",
			Help: "The id of the commit log segment last read: with Cassandra's, how far behind the log the server is."},
			stat(func(s overlay.Stats) float64 { return float64(s.Through.SegmentID) })),
	}
}

// sidecarMetrics reads the Sidecar client's counters at scrape time
// (Sidecar mode): requests, errors, bytes and the block cache.
func sidecarMetrics(c *sidecar.Client) []prometheus.Collector {
	stat := func(f func(sidecar.Stats) float64) func() float64 {
		return func() float64 { return f(c.Stats()) }
	}
	counter := func(name, help string, labels prometheus.Labels, f func(sidecar.Stats) float64) prometheus.Collector {
		return prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: help, ConstLabels: labels}, stat(f))
	}
	const cache = "Sidecar block reads: hit (cached) or miss (fetched with a range request)."
	return []prometheus.Collector{
		counter("sstf_sidecar_requests_total", "HTTP requests to Sidecar, retries included.", nil, func(s sidecar.Stats) float64 { return float64(s.Requests) }),
		counter("sstf_sidecar_request_errors_total", "Sidecar requests that failed or got an unexpected status.", nil, func(s sidecar.Stats) float64 { return float64(s.RequestErrors) }),
		counter("sstf_sidecar_retries_total", "Sidecar requests retried after 429 or 503.", nil, func(s sidecar.Stats) float64 { return float64(s.Retries) }),
		counter("sstf_sidecar_bytes_fetched_total", "SSTable component bytes fetched from Sidecar.", nil, func(s sidecar.Stats) float64 { return float64(s.BytesFetched) }),
		counter("sstf_sidecar_cache_total", cache, prometheus.Labels{"result": "hit"}, func(s sidecar.Stats) float64 { return float64(s.CacheHits) }),
		counter("sstf_sidecar_cache_total", cache, prometheus.Labels{"result": "miss"}, func(s sidecar.Stats) float64 { return float64(s.CacheMisses) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "sstf_sidecar_cached_bytes", Help: "Bytes in the Sidecar block cache."},
			stat(func(s sidecar.Stats) float64 { return float64(s.CachedBytes) })),
	}
}

// snapshotMetrics reads the snapshot manager's counters at scrape time.
func snapshotMetrics(snaps *snapshot.Manager) []prometheus.Collector {
	stat := func(f func(snapshot.Stats) float64) func() float64 {
		return func() float64 { return f(snaps.Stats()) }
	}
	gauge := func(name, help string, f func(snapshot.Stats) float64) prometheus.Collector {
		return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help}, stat(f))
	}
	counter := func(name, help string, labels prometheus.Labels, f func(snapshot.Stats) float64) prometheus.Collector {
		return prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: help, ConstLabels: labels}, stat(f))
	}
	const lookups = "Epoch acquisitions: hit (an epoch of the window, or an unchanged table's) or miss (a new epoch cut)."
	const retired = "Snapshot epochs removed: after the grace period, or early because pinned bytes passed the cap."
	return []prometheus.Collector{
		gauge("sstf_open_readers", "Open SSTable readers.", func(s snapshot.Stats) float64 { return float64(s.Readers) }),
		gauge("sstf_snapshot_epochs", "Snapshot epochs alive (current and superseded).", func(s snapshot.Stats) float64 { return float64(s.Epochs) }),
		gauge("sstf_snapshot_oldest_epoch_age_seconds", "Age of the oldest alive snapshot epoch.", func(s snapshot.Stats) float64 { return s.OldestEpochAge.Seconds() }),
		gauge("sstf_snapshot_pinned_bytes", "Bytes kept on disk only by our snapshot links (Cassandra deleted the files).", func(s snapshot.Stats) float64 { return float64(s.PinnedBytes) }),
		counter("sstf_snapshot_epochs_cut_total", "Snapshot epochs created.", nil, func(s snapshot.Stats) float64 { return float64(s.EpochsCut) }),
		counter("sstf_reader_cache_total", lookups, prometheus.Labels{"result": "hit"}, func(s snapshot.Stats) float64 { return float64(s.Hits) }),
		counter("sstf_reader_cache_total", lookups, prometheus.Labels{"result": "miss"}, func(s snapshot.Stats) float64 { return float64(s.EpochsCut) }),
		counter("sstf_readers_opened_total", "SSTable readers opened.", nil, func(s snapshot.Stats) float64 { return float64(s.ReadersOpened) }),
		counter("sstf_readers_reused_total", "SSTable readers a new epoch took over from an older one (same file).", nil, func(s snapshot.Stats) float64 { return float64(s.ReadersReused) }),
		counter("sstf_snapshot_epochs_retired_total", retired, prometheus.Labels{"reason": "grace"}, func(s snapshot.Stats) float64 { return float64(s.Retired - s.ForcedRetired) }),
		counter("sstf_snapshot_epochs_retired_total", retired, prometheus.Labels{"reason": "pinned_cap"}, func(s snapshot.Stats) float64 { return float64(s.ForcedRetired) }),
	}
}

// queryPins registers the query pins kept and those the cap dropped.
func (m *metrics) queryPins(q *queryPins) {
	m.reg.MustRegister(
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "sstf_query_pins", Help: "Query ids whose read time and snapshot epochs the server keeps (QueryPins caps them)."},
			func() float64 { n, _ := q.stats(); return float64(n) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "sstf_query_pins_evicted_total",
			Help: "Query pins dropped for new ones at the QueryPins cap before their TTL: a later plan of such a query pinned again. Raise --query-pins if it grows."},
			func() float64 { _, e := q.stats(); return float64(e) }))
}

// connections registers the open connections and their cap.
func (m *metrics) connections(c *transport.ConnLimit) {
	m.reg.MustRegister(
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "sstf_connections", Help: "Open client connections."},
			func() float64 { return float64(c.Open()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "sstf_connections_max", Help: "Client connections the server accepts at once (MaxConns)."},
			func() float64 { return float64(c.Max()) }))
}
