package trinobench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/sstable-flight/sstable-flight/loadgen"
	"github.com/sstable-flight/sstable-flight/loadgen/testbed"
)

// Query is one of Lane B's statements; SQL holds %s where the
// catalog-qualified table goes, so both arms run the same text.
type Query struct {
	Table string `json:"table"`
	Name  string `json:"name"`
	SQL   string `json:"sql"`
	Scan  bool   `json:"scan"`     // a full scan (the 5× target) rather than a point query
	Limit bool   `json:"limit_10"` // rows are compared by count only: which ten rows is not defined
	// Join is the dimension join (a 100-key table of Trino's memory
	// catalog joined to kv): run once per round, as a scan is (through
	// cassandra it scans kv), and its QueryInfo read for the
	// dynamic-filter evidence.
	Join bool `json:"join,omitempty"`
}

// Queries are the benchmark's set over the testbed's two tables: count(*),
// sum(length(v)), a GROUP BY over the time series, a keyed lookup and
// LIMIT 10. ts has no text v, so its sum(length) reads tag.
func Queries(d testbed.Dataset) []Query {
	kvKey := testbed.KVKey(d.KVRows / 2)
	series := testbed.TSSeries(d.TSPartitions / 2)
	return []Query{
		{Table: testbed.KVTable, Name: "count(*)", SQL: "SELECT count(*) FROM %s", Scan: true},
		{Table: testbed.KVTable, Name: "sum(length(v))", SQL: "SELECT sum(length(v)) FROM %s", Scan: true},
		{Table: testbed.KVTable, Name: "keyed lookup", SQL: "SELECT k, v FROM %s WHERE k = '" + kvKey + "'"},
		{Table: testbed.KVTable, Name: "LIMIT 10", SQL: "SELECT k, v FROM %s LIMIT 10", Limit: true},
		{Table: testbed.TSTable, Name: "count(*)", SQL: "SELECT count(*) FROM %s", Scan: true},
		{Table: testbed.TSTable, Name: "sum(length(tag))", SQL: "SELECT sum(length(tag)) FROM %s", Scan: true},
		{Table: testbed.TSTable, Name: "GROUP BY tag", SQL: "SELECT tag, count(*), min(v), max(v), max(at) FROM %s GROUP BY tag ORDER BY tag", Scan: true},
		{Table: testbed.TSTable, Name: "keyed lookup", SQL: "SELECT series, at, v, tag FROM %s WHERE series = '" + series + "' ORDER BY at"},
		{Table: testbed.TSTable, Name: "LIMIT 10", SQL: "SELECT series, at, v, tag FROM %s LIMIT 10", Limit: true},
	}
}

// Config is one Lane B run against a running Trino.
type Config struct {
	Trino    *Client
	Keyspace string
	Queries  []Query
	Warmups  int // unrecorded runs of each query through each catalog
	Runs     int // recorded runs, the two catalogs alternating
	// PointRepeat runs each point query (not Scan) this many times per
	// round and catalog; every run is recorded.
	PointRepeat int
	ServerPid   int // sstable-flight: its CPU is our arm's source CPU
	NodePid     int // Cassandra: the peer arm's source CPU
	// ServerMetrics is sstable-flight's /metrics URL: the join's server
	// time through ours is read from it ("" for none).
	ServerMetrics string
	Progress      io.Writer
}

// Arm is one query through one catalog.
type Arm struct {
	Catalog string    `json:"catalog"`
	WallMS  []float64 `json:"wall_ms"` // each recorded run, in order
	P50MS   float64   `json:"p50_ms"`
	// Trino's figures of the median run.
	CPUMS        float64 `json:"trino_cpu_ms"`
	InputRows    int64   `json:"input_rows"`
	InputBytes   int64   `json:"input_bytes"`
	ReadTimeMS   float64 `json:"page_source_read_ms"` // physicalInputReadTime: the page sources' own account
	ScanCPUMS    float64 `json:"scan_operator_cpu_ms"`
	PlanningMS   float64 `json:"analysis_planning_ms"` // Trino's analysis and planning: metadata, statistics, pushdown
	CPUPerRowNS  float64 `json:"trino_cpu_per_row_ns"` // Trino CPU / input rows
	ScanPerRowNS float64 `json:"scan_cpu_per_row_ns"`  // scan operators' CPU / input rows
	Splits       int     `json:"splits"`
	SourceCPUMS  float64 `json:"source_cpu_ms"` // sstable-flight's or Cassandra's process CPU in the median run
	Rows         int     `json:"result_rows"`
	// ServerMS is sstable-flight's request time (the growth of
	// sstf_request_seconds_sum) in the median run: ours' join only, the
	// server's own share of it.
	ServerMS float64 `json:"server_ms,omitempty"`
	// Join is the dynamic-filter evidence of the median run (join only).
	Join *JoinEvidence `json:"join,omitempty"`
	// Info is the median run's QueryInfo (join only), written beside the
	// report.
	Info json.RawMessage `json:"-"`
}

// Result is one query through both catalogs.
type Result struct {
	Query Query   `json:"query"`
	Ours  Arm     `json:"ours"`
	Peer  Arm     `json:"peer"`
	Ratio float64 `json:"ratio"` // peer p50 / ours p50: above 1, ours is faster
	Match bool    `json:"rows_match"`
	Note  string  `json:"note,omitempty"`
}

// Run measures every query: a round of warm-ups through both catalogs,
// then Runs recorded rounds, each running every query once through each
// catalog (a point query PointRepeat times: its tens of milliseconds
// spread by as much from run to run on a shared machine, so five samples
// cannot tell two catalogs a few milliseconds apart), ours and the peer
// alternating which goes first. Load that comes
// and goes on a shared machine so falls on both catalogs and on every
// query alike: the count(*) against sum(length(v)) target compares two
// queries, and a record that ran all of one before the other measured the
// machine's drift (a first run's count(*) p50 rose from 1.0 s to 2.9 s over
// its five runs while its server CPU was half sum's).
func Run(ctx context.Context, cfg Config) ([]Result, error) {
	var errs []error
	failed := make([]bool, len(cfg.Queries))
	runs := make([]map[string][]run, len(cfg.Queries))
	for i := range runs {
		runs[i] = map[string][]run{}
	}
	for round := -cfg.Warmups; round < cfg.Runs; round++ {
		for i, q := range cfg.Queries {
			if failed[i] {
				continue
			}
			reps := 1
			if !q.Scan && !q.Join {
				reps = max(1, cfg.PointRepeat)
			}
			for rep := 0; rep < reps && !failed[i]; rep++ {
				order := []string{OursCatalog, PeerCatalog}
				if (round+rep)%2 != 0 {
					order = []string{PeerCatalog, OursCatalog}
				}
				for _, c := range order {
					r, err := cfg.once(ctx, q, c)
					if err != nil {
						what := "warm-up"
						if round >= 0 {
							what = fmt.Sprintf("run %d", round+1)
						}
						errs = append(errs, fmt.Errorf("%s %s %s through %s: %w", q.Table, q.Name, what, c, err))
						failed[i] = true
						if ctx.Err() != nil {
							return nil, errors.Join(errs...)
						}
						break
					}
					if round >= 0 {
						runs[i][c] = append(runs[i][c], r)
					}
				}
			}
		}
		if round >= 0 {
			fmt.Fprintf(cfg.Progress, "lane-b: round %d of %d done\n", round+1, cfg.Runs)
		}
	}
	var out []Result
	for i, q := range cfg.Queries {
		if failed[i] {
			continue
		}
		r := result(q, runs[i][OursCatalog], runs[i][PeerCatalog])
		fmt.Fprintf(cfg.Progress, "lane-b: %s %-16s ours p50 %8.1f ms, cassandra p50 %8.1f ms, ratio %.2f×%s\n",
			q.Table, q.Name, r.Ours.P50MS, r.Peer.P50MS, r.Ratio, map[bool]string{true: "", false: " ROWS DIFFER"}[r.Match])
		out = append(out, r)
	}
	return out, errors.Join(errs...)
}

// Scan runs the full scans through one catalog n times each (for a
// profile).
func Scan(ctx context.Context, c *Client, catalog, keyspace string, qs []Query, n int) error {
	for _, q := range qs {
		if !q.Scan {
			continue
		}
		for range n {
			if _, err := c.Query(ctx, fmt.Sprintf(q.SQL, catalog+"."+keyspace+"."+q.Table)); err != nil {
				return err
			}
		}
	}
	return nil
}

type run struct {
	wall   time.Duration
	stats  QueryStats
	source time.Duration
	rows   [][]any
	info   json.RawMessage // the join's QueryInfo; nil for other queries
	server time.Duration   // sstable-flight's request time meanwhile (ours' join only)
}

// once runs q through one catalog, with the CPU its data source (the
// server or the node) spent meanwhile.
func (cfg *Config) once(ctx context.Context, q Query, cat string) (run, error) {
	pid := cfg.ServerPid
	if cat == PeerCatalog {
		pid = cfg.NodePid
	}
	sql := fmt.Sprintf(q.SQL, cat+"."+cfg.Keyspace+"."+q.Table)
	serving := q.Join && cat == OursCatalog && cfg.ServerMetrics != ""
	var served float64
	if serving {
		m, err := loadgen.ScrapeMetrics(ctx, cfg.ServerMetrics, metricRequestSum)
		if err != nil {
			return run{}, err
		}
		served = m[metricRequestSum]
	}
	before := ProcessCPU(pid)
	r, err := cfg.Trino.Query(ctx, sql)
	if err != nil {
		return run{}, err
	}
	out := run{wall: r.Wall, stats: r.Stats, source: ProcessCPU(pid) - before, rows: r.Rows}
	if q.Join {
		out.info = r.Info
	}
	if serving {
		m, err := loadgen.ScrapeMetrics(ctx, cfg.ServerMetrics, metricRequestSum)
		if err != nil {
			return run{}, err
		}
		out.server = time.Duration((m[metricRequestSum] - served) * float64(time.Second))
	}
	return out, nil
}

func result(q Query, ours, peer []run) Result {
	res := Result{Query: q, Ours: arm(OursCatalog, ours), Peer: arm(PeerCatalog, peer)}
	if res.Ours.P50MS > 0 {
		res.Ratio = res.Peer.P50MS / res.Ours.P50MS
	}
	res.Match, res.Note = sameRows(q, ours[0].rows, peer[0].rows)
	for _, a := range []*Arm{&res.Ours, &res.Peer} {
		if a.Info == nil {
			continue
		}
		ev, err := ParseJoinEvidence(a.Info, a.Catalog)
		if err != nil {
			res.Note = strings.TrimPrefix(res.Note+"; "+err.Error(), "; ")
			continue
		}
		a.Join = &ev
	}
	return res
}

func arm(cat string, runs []run) Arm {
	a := Arm{Catalog: cat}
	for _, r := range runs {
		a.WallMS = append(a.WallMS, ms(r.wall))
	}
	sorted := append([]run(nil), runs...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].wall < sorted[j].wall })
	m := sorted[(len(sorted)-1)/2]
	if len(sorted)%2 == 0 {
		a.P50MS = (ms(sorted[len(sorted)/2-1].wall) + ms(sorted[len(sorted)/2].wall)) / 2
	} else {
		a.P50MS = ms(m.wall)
	}
	s := m.stats
	a.CPUMS, a.InputRows, a.InputBytes = ms(s.CPU), s.InputRows, s.InputBytes
	a.ReadTimeMS, a.ScanCPUMS, a.Splits = ms(s.InputReadTime), ms(s.ScanCPU), s.Splits
	a.PlanningMS = ms(s.Planning)
	if s.InputRows > 0 {
		a.CPUPerRowNS = float64(s.CPU.Nanoseconds()) / float64(s.InputRows)
		a.ScanPerRowNS = float64(s.ScanCPU.Nanoseconds()) / float64(s.InputRows)
	}
	a.SourceCPUMS = ms(m.source)
	a.ServerMS = ms(m.server)
	a.Rows = len(m.rows)
	a.Info = m.info
	return a
}

func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

// sameRows compares the two arms' answers: value for value (as JSON, the
// protocol's own rendering), or by count for LIMIT 10.
func sameRows(q Query, ours, peer [][]any) (bool, string) {
	if q.Limit {
		if len(ours) != 10 || len(peer) != 10 {
			return false, fmt.Sprintf("LIMIT 10 returned %d rows through ours and %d through cassandra", len(ours), len(peer))
		}
		return true, ""
	}
	a, _ := json.Marshal(ours)
	b, _ := json.Marshal(peer)
	if string(a) != string(b) {
		return false, fmt.Sprintf("ours %s, cassandra %s", firstBytes(a, 200), firstBytes(b, 200))
	}
	return true, ""
}

// ProcessCPU is a process's user and system CPU so far (0 if unknown).
func ProcessCPU(pid int) time.Duration {
	if pid <= 0 {
		return 0
	}
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0
	}
	// The command name, in parentheses, may hold spaces: fields count
	// from after its closing parenthesis (utime and stime are fields 14
	// and 15 of the whole line, 12 and 13 after it).
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 13 {
		return 0
	}
	u, err1 := strconv.ParseInt(f[11], 10, 64)
	k, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0
	}
	// USER_HZ is 100 on Linux.
	return time.Duration(u+k) * 10 * time.Millisecond
}
