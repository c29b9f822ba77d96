package flightbench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/sstable-flight/sstable-flight/loadgen"
	"github.com/sstable-flight/sstable-flight/loadgen/testbed"
)

// Config is one Lane A run: a node holding the dataset, a server
// binary, and the load of each goal.
type Config struct {
	Server  testbed.ServerSpec
	CQLAddr string // the node, for the CQL arm
	Dataset testbed.Dataset
	Targets Targets // A5's load (clients, duration) too

	Step   time.Duration
	Warmup time.Duration
	// Ramp is A2's point ramp; A1 is its concurrency-1 step, which is
	// run first (added if the ramp lacks it).
	Ramp       []int
	Keys       int // keys sampled for point reads
	ScanSplits int
	ScanRamp   []int // A4
	Seed       uint64
	Direct     bool // A1/A2: commands straight to DoGet (one round trip)

	ProfileSeconds int    // CPU profile during A1 and A4; 0: none
	GoBin          string // for go tool pprof
	OutDir         string // where profiles go

	Out      io.Writer // the loadgen tables and progress notes
	Progress io.Writer // loadgen's progress line; nil: none
}

// Measurements is everything Lane A measured, the goals' input.
type Measurements struct {
	Cold     []ColdTouch            `json:"cold"`
	Point    ShapeSteps             `json:"point"`
	Scan     ShapeSteps             `json:"scan"`
	Overload *OverloadResult        `json:"overload"`
	Profiles map[string]*CPUProfile `json:"profiles"` // by goal: A1, A4
	Errors   []string               `json:"errors,omitempty"`
}

// ShapeSteps is one shape's ramp in both arms.
type ShapeSteps struct {
	Flight      []loadgen.Step `json:"flight"`
	CQL         []loadgen.Step `json:"cql"`
	SampledKeys int            `json:"sampled_keys,omitempty"`
}

// Run measures the goals in an order that keeps each one clean: A3
// first, on fresh server processes; then A1 and A2 (one point ramp), A4
// and last A5, whose overload must not disturb the others. A goal that
// fails is noted and the run goes on; a cancelled ctx ends it. The last
// server is stopped on every path.
func Run(ctx context.Context, cfg Config) (m *Measurements, err error) {
	m = &Measurements{Profiles: map[string]*CPUProfile{}}
	var srv *testbed.ServerProc
	defer func() {
		if srv != nil {
			if stopErr := srv.Stop(); stopErr != nil {
				m.Errors = append(m.Errors, stopErr.Error())
				err = errors.Join(err, stopErr)
			}
		}
	}()
	fail := func(goal string, e error) error {
		m.Errors = append(m.Errors, goal+": "+e.Error())
		fmt.Fprintf(cfg.Out, "lane-a: %s: %v\n", goal, e)
		return ctx.Err()
	}

	fmt.Fprintf(cfg.Out, "\n== A3 cold first touch\n")
	d := cfg.Dataset
	for _, t := range []struct {
		table string
		key   map[string]any
		want  int64
	}{
		{testbed.KVTable, map[string]any{"k": testbed.KVKey(d.KVRows / 2)}, 1},
		{testbed.TSTable, map[string]any{"series": testbed.TSSeries(d.TSPartitions / 2)}, int64(d.TSRowsPerPartition)},
	} {
		if srv != nil {
			stopErr := srv.Stop()
			srv = nil
			if stopErr != nil {
				return m, fail("A3", stopErr)
			}
		}
		if srv, err = testbed.StartServer(ctx, cfg.Server); err != nil {
			return m, errors.Join(err, fail("A3", err))
		}
		ct := cfg.touch(ctx, srv, t.table, t.key, t.want)
		m.Cold = append(m.Cold, ct)
		fmt.Fprintf(cfg.Out, "%s: pid %d, idle RSS %s, first query %s (plan %s + read %s), %d rows %s\n",
			ct.Table, ct.Pid, fmtMiB(ct.IdleRSSBytes), fmtMS(ct.TotalUS), fmtMS(ct.PlanUS), fmtMS(ct.ReadUS), ct.Rows, ct.Err)
		if ctx.Err() != nil {
			return m, ctx.Err()
		}
	}

	fmt.Fprintf(cfg.Out, "\n== A1 warm keyed read, A2 keyed throughput\n")
	point := cfg.loadConfig(srv, testbed.KVTable, loadgen.ShapePoint, pointRamp(cfg.Ramp))
	prof := cfg.profiler(ctx, srv, "A1", m, 0)
	point.BeforeStep = prof.beforeFlight
	rep, err := loadgen.Run(ctx, point)
	prof.wg.Wait()
	if rep != nil {
		m.Point = ShapeSteps{Flight: rep.Flight, CQL: rep.CQL}
		if rep.Sample != nil {
			m.Point.SampledKeys = len(rep.Sample.Keys)
		}
	}
	if err != nil {
		if err := fail("A1/A2", err); err != nil {
			return m, err
		}
	}

	fmt.Fprintf(cfg.Out, "\n== A4 scan feed rate\n")
	scan := cfg.loadConfig(srv, testbed.KVTable, loadgen.ShapeScan, cfg.ScanRamp)
	prof = cfg.profiler(ctx, srv, "A4", m, 0)
	scan.BeforeStep = prof.beforeFlight
	rep, err = loadgen.Run(ctx, scan)
	prof.wg.Wait()
	if rep != nil {
		m.Scan = ShapeSteps{Flight: rep.Flight, CQL: rep.CQL}
	}
	if err != nil {
		if err := fail("A4", err); err != nil {
			return m, err
		}
	}

	fmt.Fprintf(cfg.Out, "\n== A5 overload\n")
	if m.Overload, err = cfg.overload(ctx, srv); err != nil {
		if err := fail("A5", err); err != nil {
			return m, err
		}
	}
	if len(m.Errors) > 0 {
		return m, fmt.Errorf("run lane a: %d goal(s) failed to measure", len(m.Errors))
	}
	return m, nil
}

// touch is A3 on one fresh server: its idle RSS, then the first query.
func (cfg *Config) touch(ctx context.Context, srv *testbed.ServerProc, table string, key map[string]any, want int64) ColdTouch {
	rss, err := srv.Metrics(ctx, testbed.MetricRSS)
	ct, touchErr := coldTouch(ctx, srv.Addr, cfg.Dataset.Keyspace, table, key, want)
	ct.Pid, ct.IdleRSSBytes = srv.Pid, int64(rss[testbed.MetricRSS])
	if err = errors.Join(err, touchErr); err != nil {
		ct.Err = err.Error()
	}
	return ct
}

// loadConfig is loadgen's configuration of one goal's ramp.
func (cfg *Config) loadConfig(srv *testbed.ServerProc, table, shape string, ramp []int) loadgen.Config {
	return loadgen.Config{
		Addr: srv.Addr, Keyspace: cfg.Dataset.Keyspace, Table: table, Shape: shape,
		Ramp: ramp, Step: cfg.Step, Warmup: cfg.Warmup, Seed: cfg.Seed,
		Keys: cfg.Keys, ScanSplits: cfg.ScanSplits, Direct: cfg.Direct,
		MetricsURL: srv.MetricsURL(), CompareCQL: cfg.CQLAddr,
		Out: cfg.Out, Progress: cfg.Progress,
	}
}

// pointRamp puts concurrency 1 first: it is A1's step.
func pointRamp(ramp []int) []int {
	out := []int{1}
	for _, c := range ramp {
		if !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out
}

// overload is A5: many concurrent scans for a bounded time, then whether
// the same process is still there and serving.
func (cfg *Config) overload(ctx context.Context, srv *testbed.ServerProc) (*OverloadResult, error) {
	o := &OverloadResult{PidBefore: srv.Pid}
	before, err := srv.Metrics(ctx, testbed.MetricStarted)
	if err != nil {
		return nil, err
	}
	lc := cfg.loadConfig(srv, testbed.KVTable, loadgen.ShapeScan, []int{cfg.Targets.OverloadClients})
	lc.Step, lc.Warmup, lc.CompareCQL = cfg.Targets.OverloadDuration, 0, ""
	rep, runErr := loadgen.Run(ctx, lc)
	if rep != nil && len(rep.Flight) > 0 {
		o.Step = rep.Flight[0]
	}
	if srv.Alive() {
		o.PidAfter = srv.Pid
		after, err := srv.Metrics(ctx, testbed.MetricStarted)
		o.SameProcess = err == nil && after[testbed.MetricStarted] == before[testbed.MetricStarted]
		o.ServingAfter, _ = srv.Serving(ctx)
		o.PeakRSSHWM = srv.PeakRSS()
	}
	return o, runErr
}

// profiler takes one CPU profile of the server during a chosen step of a
// goal's Flight arm.
type profiler struct {
	cfg  *Config
	ctx  context.Context
	srv  *testbed.ServerProc
	goal string
	step int
	m    *Measurements
	wg   sync.WaitGroup
}

func (cfg *Config) profiler(ctx context.Context, srv *testbed.ServerProc, goal string, m *Measurements, step int) *profiler {
	return &profiler{cfg: cfg, ctx: ctx, srv: srv, goal: goal, step: step, m: m}
}

// beforeFlight starts the profile when the chosen step of the Flight arm
// starts (a loadgen.Config.BeforeStep): it waits out the warm-up and records for
// the profile length, at most the step's. The step's own figures include
// the profiler's small overhead.
func (p *profiler) beforeFlight(arm string, index int) {
	cfg := p.cfg
	if arm != "flight" || index != p.step || cfg.ProfileSeconds <= 0 {
		return
	}
	secs := min(cfg.ProfileSeconds, max(1, int(cfg.Step/time.Second)))
	prof := &CPUProfile{Seconds: secs, Path: filepath.Join(cfg.OutDir, "cpu-"+p.goal+".pb.gz")}
	p.m.Profiles[p.goal] = prof
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		select {
		case <-time.After(cfg.Warmup):
		case <-p.ctx.Done():
			prof.Err = p.ctx.Err().Error()
			return
		}
		err := fetchProfile(p.ctx, p.srv.AdminAddr, secs, prof.Path)
		if err == nil {
			err = summarizeProfile(p.ctx, cfg.GoBin, cfg.Server.Bin, prof)
		}
		if err != nil {
			prof.Err = err.Error()
		}
	}()
}
