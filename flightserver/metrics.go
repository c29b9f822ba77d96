package flightserver

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// metrics are the server's Prometheus metrics, registered on their own
// registry (with the Go runtime and process collectors, so RSS is there)
// and served on the admin port.
type metrics struct {
	reg *prometheus.Registry

	requests    *prometheus.CounterVec   // rpc, code
	latency     *prometheus.HistogramVec // rpc
	phase       *prometheus.HistogramVec // plan, open, decode, encode, send
	rowsOut     prometheus.Counter
	bytesOut    prometheus.Counter
	sheds       prometheus.Counter
	openReaders prometheus.Gauge
	cache       *prometheus.CounterVec // result: hit, miss
}

func newMetrics(adm *admission) *metrics {
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
	m.openReaders = prometheus.NewGauge(prometheus.GaugeOpts{Name: "sstf_open_readers", Help: "Open SSTable readers."})
	m.cache = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "sstf_reader_cache_total", Help: "Reader set lookups: hit (the table's SSTables were open) or miss (opened).",
	}, []string{"result"})
	active := prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "sstf_streams_active", Help: "DoGet streams holding a slot."},
		func() float64 { return float64(adm.active.Load()) })
	waiting := prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "sstf_streams_waiting", Help: "DoGet streams waiting for a slot."},
		func() float64 { return float64(adm.waiting.Load()) })
	slots := prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "sstf_streams_max", Help: "DoGet stream slots."},
		func() float64 { return float64(cap(adm.slots)) })
	m.reg.MustRegister(m.requests, m.latency, m.phase, m.rowsOut, m.bytesOut, m.sheds, m.openReaders, m.cache,
		active, waiting, slots,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

func (m *metrics) readersOpened(n int) { m.openReaders.Add(float64(n)) }

func (m *metrics) cacheLookup(hit bool) {
	if hit {
		m.cache.WithLabelValues("hit").Inc()
	} else {
		m.cache.WithLabelValues("miss").Inc()
	}
}
