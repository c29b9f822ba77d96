package main_test

// Issue #15, finding 4: storage that never answers. A FIFO stands in for
// a hung disk: opening one for reading waits, in open(2), for a writer
// that never comes, and nothing in Go can interrupt it.

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// TestFIFOsNeverHangTheServer: a table whose schema.cql is a FIFO and one
// with a FIFO named as a txn log fail their reads promptly with a status
// naming the file, other tables are still served, and SIGTERM exits
// within --drain-timeout. Before, both reads waited until the client
// gave up (the server's handler never returned), and SIGTERM with
// --drain-timeout 3s never exited.
func TestFIFOsNeverHangTheServer(t *testing.T) {
	bin := buildServer(t)
	tmp := t.TempDir()
	data, snaps := filepath.Join(tmp, "data"), filepath.Join(tmp, "snaps")
	if err := copyTree(corpusSrc, data); err != nil {
		t.Fatal(err)
	}
	tableDir := func(name string) string {
		dirs, _ := filepath.Glob(filepath.Join(data, "corpus", name+"-*"))
		if len(dirs) != 1 {
			t.Fatalf("table dir of corpus.%s: %v", name, dirs)
		}
		return dirs[0]
	}
	schema := filepath.Join(tableDir("timestamps"), "schema.cql")
	if err := os.Remove(schema); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(schema, 0o644); err != nil {
		t.Fatal(err)
	}
	const txnLog = "oa_txn_compaction_9a1f0e40-5b8e-11ef-8c99-0242ac120002.log"
	if err := syscall.Mkfifo(filepath.Join(tableDir("deletions"), txnLog), 0o644); err != nil {
		t.Fatal(err)
	}

	const drain = 3 * time.Second
	args := serverArgs(data, snaps)
	for i, a := range args {
		if a == "--drain-timeout" {
			args[i+1] = drain.String()
		}
	}
	s := startServerArgs(t, bin, args)
	c := dial(t, s)
	ctx := context.Background()
	for _, tc := range []struct{ table, names string }{
		{"timestamps", "schema.cql"},
		{"deletions", txnLog},
	} {
		start := time.Now()
		qctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		_, err := c.GetFlightInfo(qctx, &flight.FlightDescriptor{Type: flight.DescriptorPATH, Path: []string{"corpus", tc.table}})
		cancel()
		took := time.Since(start)
		if err == nil || status.Code(err) == codes.DeadlineExceeded || took > 5*time.Second || !strings.Contains(status.Convert(err).Message(), tc.names) {
			s.fatalf(t, "GetFlightInfo corpus.%s with a FIFO for %s: %v after %v; want an error naming it, at once", tc.table, tc.names, err, took)
		}
		t.Logf("corpus.%s: %v after %v", tc.table, err, took)
	}
	// The other tables are served as ever.
	info := wideInfo(ctx, t, s, c)
	if rows, _ := readAll(ctx, t, s, c, info); rows == 0 {
		s.fatalf(t, "corpus.wide: no rows beside the FIFOs")
	}

	start := time.Now()
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		s.fatalf(t, "SIGTERM: %v", err)
	}
	select {
	case <-s.done:
		t.Logf("exited %v after SIGTERM: %v", time.Since(start), s.waitErr)
	case <-time.After(drain + 3*time.Second):
		s.fatalf(t, "still running %v after SIGTERM with --drain-timeout %v", time.Since(start), drain)
	}
}

// TestDrainTimeoutIsAHardBound: a stream whose client stopped reading
// holds the drain until --drain-timeout; then the process exits, within
// a small slack, non-zero, logging what it cut.
func TestDrainTimeoutIsAHardBound(t *testing.T) {
	bin := buildServer(t)
	tmp := t.TempDir()
	data, snaps := filepath.Join(tmp, "data"), filepath.Join(tmp, "snaps")
	if err := copyTree(corpusSrc, data); err != nil {
		t.Fatal(err)
	}
	const drain = 2 * time.Second
	args := serverArgs(data, snaps)
	for i, a := range args {
		if a == "--drain-timeout" {
			args[i+1] = drain.String()
		}
	}
	s := startServerArgs(t, bin, args)
	c := dial(t, s)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	info := wideInfo(ctx, t, s, c)
	stream, err := c.DoGet(ctx, info.Endpoint[0].Ticket)
	if err != nil {
		s.fatalf(t, "DoGet: %v", err)
	}
	if _, err := stream.Recv(); err != nil { // the stream runs; then it is never read again
		s.fatalf(t, "first message: %v", err)
	}
	start := time.Now()
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		s.fatalf(t, "SIGTERM: %v", err)
	}
	select {
	case <-s.done:
	case <-time.After(drain + 3*time.Second):
		s.fatalf(t, "still running %v after SIGTERM with --drain-timeout %v", time.Since(start), drain)
	}
	took := time.Since(start)
	log := s.stderr.String()
	if s.waitErr == nil || took < drain || !strings.Contains(log, "drain timeout") || !strings.Contains(log, "DoGet") {
		s.fatalf(t, "exit after %v: %v; want non-zero after the %v drain, logging the DoGet it cut", took, s.waitErr, drain)
	}
	t.Logf("exited %v after SIGTERM: %v", took, s.waitErr)
}

// TestDamagedDiskThroughTheBinary is the damaged-disk acceptance test's
// check of the process (flightserver's TestDamagedDisk sweeps every
// component and damage in process): over a data directory where one
// table's Filter.db is a sparse 64 GiB file, another's Data.db a FIFO,
// another's TOC.txt a link to a file outside, each read fails at once
// with a status naming the file relative to the data directory and no
// absolute path, the intact tables are served, and SIGTERM exits within
// --drain-timeout.
func TestDamagedDiskThroughTheBinary(t *testing.T) {
	bin := buildServer(t)
	tmp := t.TempDir()
	data, snaps := filepath.Join(tmp, "data"), filepath.Join(tmp, "snaps")
	if err := copyTree(corpusSrc, data); err != nil {
		t.Fatal(err)
	}
	file := func(table, name string) string {
		dirs, _ := filepath.Glob(filepath.Join(data, "corpus", table+"-*"))
		if len(dirs) != 1 {
			t.Fatalf("table dir of corpus.%s: %v", table, dirs)
		}
		return filepath.Join(dirs[0], name)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	huge := file("clustered", "oa-1-big-Filter.db")
	must(os.Remove(huge))
	must(os.WriteFile(huge, nil, 0o644))
	must(os.Truncate(huge, 64<<30))
	fifo := file("ttls", "oa-2-big-Data.db")
	must(os.Remove(fifo))
	must(syscall.Mkfifo(fifo, 0o644))
	link := file("counters", "oa-3-big-TOC.txt")
	outside := filepath.Join(tmp, "outside-TOC.txt")
	must(os.Rename(link, outside))
	must(os.Symlink(outside, link))

	const drain = 3 * time.Second
	args := serverArgs(data, snaps)
	for i, a := range args {
		if a == "--drain-timeout" {
			args[i+1] = drain.String()
		}
	}
	s := startServerArgs(t, bin, args)
	c := dial(t, s)
	ctx := context.Background()
	for _, tc := range []struct {
		table, file string
		code        codes.Code
	}{
		{"clustered", huge, codes.DataLoss},
		{"ttls", fifo, codes.FailedPrecondition},
		{"counters", link, codes.FailedPrecondition},
	} {
		start := time.Now()
		qctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		_, err := c.GetFlightInfo(qctx, &flight.FlightDescriptor{Type: flight.DescriptorPATH, Path: []string{"corpus", tc.table}})
		cancel()
		took := time.Since(start)
		rel, _ := filepath.Rel(data, tc.file)
		msg := status.Convert(err).Message()
		if status.Code(err) != tc.code || took > 5*time.Second || !strings.Contains(msg, rel) || strings.Contains(msg, tmp) {
			s.fatalf(t, "GetFlightInfo corpus.%s: %v after %v; want %v at once naming %s, no path under %s", tc.table, err, took, tc.code, rel, tmp)
		}
		t.Logf("corpus.%s: %v after %v", tc.table, err, took)
	}
	info := wideInfo(ctx, t, s, c)
	if rows, _ := readAll(ctx, t, s, c, info); rows == 0 {
		s.fatalf(t, "corpus.wide: no rows beside the damaged tables")
	}
	start := time.Now()
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		s.fatalf(t, "SIGTERM: %v", err)
	}
	select {
	case <-s.done:
		t.Logf("exited %v after SIGTERM: %v", time.Since(start), s.waitErr)
	case <-time.After(drain + 3*time.Second):
		s.fatalf(t, "still running %v after SIGTERM with --drain-timeout %v", time.Since(start), drain)
	}
}
