package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/sstable-flight/sstable-flight/loadgen"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "flight-loadgen:", err)
		os.Exit(1)
	}
}

func run() error {
	var cfg loadgen.Config
	flag.StringVar(&cfg.Addr, "addr", "127.0.0.1:8815", "Flight server host:port")
	table := flag.String("table", "", "keyspace.table to read (required)")
	flag.StringVar(&cfg.Shape, "shape", loadgen.ShapePoint, "op shape: "+strings.Join(loadgen.Shapes, ", "))
	mix := flag.String("mix", "", "weighted shapes of --shape mix, e.g. point:80,slice:15,scan:5")
	ramp := flag.String("ramp", "1,4", "concurrency of each step (open loop: most ops in flight)")
	flag.DurationVar(&cfg.Step, "step", loadgen.DefaultStep, "measured time per step")
	flag.DurationVar(&cfg.Warmup, "warmup", loadgen.DefaultWarmup, "unrecorded run before each step")
	flag.Float64Var(&cfg.Rate, "rate", 0, "open loop: ops/s, latency from each op's intended start (0: closed loop)")
	flag.DurationVar(&cfg.Drain, "drain", 0, "how long ops started in a step may run past it before they are cancelled (0: 30s)")
	flag.Uint64Var(&cfg.Seed, "seed", 1, "seed of the key sample, key choice and token ranges")
	flag.IntVar(&cfg.Keys, "keys", 10_000, "partition keys to sample for point and in")
	flag.IntVar(&cfg.K, "k", 10, "keys per op (in), rows per op (limit)")
	flag.IntVar(&cfg.ScanSplits, "scan-splits", 4, "endpoints per scan op, read concurrently (also used to sample keys)")
	flag.IntVar(&cfg.RangeFraction, "range-fraction", 64, "a range op reads 1/N of the token ring")
	flag.BoolVar(&cfg.Direct, "direct", false, "point, in, slice and limit ops send their command straight to DoGet (one round trip) instead of GetFlightInfo then DoGet")
	flag.IntVar(&cfg.Fanout, "fanout", 0, "most concurrent DoGets within one op (0: every endpoint at once)")
	flag.StringVar(&cfg.MetricsURL, "metrics", "http://127.0.0.1:9102/metrics", "the server's Prometheus endpoint for its RSS and CPU (empty: none)")
	flag.StringVar(&cfg.CAFile, "ca-file", "", "PEM CA of the servers' certificates: dial --addr and grpc+tls locations with TLS verified against it")
	flag.StringVar(&cfg.Token, "token", "", "bearer token for the Flight server (default: env SSTF_AUTH_TOKEN)")
	flag.StringVar(&cfg.CompareCQL, "compare-cql", "", "Cassandra host:port: run the same ops through CQL and print ratios (freshness: the node written to)")
	flag.StringVar(&cfg.CQLUser, "cql-user", "", "CQL user for --compare-cql (password from env SSTF_CASSANDRA_PASSWORD)")
	flag.IntVar(&cfg.CQLPageSize, "cql-page-size", 5000, "CQL page size")
	flag.DurationVar(&cfg.FreshTimeout, "fresh-timeout", 30*time.Second, "freshness: how long an op waits for its row through Flight")
	flag.DurationVar(&cfg.FreshPoll, "fresh-poll", 10*time.Millisecond, "freshness: how often the rows ops wait for are read")
	jsonl := flag.String("out-jsonl", "", "write one JSON object per step to this file")
	csvPath := flag.String("out-csv", "", "write one CSV row per step to this file")
	htmlPath := flag.String("out-html", "", "write an HTML report (latency and throughput charts over the ramp, every step) to this file")
	quiet := flag.Bool("quiet", false, "no progress line on stderr")
	flag.Parse()
	if flag.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", flag.Args())
	}

	var err error
	if *table == "" {
		return errors.New("--table keyspace.table is required")
	}
	if cfg.Keyspace, cfg.Table, err = loadgen.ParseTable(*table); err != nil {
		return err
	}
	if cfg.Ramp, err = loadgen.ParseRamp(*ramp); err != nil {
		return err
	}
	if *mix != "" {
		if cfg.Mix, err = loadgen.ParseMix(*mix); err != nil {
			return err
		}
		if cfg.Shape == loadgen.ShapePoint && !isSet("shape") {
			cfg.Shape = loadgen.ShapeMix // --mix alone means a mix
		}
	}
	if cfg.Token == "" {
		cfg.Token = os.Getenv("SSTF_AUTH_TOKEN")
	}
	cfg.CQLPassword = os.Getenv("SSTF_CASSANDRA_PASSWORD")
	cfg.Out = os.Stdout
	if !*quiet {
		cfg.Progress = os.Stderr
	}
	var files []*os.File
	for _, o := range []struct {
		path string
		dst  *io.Writer
	}{{*jsonl, &cfg.JSONL}, {*csvPath, &cfg.CSV}} {
		if o.path == "" {
			continue
		}
		f, err := os.Create(o.path)
		if err != nil {
			return fmt.Errorf("create output: %w", err)
		}
		defer f.Close() // after an error; the normal path closes below
		files = append(files, f)
		*o.dst = f
	}

	// Ctrl-C ends the run after the step in progress, with its results.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	rep, runErr := loadgen.Run(ctx, cfg)
	if *htmlPath != "" && rep != nil {
		if err := writeHTML(*htmlPath, rep, fmt.Sprintf("flight-loadgen %s %s.%s", cfg.Shape, cfg.Keyspace, cfg.Table)); err != nil && runErr == nil {
			runErr = err
		}
	}
	for _, f := range files {
		if err := f.Close(); err != nil && runErr == nil {
			runErr = fmt.Errorf("close output: %w", err)
		}
	}
	return runErr
}

func writeHTML(path string, rep *loadgen.Report, title string) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("create HTML report: %w", err)
	}
	if err := loadgen.WriteHTML(f, rep, title); err != nil {
		f.Close()
		return fmt.Errorf("write HTML report: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write HTML report: %w", err)
	}
	return nil
}

// isSet reports whether a flag was given on the command line.
func isSet(name string) bool {
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
