package loadgen

import (
	"context"
	"fmt"
	"time"
)

// Report is a whole run: the table, the key sample, and each arm's steps
// in ramp order.
type Report struct {
	Schema *TableSchema
	Sample *Sample // nil for shapes that read no keys
	Flight []Step
	CQL    []Step // empty without CompareCQL
	// Served is what each Flight location served over the whole run
	// (key sampling included), in location order: on a ring plan, the
	// rows each server read.
	Served []LocationServed
}

// Run samples keys when the shape needs them, runs the ramp against the
// Flight server and then, with CompareCQL, the same ramp over the same
// ops through CQL, writing each step as it ends. A cancelled ctx ends the
// run after the step in progress, with what was measured and ctx's error.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if err := cfg.resolve(); err != nil {
		return nil, err
	}
	fc, err := DialFlight(&cfg)
	if err != nil {
		return nil, err
	}
	defer fc.Close()
	locs := NewLocations(&cfg, fc)
	defer locs.Close()
	rep := &Report{}
	if rep.Schema, err = loadSchema(ctx, fc, cfg.Keyspace, cfg.Table); err != nil {
		return nil, err
	}
	p := &plan{seed: cfg.Seed, k: cfg.K, fraction: cfg.RangeFraction}
	keys, clustering := needsKeys(cfg.Shape), cfg.Shape == ShapeSlice
	for _, m := range cfg.Mix {
		keys = keys || needsKeys(m.Shape)
		clustering = clustering || m.Shape == ShapeSlice
	}
	if keys {
		t0 := time.Now()
		if rep.Sample, err = sampleKeys(ctx, locs, rep.Schema, cfg.Keys, cfg.ScanSplits, cfg.Seed, clustering); err != nil {
			return nil, err
		}
		p.keys = rep.Sample.Keys
		fmt.Fprintf(cfg.Out, "sampled %d of %d partitions of %s.%s (%d rows scanned, %d keys skipped) in %.1fs\n",
			len(p.keys), rep.Sample.Partitions, cfg.Keyspace, cfg.Table, rep.Sample.Rows, rep.Sample.Skipped, time.Since(t0).Seconds())
	}
	out := newReporter(&cfg)
	sc := newScraper(cfg.MetricsURL, cfg.Token)
	defer sc.close()
	if cfg.Shape == ShapeFresh {
		return rep, runFresh(ctx, &cfg, rep, locs, sc, out)
	}
	ft, err := armTarget("flight", &cfg, p, func(c *Config) (Target, error) { return newFlightTarget(locs, rep.Schema, c, p) })
	if err != nil {
		return nil, err
	}
	rep.Flight, err = runRamp(ctx, &cfg, ft, sc, out)
	rep.Served = locs.Served()
	out.served(rep.Served)
	if err != nil {
		return rep, err
	}
	if cfg.CompareCQL == "" {
		return rep, nil
	}
	s, err := newCQLSession(&cfg)
	if err != nil {
		return rep, err
	}
	defer s.Close()
	ct, err := armTarget("cql", &cfg, p, func(c *Config) (Target, error) { return newCQLTarget(s, rep.Schema, c, p) })
	if err != nil {
		return rep, err
	}
	// No server figures for the CQL arm: --metrics is the Flight server's.
	rep.CQL, err = runRamp(ctx, &cfg, ct, nil, out)
	out.ratios(rep.Flight, rep.CQL)
	return rep, err
}

// runFresh runs the freshness shape's ramp: writes through CQL, reads
// through Flight, one arm (its steps are Report.Flight).
func runFresh(ctx context.Context, cfg *Config, rep *Report, locs *Locations, sc *scraper, out *reporter) error {
	s, err := newCQLSession(cfg)
	if err != nil {
		return err
	}
	defer s.Close()
	t, err := newFreshTarget(s, locs, rep.Schema, cfg)
	if err != nil {
		return err
	}
	rep.Flight, err = runRamp(ctx, cfg, t, sc, out)
	rep.Served = locs.Served()
	out.served(rep.Served)
	return err
}

// armTarget is one arm's target: of the configured shape, or a mix of
// one target per shape of the mix.
func armTarget(arm string, cfg *Config, p *plan, build func(*Config) (Target, error)) (Target, error) {
	if cfg.Shape != ShapeMix {
		return build(cfg)
	}
	return newMixTarget(arm, p, cfg.Mix, func(shape string) (Target, error) {
		c := *cfg
		c.Shape = shape
		return build(&c)
	})
}

// runRamp runs every step of the ramp against one target.
func runRamp(ctx context.Context, cfg *Config, tg Target, sc *scraper, out *reporter) ([]Step, error) {
	out.header(tg.Arm())
	var steps []Step
	for i, conc := range cfg.Ramp {
		if err := ctx.Err(); err != nil {
			return steps, fmt.Errorf("run %s ramp: %w", tg.Arm(), err)
		}
		if cfg.BeforeStep != nil {
			cfg.BeforeStep(tg.Arm(), i)
		}
		s := runStep(ctx, cfg, tg, sc, i, conc)
		steps = append(steps, s)
		if err := out.step(s); err != nil {
			return steps, err
		}
	}
	if err := ctx.Err(); err != nil {
		return steps, fmt.Errorf("run %s ramp: %w", tg.Arm(), err)
	}
	return steps, nil
}
