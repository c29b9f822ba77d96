package main_test

// Issue #6: a server killed mid-scan (SIGKILL, OOM, node crash) leaves its
// hard-linked epochs in --snapshot-dir; the next start must remove them,
// and neither run may touch Cassandra's data directory, its own snapshots
// included.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
)

const (
	corpusSrc    = "../../testdata/corpus/oa" // from cmd/sstable-flight
	snapMarker   = ".sstable-flight-snapshots"
	startTimeout = 15 * time.Second
	stopTimeout  = 20 * time.Second
)

// crashSetup builds the server and lays out what a crash test runs it
// on: a copy of the corpus as Cassandra's data directory
// (prepareDataDir; wideDir is its wide table's directory) and the path
// of a snapshot directory, both under the test's temporary directory.
func crashSetup(t *testing.T) (bin, data, snaps, wideDir string) {
	t.Helper()
	bin = buildServer(t)
	tmp := t.TempDir()
	data, snaps = filepath.Join(tmp, "data"), filepath.Join(tmp, "snaps")
	return bin, data, snaps, prepareDataDir(t, data)
}

func TestCrashLeavesCassandraUntouched(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	bin, data, snaps, wideDir := crashSetup(t)
	want := expectedRows(t, wideDir)
	before := checksumTree(t, data)

	// A scan is cut mid-stream by SIGKILL: its epoch stays behind.
	s1 := startServer(t, bin, data, snaps)
	c1 := dial(t, s1)
	info := wideInfo(ctx, t, s1, c1)
	stream, err := c1.DoGet(ctx, info.Endpoint[0].Ticket)
	if err != nil {
		s1.fatalf(t, "DoGet: %v", err)
	}
	rd, err := flight.NewRecordReader(stream)
	if err != nil {
		s1.fatalf(t, "read stream: %v", err)
	}
	if !rd.Next() {
		s1.fatalf(t, "no first record batch: %v", rd.Err())
	}
	if n := rd.RecordBatch().NumRows(); n != 1 {
		t.Errorf("first batch has %d rows with --batch-rows 1", n)
	}
	epochs := epochDirs(t, snaps)
	if len(epochs) == 0 {
		s1.fatalf(t, "mid-scan: no epoch of corpus.wide under %s (tree: %v)", snaps, treeNames(snaps))
	}
	for _, e := range epochs {
		linked, _ := filepath.Glob(filepath.Join(e, "*-Data.db"))
		if len(linked) == 0 {
			s1.fatalf(t, "mid-scan: epoch %s holds no *-Data.db", e)
		}
		for _, f := range linked {
			requireSameFile(t, f, filepath.Join(wideDir, filepath.Base(f)))
		}
	}
	s1.kill(t)
	rd.Release()
	c1.Close()
	for _, e := range epochs {
		if _, err := os.Stat(e); err != nil {
			t.Fatalf("after SIGKILL the epoch %s should be left over (nothing cleaned it): %v", e, err)
		}
	}
	t.Logf("left over after SIGKILL: %v", treeNames(snaps))

	// The next start removes the leftovers and serves as before.
	s2 := startServer(t, bin, data, snaps)
	c2 := dial(t, s2)
	if got := treeNames(snaps); !onlyMarker(got) {
		s2.fatalf(t, "after restart %s holds %v, want only %s", snaps, got, snapMarker)
	}
	info = wideInfo(ctx, t, s2, c2)
	rows, batches := readAll(ctx, t, s2, c2, info)
	if rows != want {
		s2.fatalf(t, "full read of corpus.wide after restart: %d rows in %d batches over %d endpoints, expected.json has %d",
			rows, batches, len(info.Endpoint), want)
	}
	t.Logf("full read after restart: %d rows, %d batches, %d endpoints", rows, batches, len(info.Endpoint))
	if len(epochDirs(t, snaps)) == 0 {
		t.Errorf("a hardlink-mode read made no epoch under %s: %v", snaps, treeNames(snaps))
	}
	c2.Close()

	// A graceful stop removes its epochs.
	s2.terminate(t)
	if got := treeNames(snaps); !onlyMarker(got) {
		s2.fatalf(t, "after SIGTERM %s holds %v, want only %s", snaps, got, snapMarker)
	}

	// Cassandra's files, directories and own snapshots are as they were.
	after := checksumTree(t, data)
	if d := diffTrees(before, after); d != "" {
		t.Fatalf("the data directory changed:\n%s", d)
	}
}

// TestSecondServerOnSameSnapshotDirFails: a second server on a snapshot
// directory in use refuses to start, and deletes none of the first's
// epochs on its way out.
func TestSecondServerOnSameSnapshotDirFails(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	bin, data, snaps, _ := crashSetup(t)

	s1 := startServer(t, bin, data, snaps)
	c1 := dial(t, s1)
	info := wideInfo(ctx, t, s1, c1)
	if len(epochDirs(t, snaps)) == 0 {
		s1.fatalf(t, "no epoch after GetFlightInfo: %v", treeNames(snaps))
	}
	before := treeNames(snaps)

	cctx, ccancel := context.WithTimeout(ctx, startTimeout)
	defer ccancel()
	cmd := exec.CommandContext(cctx, bin, serverArgs(data, snaps)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() == 0 || cctx.Err() != nil {
		t.Fatalf("second server on %s: %v (context: %v), want a non-zero exit; stderr:\n%s", snaps, err, cctx.Err(), stderr.String())
	}
	if !strings.Contains(stderr.String(), "another sstable-flight process") {
		t.Fatalf("second server's stderr does not mention another sstable-flight process:\n%s", stderr.String())
	}
	t.Logf("second server: %v: %s", err, strings.TrimSpace(stderr.String()))

	if got := treeNames(snaps); !equalStrings(got, before) {
		s1.fatalf(t, "the refused second server changed %s:\nbefore %v\nafter  %v", snaps, before, got)
	}
	// The first still serves, from the epoch it planned on.
	if rows, _ := readAll(ctx, t, s1, c1, info); rows == 0 {
		s1.fatalf(t, "first server read no rows after the second was refused")
	}
	c1.Close()
	s1.terminate(t)
}

// buildServer builds the binary once per test run, into a directory
// TestMain removes: every test of the binary runs the same build, and
// the package's tests do not link it once each.
func buildServer(t testing.TB) string {
	t.Helper()
	build.once.Do(func() {
		dir, err := os.MkdirTemp("", "sstable-flight-bin")
		if err != nil {
			build.err = err
			return
		}
		build.dir, build.bin = dir, filepath.Join(dir, "sstable-flight")
		ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
		defer cancel()
		if out, err := exec.CommandContext(ctx, "go", "build", "-o", build.bin, ".").CombinedOutput(); err != nil {
			build.err = fmt.Errorf("go build: %w\n%s", err, out)
		}
	})
	if build.err != nil {
		t.Fatal(build.err)
	}
	return build.bin
}

// build is the one build of the binary (buildServer).
var build struct {
	once     sync.Once
	dir, bin string
	err      error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if build.dir != "" {
		os.RemoveAll(build.dir)
	}
	os.Exit(code)
}
