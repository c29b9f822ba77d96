package trinobench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"sync"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/sstable-flight/sstable-flight/loadgen/testbed"
)

// LoadStats is one closed-loop run: clients each issuing one query after
// another for a fixed time.
type LoadStats struct {
	Clients  int      `json:"clients"`
	WallS    float64  `json:"wall_s"` // from the start to the last query's end
	OK       int64    `json:"ok"`
	Errors   int64    `json:"errors"`
	QPS      float64  `json:"qps"` // successful queries per second of WallS
	P50MS    float64  `json:"p50_ms"`
	P99MS    float64  `json:"p99_ms"`
	MaxMS    float64  `json:"max_ms"`
	ErrorsAt []string `json:"error_samples,omitempty"` // the first few errors, for the record
}

// Latency histogram: 100 µs to 10 minutes at 3 significant digits; a
// query beyond it is recorded as 10 minutes (the run's HTTP timeout is
// shorter).
const (
	loadHistMinUS = 100
	loadHistMaxUS = 600_000_000
	errorSamples  = 3
)

// loadWorker is one client's account, merged at the end: HDR histograms
// are not safe for concurrent use, so each client has its own.
type loadWorker struct {
	hist    *hdrhistogram.Histogram
	ok, bad int64
	errs    []string
	lastEnd time.Time
}

// load runs clients closed-loop clients, client c issuing query(ctx, c,
// i) for i = 0, 1, ... until d has passed since the start: a query is
// only started before the deadline, and the run waits for those in
// flight (each bounded by the query function's own timeout), so
// throughput is the successful queries over the time to the last end.
// Only successful queries enter the latency figures. It also returns the
// merged latency histogram, so that runs in parts can be summed
// (mergeLoads).
func load(ctx context.Context, clients int, d time.Duration, query func(ctx context.Context, client int, i uint64) error) (LoadStats, *hdrhistogram.Histogram) {
	ws := make([]*loadWorker, clients)
	start := time.Now()
	deadline := start.Add(d)
	var wg sync.WaitGroup
	for c := range clients {
		w := &loadWorker{hist: hdrhistogram.New(loadHistMinUS, loadHistMaxUS, 3)}
		ws[c] = w
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := uint64(0); ctx.Err() == nil && time.Now().Before(deadline); i++ {
				t0 := time.Now()
				err := query(ctx, c, i)
				end := time.Now()
				w.lastEnd = end
				if err != nil {
					w.bad++
					if len(w.errs) < errorSamples {
						w.errs = append(w.errs, err.Error())
					}
					continue
				}
				w.ok++
				_ = w.hist.RecordValue(min(max(end.Sub(t0).Microseconds(), loadHistMinUS), loadHistMaxUS))
			}
		}()
	}
	wg.Wait()
	s := LoadStats{Clients: clients}
	h := hdrhistogram.New(loadHistMinUS, loadHistMaxUS, 3)
	last := start
	for _, w := range ws {
		h.Merge(w.hist)
		s.OK += w.ok
		s.Errors += w.bad
		if len(s.ErrorsAt) < errorSamples {
			s.ErrorsAt = append(s.ErrorsAt, w.errs[:min(len(w.errs), errorSamples-len(s.ErrorsAt))]...)
		}
		if w.lastEnd.After(last) {
			last = w.lastEnd
		}
	}
	s.WallS = last.Sub(start).Seconds()
	s.finish(h)
	return s, h
}

// finish derives the rates and percentiles from the counts and h.
func (s *LoadStats) finish(h *hdrhistogram.Histogram) {
	s.QPS = 0
	if s.WallS > 0 {
		s.QPS = float64(s.OK) / s.WallS
	}
	if s.OK > 0 {
		s.P50MS = float64(h.ValueAtQuantile(50)) / 1e3
		s.P99MS = float64(h.ValueAtQuantile(99)) / 1e3
		s.MaxMS = float64(h.Max()) / 1e3
	}
}

// mergeLoads sums runs of one load made in parts: their queries, errors
// and time, and their latencies as one histogram.
func mergeLoads(parts []LoadStats, hists []*hdrhistogram.Histogram) LoadStats {
	s := LoadStats{}
	h := hdrhistogram.New(loadHistMinUS, loadHistMaxUS, 3)
	for i, p := range parts {
		s.Clients = p.Clients
		s.WallS += p.WallS
		s.OK += p.OK
		s.Errors += p.Errors
		if len(s.ErrorsAt) < errorSamples {
			s.ErrorsAt = append(s.ErrorsAt, p.ErrorsAt[:min(len(p.ErrorsAt), errorSamples-len(s.ErrorsAt))]...)
		}
		h.Merge(hists[i])
	}
	s.finish(h)
	return s
}

// LevelRun is one catalog at one concurrency level, with the CPU Trino
// and the catalog's source (sstable-flight or the node) spent per
// successful query meanwhile (from /proc).
type LevelRun struct {
	Catalog string `json:"catalog"`
	LoadStats
	TrinoCPUPerQueryMS  float64 `json:"trino_cpu_per_query_ms"`
	SourceCPUPerQueryMS float64 `json:"source_cpu_per_query_ms"`
}

// Level is one concurrency level through both catalogs.
type Level struct {
	Clients int      `json:"clients"`
	Ours    LevelRun `json:"ours"`
	Peer    LevelRun `json:"peer"`
	Ratio   float64  `json:"qps_ratio"` // ours qps / cassandra qps: at least 1 is the target
}

// Concurrency is the keyed lookups under load: many clients at once
// through each catalog, ours held to at least cassandra's rate.
type Concurrency struct {
	Duration string  `json:"duration"` // per catalog and level
	SQL      string  `json:"sql"`      // with %s for the table and %s for the key
	Clients  []int   `json:"clients"`  // the levels asked for
	Levels   []Level `json:"levels"`   // the levels measured
	// Profile is Trino during one more run of ours at the highest
	// level, after the measured ones: the connector's share of Trino's
	// CPU per keyed query and where the rest goes.
	Profile  *Profile  `json:"profile,omitempty"`
	Profiled *LevelRun `json:"profiled_run,omitempty"`
}

// ConcurrencyConfig is the keyed-lookup load through Trino.
type ConcurrencyConfig struct {
	Trino    string // Trino's base URL
	Keyspace string
	KVRows   int
	Levels   []int
	Duration time.Duration
	Seed     uint64
	TrinoPid int
	// ServerPid and NodePid are the sources' processes, as in Config.
	ServerPid, NodePid int
	Progress           func(format string, args ...any)
}

// keyedSQL is the concurrency runs' query: one row of kv by its key.
const keyedSQL = "SELECT k, v FROM %s WHERE k = '%s'"

// RunLevel runs one catalog at one level: random keys of kv, one row
// each (a query that returns another count is an error).
func (cfg ConcurrencyConfig) RunLevel(ctx context.Context, catalog string, clients int, d time.Duration) LevelRun {
	return combine(catalog, []levelPart{cfg.runPart(ctx, catalog, clients, d, 0)})
}

// levelPart is one stretch of a catalog's run at a level, with the CPU
// Trino and the source spent meanwhile (ms).
type levelPart struct {
	stats          LoadStats
	hist           *hdrhistogram.Histogram
	trinoMS, srcMS float64
}

// runPart runs one stretch; part picks the clients' key streams, so a
// catalog's n-th stretch reads the keys the other's n-th does.
func (cfg ConcurrencyConfig) runPart(ctx context.Context, catalog string, clients int, d time.Duration, part int) levelPart {
	c := &Client{Base: cfg.Trino, HTTP: loadHTTPClient(clients)}
	defer c.HTTP.CloseIdleConnections()
	table := catalog + "." + cfg.Keyspace + ".kv"
	pid := cfg.ServerPid
	if catalog == PeerCatalog {
		pid = cfg.NodePid
	}
	// Client c's keys come from its own stream, used only by its own
	// goroutine: the same keys in both catalogs and on a rerun.
	rngs := make([]*rand.Rand, clients)
	for i := range rngs {
		rngs[i] = rand.New(rand.NewPCG(cfg.Seed, uint64(part)<<32|uint64(i)))
	}
	trino0, src0 := ProcessCPU(cfg.TrinoPid), ProcessCPU(pid)
	st, h := load(ctx, clients, d, func(ctx context.Context, client int, _ uint64) error {
		key := testbed.KVKey(rngs[client].IntN(max(1, cfg.KVRows)))
		r, err := c.Rows(ctx, fmt.Sprintf(keyedSQL, table, key))
		if err != nil {
			return err
		}
		if len(r.Rows) != 1 {
			return fmt.Errorf("keyed lookup of %s through %s: %d rows, want 1", key, catalog, len(r.Rows))
		}
		return nil
	})
	p := levelPart{stats: st, hist: h, trinoMS: ms(ProcessCPU(cfg.TrinoPid) - trino0), srcMS: ms(ProcessCPU(pid) - src0)}
	if cfg.Progress != nil {
		cfg.Progress("lane-b: %d clients through %-9s %7.1f qps, p50 %s, p99 %s, %d errors\n",
			clients, catalog, st.QPS, fmtMS(st.P50MS), fmtMS(st.P99MS), st.Errors)
	}
	return p
}

// combine sums a catalog's stretches at one level into its run.
func combine(catalog string, parts []levelPart) LevelRun {
	stats := make([]LoadStats, len(parts))
	hists := make([]*hdrhistogram.Histogram, len(parts))
	var trinoMS, srcMS float64
	for i, p := range parts {
		stats[i], hists[i] = p.stats, p.hist
		trinoMS += p.trinoMS
		srcMS += p.srcMS
	}
	run := LevelRun{Catalog: catalog, LoadStats: mergeLoads(stats, hists)}
	if run.OK > 0 {
		run.TrinoCPUPerQueryMS = trinoMS / float64(run.OK)
		run.SourceCPUPerQueryMS = srcMS / float64(run.OK)
	}
	return run
}

// Run measures every level through both catalogs. Each catalog runs its
// Duration in two halves, in the order A B B A (A alternating from level
// to level): the machine's drift, and the warm-up the first run of a
// level gives Trino's code for the next, fall on both catalogs alike,
// where A B let whichever went first or second gain (in this
// benchmark's first record the same code measured 1.34x and 0.97x at 8
// clients).
func (cfg ConcurrencyConfig) Run(ctx context.Context) *Concurrency {
	out := &Concurrency{Duration: cfg.Duration.String(), SQL: keyedSQL, Clients: cfg.Levels}
	for i, n := range cfg.Levels {
		lv := Level{Clients: n}
		a, b := OursCatalog, PeerCatalog
		if i%2 != 0 {
			a, b = b, a
		}
		parts := map[string][]levelPart{}
		for _, cat := range []string{a, b, b, a} {
			parts[cat] = append(parts[cat], cfg.runPart(ctx, cat, n, cfg.Duration/2, len(parts[cat])))
		}
		lv.Ours = combine(OursCatalog, parts[OursCatalog])
		lv.Peer = combine(PeerCatalog, parts[PeerCatalog])
		if lv.Peer.QPS > 0 {
			lv.Ratio = lv.Ours.QPS / lv.Peer.QPS
		}
		out.Levels = append(out.Levels, lv)
	}
	return out
}

// loadHTTPClient keeps a connection per client alive (Go's default keeps
// two per host, so 32 clients would open and close connections all run).
func loadHTTPClient(clients int) *http.Client {
	return &http.Client{
		Timeout:   loadQueryTimeout,
		Transport: &http.Transport{MaxIdleConns: clients, MaxIdleConnsPerHost: clients, IdleConnTimeout: time.Minute},
	}
}

// loadQueryTimeout bounds one keyed lookup under load, its every page.
const loadQueryTimeout = 2 * time.Minute
