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
	"strings"
	"syscall"
	"time"

	"github.com/sstable-flight/sstable-flight/internal/cassandratest"
	"github.com/sstable-flight/sstable-flight/loadgen/lanea"
	"github.com/sstable-flight/sstable-flight/loadgen/laneb"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "bench-lane-b:", err)
		os.Exit(1)
	}
}

func run() error {
	d := lanea.Dataset{Keyspace: "laneb", ValueBytes: 100}
	flag.IntVar(&d.KVRows, "kv-rows", 2_000_000, "rows of laneb.kv (text key, 100-byte text value)")
	flag.IntVar(&d.TSPartitions, "ts-partitions", 200_000, "partitions of laneb.ts")
	flag.IntVar(&d.TSRowsPerPartition, "ts-rows", 10, "rows per partition of laneb.ts")
	reuse := flag.Bool("reuse", false, "keep laneb's tables when they already hold the expected rows")
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
	flag.Parse()
	if flag.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", flag.Args())
	}
	if d.KVRows < 2 || d.TSPartitions < 2 || d.TSRowsPerPartition < 1 || *runs < 1 {
		return errors.New("-kv-rows and -ts-partitions must be at least 2, -ts-rows and -runs at least 1")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	rep := &laneb.Report{Header: lanea.Machine(ctx, time.Now()), UptimeBefore: laneb.Uptime(), Targets: laneb.DefaultTargets()}
	rep.Header.Command = lanea.Command("bench-lane-b", "LANEB_FLAGS", os.Args[1:])
	outDir := filepath.Clean(*out)
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return fmt.Errorf("create output directory: %w", err)
	}
	runErr := measure(ctx, rep, &d, outDir, options{
		reuse: *reuse, runs: *runs, pointRepeat: *pointRepeat, warmups: *warmups, profileRuns: *profileRuns, peerProfile: *peerProfile,
		heap: *heap, serverBin: *serverBin, serverArgs: *serverArgs, trinoHome: *trinoHome,
		pluginDir: *pluginDir, javaHome: *javaHome, goBin: *goBin,
	})
	rep.UptimeAfter = laneb.Uptime()
	if runErr != nil {
		rep.Error = runErr.Error()
	}
	rep.Judge()
	md := rep.Markdown(1, "Lane B performance record (issue #16)")
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
}

// measure does the run between the header and the report: data, server,
// Trino, the queries and the profile. Every process it starts is stopped
// before it returns.
func measure(ctx context.Context, rep *laneb.Report, d *lanea.Dataset, outDir string, o options) (err error) {
	dir := os.Getenv(cassandratest.EnvDir)
	if dir == "" {
		return fmt.Errorf("no Cassandra node in the environment (%s): run `make bench-lane-b`, or eval `cassandra-harness env -dir DIR` first", cassandratest.EnvDir)
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
	err = lanea.Generate(ctx, session, node, node.DataDir(), d, o.reuse, os.Stdout)
	session.Close()
	if err != nil {
		return err
	}
	rep.Header.Dataset = *d

	bin := o.serverBin
	if bin == "" {
		bin = filepath.Join(outDir, "sstable-flight")
		fmt.Printf("lane-b: building %s\n", bin)
		if err := lanea.BuildServer(ctx, o.goBin, bin); err != nil {
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
	srv, err := lanea.StartServer(ctx, lanea.ServerSpec{
		Bin: bin, DataDir: node.DataDir(), Cassandra: node.Addr(),
		SnapshotDir: filepath.Join(node.Dir, "lane-b-snapshots"),
		ExtraArgs:   strings.Fields(o.serverArgs), Log: slog,
	})
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, srv.Stop()) }()

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
	tr, err := laneb.StartTrino(ctx, laneb.TrinoSpec{
		Home: o.trinoHome, JavaHome: o.javaHome, PluginDir: o.pluginDir, WorkDir: work, Heap: o.heap,
		FlightURI: "grpc://" + srv.Addr, CQLPort: node.CQLPort, Log: tlog,
	})
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, tr.Stop()) }()
	rep.Trino = fmt.Sprintf("Trino 476 on %s (-Xmx%s, serial GC), one node", filepath.Base(o.javaHome), o.heap)
	rep.Header.Load = fmt.Sprintf("%d warm-up and %d recorded rounds, each running every full scan once and every point query %d times through each catalog, one query at a time, the catalogs alternating which goes first; sstable-flight with --cassandra, hard-link snapshots, default plugin settings%s",
		o.warmups, o.runs, max(1, o.pointRepeat), lanea.FlagsNote(o.serverArgs))

	client := &laneb.Client{Base: tr.Base, HTTP: &http.Client{Timeout: 30 * time.Minute}}
	qs := laneb.Queries(*d)
	results, err := laneb.Run(ctx, laneb.Config{
		Trino: client, Keyspace: d.Keyspace, Queries: qs, Warmups: o.warmups, Runs: o.runs, PointRepeat: o.pointRepeat,
		ServerPid: srv.Pid, NodePid: node.Pid, Progress: os.Stderr,
	})
	rep.Results = results
	if err != nil {
		return err
	}
	if o.profileRuns > 0 {
		j := laneb.JFR{JavaHome: o.javaHome, Pid: tr.Pid, Name: "laneb"}
		if rep.Profile, err = profile(ctx, j, client, d.Keyspace, qs, o.profileRuns, laneb.OursCatalog, filepath.Join(outDir, "trino-ours.jfr")); err != nil {
			return err
		}
		if o.peerProfile {
			if rep.PeerProfile, err = profile(ctx, j, client, d.Keyspace, qs, o.profileRuns, laneb.PeerCatalog, filepath.Join(outDir, "trino-cassandra.jfr")); err != nil {
				return err
			}
		}
	}
	return nil
}

// profile records Trino while one catalog's full scans run.
func profile(ctx context.Context, j laneb.JFR, c *laneb.Client, ks string, qs []laneb.Query, n int, catalog, path string) (*laneb.Profile, error) {
	fmt.Printf("lane-b: profiling Trino during %s's full scans\n", catalog)
	if err := j.Start(ctx); err != nil {
		return nil, err
	}
	scanErr := laneb.Scan(ctx, c, catalog, ks, qs, n)
	if err := j.Stop(ctx, path); err != nil {
		return nil, errors.Join(scanErr, err)
	}
	if scanErr != nil {
		return nil, scanErr
	}
	return j.Summarize(ctx, path, fmt.Sprintf("%d runs of each full scan through %s", n, catalog), 20)
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
	if err := lanea.WriteReport(dir, rep, md); err != nil {
		return err
	}
	fmt.Printf("lane-b: wrote %s and %s\n", filepath.Join(dir, "report.md"), filepath.Join(dir, "report.json"))
	return nil
}
