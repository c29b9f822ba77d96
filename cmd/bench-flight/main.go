package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/sstable-flight/sstable-flight/internal/testkit/cassandratest"
	"github.com/sstable-flight/sstable-flight/loadgen"
	"github.com/sstable-flight/sstable-flight/loadgen/flightbench"
	"github.com/sstable-flight/sstable-flight/loadgen/testbed"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "bench-flight:", err)
		os.Exit(1)
	}
}

func run() error {
	t := flightbench.DefaultTargets()
	d := testbed.Dataset{Keyspace: "lanea", ValueBytes: 100}
	var cfg flightbench.Config
	flag.IntVar(&d.KVRows, "kv-rows", 1_000_000, "rows of flightbench.kv (text key, 100-byte text value)")
	flag.IntVar(&d.TSPartitions, "ts-partitions", 100_000, "partitions of flightbench.ts")
	flag.IntVar(&d.TSRowsPerPartition, "ts-rows", 10, "rows per partition of flightbench.ts")
	reuse := flag.Bool("reuse", false, "keep lanea's tables when they already hold the expected rows")
	flag.DurationVar(&cfg.Step, "step", loadgen.DefaultStep, "measured time per step")
	flag.DurationVar(&cfg.Warmup, "warmup", loadgen.DefaultWarmup, "unrecorded run before each step")
	ramp := flag.String("ramp", "1,4,16,32", "A2's closed-loop point ramp (A1 is its concurrency-1 step, run first)")
	scanRamp := flag.String("scan-ramp", "1", "A4's concurrent scans per step")
	flag.IntVar(&cfg.ScanSplits, "scan-splits", 4, "endpoints per scan, read concurrently")
	flag.IntVar(&cfg.Keys, "keys", 10_000, "partition keys sampled for point reads")
	flag.Uint64Var(&cfg.Seed, "seed", 1, "seed of the key sample and key choice")
	flag.BoolVar(&cfg.Direct, "direct", true, "A1/A2 point reads send their command straight to DoGet (one round trip); false: GetFlightInfo then DoGet")
	flag.IntVar(&t.OverloadClients, "overload-clients", t.OverloadClients, "A5's concurrent scan clients")
	flag.DurationVar(&t.OverloadDuration, "overload-duration", t.OverloadDuration, "A5's step")
	flag.IntVar(&cfg.ProfileSeconds, "profile-seconds", 10, "server CPU profile during A1 and A4 (at most a step; 0: none)")
	flag.DurationVar(&t.KeyedP50, "target-p50", t.KeyedP50, "A1 target: warm keyed read p50")
	flag.DurationVar(&t.KeyedP99, "target-p99", t.KeyedP99, "A1 target: warm keyed read p99")
	flag.Float64Var(&t.KeyedQPSRatio, "target-qps-ratio", t.KeyedQPSRatio, "A2 target: best Flight ops/s over best CQL ops/s")
	flag.DurationVar(&t.FirstTouch, "target-first-touch", t.FirstTouch, "A3 target: first query of a table")
	idleMiB := flag.Int64("target-idle-rss-mib", t.IdleRSSBytes>>20, "A3 target: idle RSS right after start, MiB")
	flag.Float64Var(&t.ScanRowsPerCore, "target-scan-rows-per-core", t.ScanRowsPerCore, "A4 target: scan rows per server CPU second")
	flag.Float64Var(&t.ScanRatio, "target-scan-ratio", t.ScanRatio, "A4 target: Flight scan rows/s over CQL's")
	peakMiB := flag.Int64("target-overload-rss-mib", t.OverloadRSSBytes>>20, "A5 target: peak RSS during overload, MiB")
	out := flag.String("out", "build/lane-a", "directory of report.md, report.json, the server's log and profiles")
	updateDoc := flag.String("update-doc", "", "rewrite the Lane A section (between its markers) of this file, e.g. docs/PERFORMANCE.md")
	serverBin := flag.String("server-bin", "", "sstable-flight binary (default: built from ./cmd/sstable-flight into -out)")
	serverArgs := flag.String("server-args", "", "extra sstable-flight flags, space-separated (e.g. '--max-streams 8')")
	flag.StringVar(&cfg.GoBin, "go", "go", "the go command (server build, go tool pprof)")
	flag.Parse()
	if flag.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", flag.Args())
	}
	if d.KVRows < 1 || d.TSPartitions < 1 || d.TSRowsPerPartition < 1 {
		return errors.New("-kv-rows, -ts-partitions and -ts-rows must be at least 1")
	}
	var err error
	if cfg.Ramp, err = loadgen.ParseRamp(*ramp); err != nil {
		return err
	}
	if cfg.ScanRamp, err = loadgen.ParseRamp(*scanRamp); err != nil {
		return err
	}
	t.IdleRSSBytes, t.OverloadRSSBytes = *idleMiB<<20, *peakMiB<<20
	cfg.Targets = t

	// Ctrl-C ends the run after the step in progress; the server is
	// stopped and what was measured is reported.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	header := testbed.Machine(ctx, time.Now())
	header.Command = testbed.Command("bench-flight", "BENCH_FLIGHT_FLAGS", os.Args[1:])

	dir := os.Getenv(cassandratest.EnvDir)
	if dir == "" {
		return fmt.Errorf("no Cassandra node in the environment (%s): run `make bench-flight`, or eval `cassandra-harness env -dir DIR` first", cassandratest.EnvDir)
	}
	node, err := cassandratest.AttachDir(ctx, dir, false)
	if err != nil {
		return err
	}
	header.Cassandra = fmt.Sprintf("%s (%s), one node on the same machine", cassandratest.Version, node.Mode)
	cfg.OutDir = filepath.Clean(*out)
	if err := os.MkdirAll(cfg.OutDir, 0o755); err != nil {
		return fmt.Errorf("create output directory: %w", err)
	}

	session, err := node.Session()
	if err != nil {
		return err
	}
	err = testbed.Generate(ctx, session, node, node.DataDir(), &d, *reuse, os.Stdout)
	session.Close()
	if err != nil {
		return err
	}
	cfg.Dataset = d
	header.Dataset = d

	bin := *serverBin
	if bin == "" {
		bin = filepath.Join(cfg.OutDir, "sstable-flight")
		fmt.Printf("lane-a: building %s\n", bin)
		if err := testbed.BuildServer(ctx, cfg.GoBin, bin); err != nil {
			return err
		}
	}
	// A path, never a name to look up in $PATH.
	if bin, err = filepath.Abs(bin); err != nil {
		return fmt.Errorf("resolve server binary: %w", err)
	}
	logf, err := os.Create(filepath.Join(cfg.OutDir, "sstable-flight.log"))
	if err != nil {
		return fmt.Errorf("create server log: %w", err)
	}
	defer logf.Close()
	cfg.Server = testbed.ServerSpec{
		Bin: bin, DataDir: node.DataDir(), Cassandra: node.Addr(),
		SnapshotDir: filepath.Join(node.Dir, "lane-a-snapshots"),
		ExtraArgs:   strings.Fields(*serverArgs), Log: logf,
	}
	cfg.CQLAddr = node.Addr()
	cfg.Out, cfg.Progress = os.Stdout, os.Stderr
	pointPath := "one round trip (the command as the DoGet ticket)"
	if !cfg.Direct {
		pointPath = "GetFlightInfo then DoGet"
	}
	header.Load = fmt.Sprintf("closed loop, %s steps after %s warm-up, seed %d; point ramp %s over %d sampled keys, %s; scan ramp %s with %d splits; "+
		"overload %d clients × %s; sstable-flight with --cassandra, hard-link snapshots, default admission%s",
		cfg.Step, cfg.Warmup, cfg.Seed, *ramp, cfg.Keys, pointPath, *scanRamp, cfg.ScanSplits, t.OverloadClients, t.OverloadDuration, testbed.FlagsNote(*serverArgs))

	m, runErr := flightbench.Run(ctx, cfg)
	rep := flightbench.NewReport(header, t, m, runErr)
	md := rep.Markdown(1, "Lane A performance record (issue #7)")
	fmt.Print("\n" + md)
	if err := writeReport(cfg.OutDir, rep, md); err != nil {
		return errors.Join(runErr, err)
	}
	if *updateDoc != "" {
		if runErr != nil {
			fmt.Fprintf(os.Stderr, "bench-flight: %s left as it was: the run is incomplete\n", *updateDoc)
		} else {
			title := header.Date.Format("2006-01-02") + " — Lane A (issue #7), `make bench-flight`"
			if err := flightbench.UpdateDoc(*updateDoc, []byte(rep.Markdown(3, title))); err != nil {
				return err
			}
			fmt.Printf("lane-a: updated %s\n", *updateDoc)
		}
	}
	return runErr
}

func writeReport(dir string, rep any, md string) error {
	if err := testbed.WriteReport(dir, rep, md); err != nil {
		return err
	}
	fmt.Printf("lane-a: wrote %s and %s\n", filepath.Join(dir, "report.md"), filepath.Join(dir, "report.json"))
	return nil
}
