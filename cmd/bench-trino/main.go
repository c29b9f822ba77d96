package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/sstable-flight/sstable-flight/internal/testkit/cassandratest"
	"github.com/sstable-flight/sstable-flight/loadgen"
	"github.com/sstable-flight/sstable-flight/loadgen/testbed"
	"github.com/sstable-flight/sstable-flight/loadgen/trinobench"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "bench-trino:", err)
		os.Exit(1)
	}
}

func run() error {
	d := testbed.Dataset{ValueBytes: 100}
	flag.StringVar(&d.Keyspace, "keyspace", "laneb", "the keyspace of kv and ts, dropped and written anew unless -reuse finds it complete (on a shared node, one of your own)")
	flag.IntVar(&d.KVRows, "kv-rows", 2_000_000, "rows of kv (text key, 100-byte text value)")
	flag.IntVar(&d.TSPartitions, "ts-partitions", 200_000, "partitions of ts")
	flag.IntVar(&d.TSRowsPerPartition, "ts-rows", 10, "rows per partition of ts")
	reuse := flag.Bool("reuse", false, "keep the keyspace's tables when they already hold the expected rows")
	runs := flag.Int("runs", 5, "recorded rounds: every query once through each catalog")
	pointRepeat := flag.Int("point-repeat", 5, "runs of each point query (keyed lookup, LIMIT 10) per round and catalog, all recorded")
	warmups := flag.Int("warmups", 1, "unrecorded rounds (every query through each catalog) first")
	profileRuns := flag.Int("profile-runs", 2, "runs of each of our full scans under a JFR recording (0: no profile)")
	peerProfile := flag.Bool("profile-peer", true, "also record the cassandra catalog's full scans")
	heap := flag.String("heap", "2G", "Trino's -Xmx")
	out := flag.String("out", "build/lane-b", "directory of report.md, report.json, logs and recordings")
	serverBin := flag.String("server-bin", "", "sstable-flight binary (default: built from ./cmd/sstable-flight into -out)")
	serverArgs := flag.String("server-args", "", "extra sstable-flight flags, space-separated")
	trinoHome := flag.String("trino-home", "", "Trino 476 server directory (default: deploy/local/install-trino.sh's)")
	pluginDir := flag.String("plugin-dir", "", "the plugin directory (default: built by deploy/local/trino-build.sh)")
	javaHome := flag.String("java-home", "", "a Java 24+ JDK (default: deploy/local/java25.sh's)")
	goBin := flag.String("go", "go", "the go command (server build)")
	joinKeys := flag.Int("join-keys", 100, "keys of kv in the join's dimension table (memory catalog), also read directly from the server for the join's yardstick (0: no join)")
	concurrency := flag.String("concurrency", "8,32", "clients of the keyed-lookup load through each catalog, one level after another (empty: no load)")
	concDur := flag.Duration("concurrency-duration", 30*time.Second, "how long each catalog runs at each level")
	concProfile := flag.Duration("concurrency-profile", 10*time.Second, "a further run of ours at the highest level under a JFR recording, this long (0: none)")
	seed := flag.Uint64("seed", 1, "seed of the load's random keys")
	flag.Parse()
	if flag.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", flag.Args())
	}
	if d.KVRows < 2 || d.TSPartitions < 2 || d.TSRowsPerPartition < 1 || *runs < 1 {
		return errors.New("-kv-rows and -ts-partitions must be at least 2, -ts-rows and -runs at least 1")
	}
	if !validKeyspace.MatchString(d.Keyspace) {
		return fmt.Errorf("-keyspace %q: want a lower-case unquoted CQL name (letters, digits, underscores, a letter first)", d.Keyspace)
	}
	if *joinKeys < 0 || *joinKeys > d.KVRows {
		return fmt.Errorf("-join-keys %d: want 0 to -kv-rows (%d)", *joinKeys, d.KVRows)
	}
	var levels []int
	if strings.TrimSpace(*concurrency) != "" {
		var err error
		if levels, err = loadgen.ParseRamp(*concurrency); err != nil {
			return fmt.Errorf("-concurrency: %w", err)
		}
		if *concDur <= 0 {
			return errors.New("-concurrency-duration must be positive")
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	rep := &trinobench.Report{Header: testbed.Machine(ctx, time.Now()), UptimeBefore: trinobench.Uptime(), Targets: trinobench.DefaultTargets()}
	rep.Header.Command = testbed.Command("bench-trino", "BENCH_TRINO_FLAGS", os.Args[1:])
	outDir := filepath.Clean(*out)
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return fmt.Errorf("create output directory: %w", err)
	}
	runErr := measure(ctx, rep, &d, outDir, options{
		reuse: *reuse, runs: *runs, pointRepeat: *pointRepeat, warmups: *warmups, profileRuns: *profileRuns, peerProfile: *peerProfile,
		heap: *heap, serverBin: *serverBin, serverArgs: *serverArgs, trinoHome: *trinoHome,
		pluginDir: *pluginDir, javaHome: *javaHome, goBin: *goBin,
		joinKeys: *joinKeys, levels: levels, concDur: *concDur, concProfile: *concProfile, seed: *seed,
	})
	rep.UptimeAfter = trinobench.Uptime()
	if runErr != nil {
		rep.Error = runErr.Error()
	}
	rep.Judge()
	md := rep.Markdown(1, "Lane B performance record (issues #16 and #24)")
	fmt.Print("\n" + md)
	if err := writeReport(outDir, rep, md); err != nil {
		return errors.Join(runErr, err)
	}
	return runErr
}

type options struct {
	reuse                          bool
	runs, warmups, profileRuns     int
	pointRepeat                    int
	peerProfile                    bool
	heap, serverBin, serverArgs    string
	trinoHome, pluginDir, javaHome string
	goBin                          string
	joinKeys                       int   // 0: no join
	levels                         []int // clients of the keyed-lookup load; none: no load
	concDur, concProfile           time.Duration
	seed                           uint64
}

// validKeyspace is a keyspace name the rig can use unquoted in CQL and
// in Trino (which lower-cases names) alike.
var validKeyspace = regexp.MustCompile(`^[a-z][a-z0-9_]{0,47}$`)

// measure does the run between the header and the report: data, server,
// Trino, the queries and the profile. Every process it starts is stopped
// before it returns.
func measure(ctx context.Context, rep *trinobench.Report, d *testbed.Dataset, outDir string, o options) (err error) {
	dir := os.Getenv(cassandratest.EnvDir)
	if dir == "" {
		return fmt.Errorf("no Cassandra node in the environment (%s): run `make bench-trino`, or eval `cassandra-harness env -dir DIR` first", cassandratest.EnvDir)
	}
	node, err := cassandratest.AttachDir(ctx, dir, false)
	if err != nil {
		return err
	}
	rep.Header.Cassandra = fmt.Sprintf("%s (%s), one node on the same machine", cassandratest.Version, node.Mode)
	if o.javaHome == "" {
		if o.javaHome, err = script("deploy/local/java25.sh", `source "$0" && echo "$JAVA_HOME"`); err != nil {
			return err
		}
	}
	if o.trinoHome == "" {
		if o.trinoHome, err = script("deploy/local/install-trino.sh", `bash "$0"`); err != nil {
			return err
		}
	}
	if o.pluginDir == "" {
		fmt.Println("lane-b: building the plugin (deploy/local/trino-build.sh)")
		if o.pluginDir, err = script("deploy/local/trino-build.sh", `bash "$0"`); err != nil {
			return err
		}
	}
	// Trino's plugin links and JAVA_HOME must not depend on its working directory.
	for _, p := range []*string{&o.javaHome, &o.trinoHome, &o.pluginDir} {
		if *p, err = filepath.Abs(*p); err != nil {
			return fmt.Errorf("resolve %s: %w", *p, err)
		}
	}
	session, err := node.Session()
	if err != nil {
		return err
	}
	err = testbed.Generate(ctx, session, node, node.DataDir(), d, o.reuse, os.Stdout)
	session.Close()
	if err != nil {
		return err
	}
	rep.Header.Dataset = *d

	bin := o.serverBin
	if bin == "" {
		bin = filepath.Join(outDir, "sstable-flight")
		fmt.Printf("lane-b: building %s\n", bin)
		if err := testbed.BuildServer(ctx, o.goBin, bin); err != nil {
			return err
		}
	}
	if bin, err = filepath.Abs(bin); err != nil {
		return fmt.Errorf("resolve server binary: %w", err)
	}
	slog, err := os.Create(filepath.Join(outDir, "sstable-flight.log"))
	if err != nil {
		return fmt.Errorf("create server log: %w", err)
	}
	defer slog.Close()
	// A snapshot directory per keyspace: two runs on one shared node
	// must not clear each other's (the server empties it on start).
	snaps := filepath.Join(node.Dir, "lane-b-snapshots-"+d.Keyspace)
	srv, err := testbed.StartServer(ctx, testbed.ServerSpec{
		Bin: bin, DataDir: node.DataDir(), Cassandra: node.Addr(), SnapshotDir: snaps,
		ExtraArgs: strings.Fields(o.serverArgs), Log: slog,
	})
	if err != nil {
		return err
	}
	defer func() {
		err = errors.Join(err, srv.Stop())
		if rmErr := os.RemoveAll(snaps); rmErr != nil {
			err = errors.Join(err, fmt.Errorf("remove the server's snapshots: %w", rmErr))
		}
	}()

	tlog, err := os.Create(filepath.Join(outDir, "trino.log"))
	if err != nil {
		return fmt.Errorf("create trino log: %w", err)
	}
	defer tlog.Close()
	work, err := filepath.Abs(filepath.Join(outDir, "trino"))
	if err != nil {
		return fmt.Errorf("resolve trino work dir: %w", err)
	}
	fmt.Println("lane-b: starting Trino")
	tr, err := trinobench.StartTrino(ctx, trinobench.TrinoSpec{
		Home: o.trinoHome, JavaHome: o.javaHome, PluginDir: o.pluginDir, WorkDir: work, Heap: o.heap,
		FlightURI: "grpc://" + srv.Addr, CQLPort: node.CQLPort, Log: tlog,
	})
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, tr.Stop()) }()
	rep.Trino = fmt.Sprintf("Trino 476 on %s (-Xmx%s, serial GC), one node", filepath.Base(o.javaHome), o.heap)
	rep.Header.Load = fmt.Sprintf("%d warm-up and %d recorded rounds, each running every full scan and the join once and every point query %d times through each catalog, one query at a time, the catalogs alternating which goes first; sstable-flight with --cassandra, hard-link snapshots, default plugin settings%s",
		o.warmups, o.runs, max(1, o.pointRepeat), testbed.FlagsNote(o.serverArgs))

	client := &trinobench.Client{Base: tr.Base, HTTP: &http.Client{Timeout: 30 * time.Minute}}
	qs := trinobench.Queries(*d)
	var keys []string
	if o.joinKeys > 0 {
		keys = trinobench.JoinKeys(d.KVRows, o.joinKeys)
		if err := trinobench.CreateDim(ctx, client, d.Keyspace, keys); err != nil {
			return err
		}
		rep.Join = &trinobench.JoinReport{Keys: len(keys), Dim: trinobench.DimName(d.Keyspace)}
		qs = append(qs, trinobench.JoinQuery(d.Keyspace, len(keys)))
	}
	// A part that fails is recorded and the next one still runs: the
	// join and the load measure different things, and one failing (the
	// connector under change) should not hide the others.
	var errs []error
	results, err := trinobench.Run(ctx, trinobench.Config{
		Trino: client, Keyspace: d.Keyspace, Queries: qs, Warmups: o.warmups, Runs: o.runs, PointRepeat: o.pointRepeat,
		ServerPid: srv.Pid, NodePid: node.Pid, ServerMetrics: srv.MetricsURL(), Progress: os.Stderr,
	})
	rep.Results = results
	errs = append(errs, err)
	if rep.Join != nil {
		errs = append(errs, joinExtras(ctx, rep, client, srv, d.Keyspace, keys, qs[len(qs)-1], o, outDir))
	}
	j := trinobench.JFR{JavaHome: o.javaHome, Pid: tr.Pid, Name: "laneb"}
	if o.profileRuns > 0 && ctx.Err() == nil {
		if rep.Profile, err = profile(ctx, j, client, d.Keyspace, qs, o.profileRuns, trinobench.OursCatalog, filepath.Join(outDir, "trino-ours.jfr")); err != nil {
			errs = append(errs, err)
		} else if o.peerProfile {
			rep.PeerProfile, err = profile(ctx, j, client, d.Keyspace, qs, o.profileRuns, trinobench.PeerCatalog, filepath.Join(outDir, "trino-cassandra.jfr"))
			errs = append(errs, err)
		}
	}
	if len(o.levels) > 0 && ctx.Err() == nil {
		errs = append(errs, load(ctx, rep, j, tr, srv, node.Pid, d, o, outDir))
	}
	return errors.Join(errs...)
}

// joinExtras adds to the join's record what the rounds do not measure:
// the median runs' QueryInfo and an EXPLAIN ANALYZE through each catalog
// (files beside the report), and the join's keys read straight from the
// server, its yardstick.
func joinExtras(ctx context.Context, rep *trinobench.Report, c *trinobench.Client, srv *testbed.ServerProc, ks string, keys []string, join trinobench.Query, o options, outDir string) error {
	var errs []error
	rep.Join.QueryInfo, rep.Join.Explain, rep.Join.SplitWait = map[string]string{}, map[string]string{}, map[string]string{}
	for _, x := range rep.Results {
		if !x.Query.Join {
			continue
		}
		for _, a := range []trinobench.Arm{x.Ours, x.Peer} {
			f := filepath.Join(outDir, "join-queryinfo-"+a.Catalog+".json")
			if err := os.WriteFile(f, a.Info, 0o644); err != nil {
				errs = append(errs, fmt.Errorf("write %s: %w", f, err))
				continue
			}
			rep.Join.QueryInfo[a.Catalog] = f
		}
	}
	for _, cat := range []string{trinobench.OursCatalog, trinobench.PeerCatalog} {
		fmt.Printf("lane-b: EXPLAIN ANALYZE of the join through %s\n", cat)
		text, err := trinobench.ExplainAnalyze(ctx, c, fmt.Sprintf(join.SQL, cat+"."+ks+"."+testbed.KVTable))
		if err != nil {
			errs = append(errs, fmt.Errorf("join through %s: %w", cat, err))
			continue
		}
		f := filepath.Join(outDir, "join-explain-analyze-"+cat+".txt")
		if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
			errs = append(errs, fmt.Errorf("write %s: %w", f, err))
			continue
		}
		rep.Join.Explain[cat] = f
		rep.Join.SplitWait[cat] = trinobench.ExplainSplitWait(text, cat)
	}
	fmt.Printf("lane-b: %d keyed lookups straight from sstable-flight\n", len(keys))
	l, err := trinobench.DirectLookups(ctx, srv.Addr, srv.MetricsURL(), ks, testbed.KVTable, "k", keys, o.warmups, o.runs)
	rep.Join.Lookups = l
	return errors.Join(append(errs, err)...)
}

// load runs the keyed lookups under concurrency through both catalogs,
// then ours once more at the highest level under a JFR recording.
func load(ctx context.Context, rep *trinobench.Report, j trinobench.JFR, tr *trinobench.TrinoProc, srv *testbed.ServerProc, nodePid int, d *testbed.Dataset, o options, outDir string) error {
	cfg := trinobench.ConcurrencyConfig{
		Trino: tr.Base, Keyspace: d.Keyspace, KVRows: d.KVRows, Levels: o.levels, Duration: o.concDur, Seed: o.seed,
		TrinoPid: tr.Pid, ServerPid: srv.Pid, NodePid: nodePid,
		Progress: func(format string, args ...any) { fmt.Fprintf(os.Stderr, format, args...) },
	}
	fmt.Printf("lane-b: keyed lookups at %v clients, %s per catalog and level\n", o.levels, o.concDur)
	rep.Concurrency = cfg.Run(ctx)
	if o.concProfile <= 0 || ctx.Err() != nil {
		return nil
	}
	top := slices.Max(o.levels)
	path := filepath.Join(outDir, "trino-ours-keyed.jfr")
	fmt.Printf("lane-b: profiling Trino during %s of ours' keyed lookups at %d clients\n", o.concProfile, top)
	if err := j.Start(ctx); err != nil {
		return err
	}
	run := cfg.RunLevel(ctx, trinobench.OursCatalog, top, o.concProfile)
	if err := j.Stop(ctx, path); err != nil {
		return err
	}
	p, err := j.Summarize(ctx, path, fmt.Sprintf("%s of keyed lookups through %s at %d clients", o.concProfile, trinobench.OursCatalog, top), trinobench.OursCatalog, 20)
	if err != nil {
		return err
	}
	rep.Concurrency.Profile, rep.Concurrency.Profiled = p, &run
	return nil
}

// profile records Trino while one catalog's full scans run.
func profile(ctx context.Context, j trinobench.JFR, c *trinobench.Client, ks string, qs []trinobench.Query, n int, catalog, path string) (*trinobench.Profile, error) {
	fmt.Printf("lane-b: profiling Trino during %s's full scans\n", catalog)
	if err := j.Start(ctx); err != nil {
		return nil, err
	}
	scanErr := trinobench.Scan(ctx, c, catalog, ks, qs, n)
	if err := j.Stop(ctx, path); err != nil {
		return nil, errors.Join(scanErr, err)
	}
	if scanErr != nil {
		return nil, scanErr
	}
	return j.Summarize(ctx, path, fmt.Sprintf("%d runs of each full scan through %s", n, catalog), catalog, 20)
}

// ansiEscape matches a terminal control sequence: Maven, quiet and in
// batch mode, still prints colour resets on the line before the
// directory trino-build.sh names.
var ansiEscape = regexp.MustCompile("\x1b\\[[0-9;]*[A-Za-z]")

// script runs one of deploy/local's scripts through bash and returns
// the last line it printed (the directory it names), without terminal
// control sequences.
func script(path, body string) (string, error) {
	cmd := exec.Command("bash", "-c", body, path)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("run %s: %w", path, err)
	}
	lines := strings.Split(strings.TrimSpace(ansiEscape.ReplaceAllString(string(out), "")), "\n")
	return strings.TrimSpace(lines[len(lines)-1]), nil
}

func writeReport(dir string, rep any, md string) error {
	if err := testbed.WriteReport(dir, rep, md); err != nil {
		return err
	}
	fmt.Printf("lane-b: wrote %s and %s\n", filepath.Join(dir, "report.md"), filepath.Join(dir, "report.json"))
	return nil
}
