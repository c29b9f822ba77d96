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

// corpusCopy copies the oa corpus into a new data directory and returns
// it, with the snapshot directory beside it.
func corpusCopy(t *testing.T) (data, snaps string) {
	t.Helper()
	tmp := t.TempDir()
	data, snaps = filepath.Join(tmp, "data"), filepath.Join(tmp, "snaps")
	if err := copyTree(corpusSrc, data); err != nil {
		t.Fatal(err)
	}
	return data, snaps
}

// corpusTableDir is the directory of corpus.<table> under data.
func corpusTableDir(t *testing.T, data, table string) string {
	t.Helper()
	dirs, _ := filepath.Glob(filepath.Join(data, "corpus", table+"-*"))
	if len(dirs) != 1 {
		t.Fatalf("table dir of corpus.%s: %v", table, dirs)
	}
	return dirs[0]
}

// TestFIFOsNeverHangTheServer: a table whose schema.cql is a FIFO and one
// with a FIFO named as a txn log fail their reads promptly with a status
// naming the file, other tables are still served, and SIGTERM exits
// within --drain-timeout. Before, both reads waited until the client
// gave up (the server's handler never returned), and SIGTERM with
// --drain-timeout 3s never exited.
func TestFIFOsNeverHangTheServer(t *testing.T) {
	bin := buildServer(t)
	data, snaps := corpusCopy(t)
	schema := filepath.Join(corpusTableDir(t, data, "timestamps"), "schema.cql")
	must0(t, os.Remove(schema))
	must0(t, syscall.Mkfifo(schema, 0o644))
	const txnLog = "oa_txn_compaction_9a1f0e40-5b8e-11ef-8c99-0242ac120002.log"
	must0(t, syscall.Mkfifo(filepath.Join(corpusTableDir(t, data, "deletions"), txnLog), 0o644))

	const drain = 3 * time.Second
	s := startServerArgs(t, bin, withDrain(serverArgs(data, snaps), drain))
	c := dial(t, s)
	ctx := context.Background()
	for _, tc := range []struct{ table, names string }{
		{"timestamps", "schema.cql"},
		{"deletions", txnLog},
	} {
		t.Run(tc.table, func(t *testing.T) {
			start := time.Now()
			qctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			_, err := c.GetFlightInfo(qctx, &flight.FlightDescriptor{Type: flight.DescriptorPATH, Path: []string{"corpus", tc.table}})
			cancel()
			took := time.Since(start)
			if err == nil || status.Code(err) == codes.DeadlineExceeded || took > 5*time.Second || !strings.Contains(status.Convert(err).Message(), tc.names) {
				s.fatalf(t, "GetFlightInfo corpus.%s with a FIFO for %s: %v after %v; want an error naming it, at once", tc.table, tc.names, err, took)
			}
			t.Logf("corpus.%s: %v after %v", tc.table, err, took)
		})
	}
	// The other tables are served as ever.
	if rows, _ := readAll(ctx, t, s, c, wideInfo(ctx, t, s, c)); rows == 0 {
		s.fatalf(t, "corpus.wide: no rows beside the FIFOs")
	}
	s.sigterm(t, drain+3*time.Second)
}

// TestDrainTimeoutIsAHardBound: a stream whose client stopped reading
// holds the drain until --drain-timeout; then the process exits, within
// a small slack, non-zero, logging what it cut.
func TestDrainTimeoutIsAHardBound(t *testing.T) {
	bin := buildServer(t)
	data, snaps := corpusCopy(t)
	const drain = 2 * time.Second
	s := startServerArgs(t, bin, withDrain(serverArgs(data, snaps), drain))
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
	took := s.sigterm(t, drain+3*time.Second)
	log := s.stderr.String()
	if s.waitErr == nil || took < drain || !strings.Contains(log, "drain timeout") || !strings.Contains(log, "DoGet") {
		s.fatalf(t, "exit after %v: %v; want non-zero after the %v drain, logging the DoGet it cut", took, s.waitErr, drain)
	}
}

// must0 fails the test on err.
func must0(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
