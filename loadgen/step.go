package loadgen

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Step is the figures of one step of a ramp, for one arm.
type Step struct {
	Arm         string    `json:"arm"` // flight or cql
	Keyspace    string    `json:"keyspace"`
	Table       string    `json:"table"`
	Shape       string    `json:"shape"`
	Mode        string    `json:"mode"`        // closed or open
	Concurrency int       `json:"concurrency"` // workers (closed) or most ops in flight (open)
	TargetRate  float64   `json:"target_rate"` // open loop: ops/s asked for; 0 in closed loop
	Started     time.Time `json:"started"`     // start of the measured window, after warm-up
	// Seconds is the measured window: from its start to the end of the
	// last op started in it (at least the step length), so ops/s and
	// rows/s never count an op's work outside the time divided by.
	Seconds float64 `json:"seconds"`

	Ops          int64            `json:"ops"`         // ops that read everything
	Errors       int64            `json:"errors"`      // failed ops, Unavailable excepted
	Unavailable  int64            `json:"unavailable"` // ops the server shed
	ErrorsByCode map[string]int64 `json:"errors_by_code"`
	Rows         int64            `json:"rows"`
	Bytes        int64            `json:"bytes"`
	OpsPerSec    float64          `json:"ops_per_s"`
	RowsPerSec   float64          `json:"rows_per_s"`
	BytesPerSec  float64          `json:"bytes_per_s"`

	// Latency of successful ops, in µs: from the op's start (closed loop)
	// or its intended start (open loop).
	P50US   int64   `json:"p50_us"`
	P90US   int64   `json:"p90_us"`
	P99US   int64   `json:"p99_us"`
	P999US  int64   `json:"p999_us"`
	MaxUS   int64   `json:"max_us"`
	MeanUS  float64 `json:"mean_us"`
	Clamped int64   `json:"clamped_60s"` // latencies over 60 s, recorded as 60 s

	// Server figures from its /metrics; null when not scraped (no
	// --metrics, the CQL arm, or a failed scrape).
	ServerRSSBytes   *int64   `json:"server_rss_bytes"` // largest RSS seen during the step
	ServerCPUSeconds *float64 `json:"server_cpu_seconds"`
	RowsPerCPUSecond *float64 `json:"rows_per_cpu_second"`
	ServerSheds      *int64   `json:"server_sheds"`
}

// stepRun is one step in progress.
type stepRun struct {
	cfg    *Config
	tg     Target
	sc     *scraper
	conc   int
	base   uint64 // op numbers of this step start here
	start  time.Time
	mStart time.Time // measured window [mStart, mEnd)
	mEnd   time.Time
	recs   []*recorder
	lost   *recorder // open loop: intended ops never started before the drain ended

	live struct{ ok, errs, unavail atomic.Int64 }
}

// stepBase keeps each step's op numbers apart, and the same in both
// arms: step i of either arm draws its ops from the same sequence.
func stepBase(index int) uint64 { return uint64(index+1) << 40 }

// runStep runs warm-up then one measured step at concurrency conc, lets
// the ops started in it finish (for at most cfg.Drain), and returns the
// step's figures.
func runStep(ctx context.Context, cfg *Config, tg Target, sc *scraper, index, conc int) Step {
	opCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	r := &stepRun{cfg: cfg, tg: tg, sc: sc, conc: conc, base: stepBase(index), lost: newRecorder()}
	r.start = time.Now()
	r.mStart = r.start.Add(cfg.Warmup)
	r.mEnd = r.mStart.Add(cfg.Step)

	mon := r.monitor(ctx)
	var wg sync.WaitGroup
	if cfg.Rate > 0 {
		r.openLoop(opCtx, &wg)
	} else {
		r.closedLoop(opCtx, &wg)
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	drain := time.NewTimer(time.Until(r.mEnd.Add(cfg.Drain)))
	defer drain.Stop()
	select {
	case <-done:
	case <-drain.C:
		// Ops still running are cut; they count as Canceled errors.
		cancel()
		<-done
	}
	return r.result(mon.stop())
}

func (r *stepRun) measured(t time.Time) bool { return !t.Before(r.mStart) && t.Before(r.mEnd) }

func (r *stepRun) note(err error) {
	switch {
	case err == nil:
		r.live.ok.Add(1)
	case codeOf(err) == Unavailable:
		r.live.unavail.Add(1)
	default:
		r.live.errs.Add(1)
	}
}

// closedLoop: conc workers, each starting its next op when the last ends.
// Latency counts from the op's actual start; ops started during warm-up
// are run but not recorded.
func (r *stepRun) closedLoop(ctx context.Context, wg *sync.WaitGroup) {
	var next atomic.Uint64
	r.workers(wg, func(rec *recorder) {
		for {
			t0 := time.Now()
			if !t0.Before(r.mEnd) || ctx.Err() != nil {
				return
			}
			r.do(ctx, rec, r.base+next.Add(1)-1, t0)
		}
	})
}

// openLoop: ops are due at fixed intervals from the step's start, and
// conc workers take them in turn. Latency counts from when an op was due,
// not when a worker got to it, so a server that falls behind shows its
// queueing in the percentiles instead of quietly lowering the rate
// (coordinated omission).
func (r *stepRun) openLoop(ctx context.Context, wg *sync.WaitGroup) {
	type job struct {
		op  uint64
		due time.Time
	}
	jobs := make(chan job)
	interval := float64(time.Second) / r.cfg.Rate
	due := func(i uint64) time.Time { return r.start.Add(time.Duration(float64(i) * interval)) }
	go func() {
		defer close(jobs)
		timer := time.NewTimer(0)
		defer timer.Stop()
		for i := uint64(0); ; i++ {
			at := due(i)
			if !at.Before(r.mEnd) {
				return
			}
			if d := time.Until(at); d > 0 {
				timer.Reset(d)
				select {
				case <-timer.C:
				case <-ctx.Done():
				}
			}
			select {
			case jobs <- job{r.base + i, at}:
				continue
			case <-ctx.Done():
			}
			// Cut by the drain or the caller: the ops of the window that
			// were due but never started are failures, not silence.
			for ; due(i).Before(r.mEnd); i++ {
				if r.measured(due(i)) {
					r.lost.record(0, Result{}, ctx.Err(), time.Now())
				}
			}
			return
		}
	}()
	r.workers(wg, func(rec *recorder) {
		for j := range jobs {
			r.do(ctx, rec, j.op, j.due)
		}
	})
}

// workers starts the step's conc workers, each running work with a
// recorder of its own (merged in result), so that recording takes no
// lock.
func (r *stepRun) workers(wg *sync.WaitGroup, work func(rec *recorder)) {
	for range r.conc {
		rec := newRecorder()
		r.recs = append(r.recs, rec)
		wg.Add(1)
		go func() {
			defer wg.Done()
			work(rec)
		}()
	}
}

// do runs op and, when its latency clock (from: when it started, or was
// due) lies in the measured window, counts and records it: latency from
// from to the op's end.
func (r *stepRun) do(ctx context.Context, rec *recorder, op uint64, from time.Time) {
	res, err := r.tg.Do(ctx, op)
	end := time.Now()
	if r.measured(from) {
		if !res.Since.IsZero() {
			from = res.Since
		}
		r.note(err)
		rec.record(end.Sub(from), res, err, end)
	}
}

// result merges the workers' recorders into the step's figures.
func (r *stepRun) result(srv serverFigures) Step {
	all := newRecorder()
	for _, rec := range r.recs {
		all.merge(rec)
	}
	all.merge(r.lost)
	s := Step{
		Arm: r.tg.Arm(), Keyspace: r.cfg.Keyspace, Table: r.cfg.Table, Shape: r.cfg.Shape,
		Mode: "closed", Concurrency: r.conc, Started: r.mStart,
		Ops: all.ok, Rows: all.res.Rows, Bytes: all.res.Bytes, ErrorsByCode: all.errs, Clamped: all.clamped,
	}
	if r.cfg.Rate > 0 {
		s.Mode, s.TargetRate = "open", r.cfg.Rate
	}
	for code, n := range all.errs {
		if code == Unavailable {
			s.Unavailable += n
		} else {
			s.Errors += n
		}
	}
	window := r.cfg.Step
	if d := all.lastEnd.Sub(r.mStart); d > window {
		window = d
	}
	s.Seconds = window.Seconds()
	s.OpsPerSec = float64(s.Ops) / s.Seconds
	s.RowsPerSec = float64(s.Rows) / s.Seconds
	s.BytesPerSec = float64(s.Bytes) / s.Seconds
	h := all.hist
	s.P50US, s.P90US, s.P99US, s.P999US = h.ValueAtQuantile(50), h.ValueAtQuantile(90), h.ValueAtQuantile(99), h.ValueAtQuantile(99.9)
	s.MaxUS, s.MeanUS = h.Max(), h.Mean()
	if srv.ok {
		rss, cpu, sheds := int64(srv.maxRSS), srv.after.CPU-srv.before.CPU, int64(srv.after.Sheds-srv.before.Sheds)
		s.ServerRSSBytes, s.ServerCPUSeconds, s.ServerSheds = &rss, &cpu, &sheds
		if cpu > 0 {
			perCPU := float64(s.Rows) / cpu
			s.RowsPerCPUSecond = &perCPU
		}
	}
	return s
}

// serverFigures is what the monitor scraped over the measured window.
type serverFigures struct {
	ok            bool
	before, after serverSample
	maxRSS        float64
}

type monitor struct {
	stopc chan struct{}
	done  chan serverFigures
}

// monitor scrapes the server at the start of the measured window, every
// second during it (RSS peaks, and the progress line) and once all its
// ops have ended.
func (r *stepRun) monitor(ctx context.Context) *monitor {
	m := &monitor{stopc: make(chan struct{}), done: make(chan serverFigures, 1)}
	go func() {
		var f serverFigures
		var scrapeErr error
		sample := func() (serverSample, bool) {
			if r.sc == nil || scrapeErr != nil {
				return serverSample{}, false
			}
			s, err := r.sc.scrape(ctx)
			if err != nil {
				// One failure voids the step's server figures: a CPU
				// delta over part of the step would mislead.
				scrapeErr = err
				if ctx.Err() == nil { // not worth a warning when the run is being stopped
					r.sc.warn(r.cfg.Progress, err)
				}
				return serverSample{}, false
			}
			f.maxRSS = max(f.maxRSS, s.RSS)
			return s, true
		}
		p := r.progress()
		defer p.clear()
		wait := time.NewTimer(time.Until(r.mStart))
		select {
		case <-wait.C:
		case <-m.stopc:
			wait.Stop()
			m.done <- f
			return
		}
		f.before, f.ok = sample()
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-tick.C:
				sample()
				p.show()
			case <-m.stopc:
				var ok bool
				f.after, ok = sample()
				f.ok = f.ok && ok && scrapeErr == nil
				m.done <- f
				return
			}
		}
	}()
	return m
}

func (m *monitor) stop() serverFigures {
	close(m.stopc)
	return <-m.done
}

// progressLine rewrites one stderr line during steps long enough to
// wonder about (2 s and more, warm-up included).
type progressLine struct {
	r     *stepRun
	w     io.Writer
	width int
}

func (r *stepRun) progress() *progressLine {
	if r.cfg.Progress == nil || r.cfg.Warmup+r.cfg.Step < 2*time.Second {
		return &progressLine{}
	}
	return &progressLine{r: r, w: r.cfg.Progress}
}

func (p *progressLine) show() {
	if p.w == nil {
		return
	}
	r := p.r
	el := time.Since(r.start)
	total := r.cfg.Warmup + r.cfg.Step
	phase := ""
	if el > total {
		phase = " draining"
	}
	line := fmt.Sprintf("\r%s %s c=%d  %.0fs/%.0fs%s  ok %d  err %d  unavail %d",
		r.tg.Arm(), r.cfg.Shape, r.conc, el.Seconds(), total.Seconds(), phase, r.live.ok.Load(), r.live.errs.Load(), r.live.unavail.Load())
	pad := max(0, p.width-len(line))
	p.width = len(line)
	fmt.Fprint(p.w, line+strings.Repeat(" ", pad))
}

func (p *progressLine) clear() {
	if p.w != nil && p.width > 0 {
		fmt.Fprint(p.w, "\r"+strings.Repeat(" ", p.width)+"\r")
	}
}
