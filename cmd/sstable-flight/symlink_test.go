package main_test

// Issue #15, finding 10: paths are resolved before they are checked, and
// no link out of the data directory is followed: not a keyspace
// directory that links elsewhere, not a --snapshot-dir that reaches
// Cassandra's data directory through a link.

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// TestKeyspaceLinkOutNotServed: a keyspace directory that is a
// symbolic link out of the data directory is neither listed nor served
// (NOT_FOUND), and the server says once which link it skipped.
func TestKeyspaceLinkOutNotServed(t *testing.T) {
	bin := buildServer(t)
	tmp := t.TempDir()
	data, snaps, outside := filepath.Join(tmp, "data"), filepath.Join(tmp, "snaps"), filepath.Join(tmp, "outside")
	prepareDataDir(t, data)
	many := must(filepath.Glob(filepath.Join(data, "corpus", "many-*")))
	if len(many) != 1 {
		t.Fatalf("corpus.many in %s: %v", data, many)
	}
	if err := copyTree(many[0], filepath.Join(outside, filepath.Base(many[0]))); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(data, "leak")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}

	s := startServer(t, bin, data, snaps)
	c := dial(t, s)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for range 2 {
		_, err := c.GetFlightInfo(ctx, &flight.FlightDescriptor{Type: flight.DescriptorPATH, Path: []string{"leak", "many"}})
		if status.Code(err) != codes.NotFound {
			s.fatalf(t, "GetFlightInfo leak.many, a keyspace linked out of the data directory: %v, want NOT_FOUND", err)
		}
	}
	st, err := c.ListFlights(ctx, &flight.Criteria{})
	if err != nil {
		s.fatalf(t, "ListFlights: %v", err)
	}
	listed := 0
	for {
		info, err := st.Recv()
		if err != nil {
			break
		}
		listed++
		if p := info.FlightDescriptor.Path; len(p) > 0 && p[0] == "leak" {
			s.fatalf(t, "ListFlights lists %v, of a keyspace linked out of the data directory", p)
		}
	}
	if listed == 0 {
		s.fatalf(t, "ListFlights listed nothing: the corpus should be there")
	}
	if got := skippedLogs(s.stderr.String(), link); got != 1 {
		s.fatalf(t, "%d log lines name the skipped link %s, want 1", got, link)
	}
	s.terminate(t)
}

// skippedLogs counts the JSON log lines that name path as a skipped
// link.
func skippedLogs(log, path string) int {
	n := 0
	for _, line := range strings.Split(log, "\n") {
		var rec map[string]any
		if json.Unmarshal([]byte(line), &rec) == nil && rec["path"] == path && strings.Contains(rec["msg"].(string), "link") {
			n++
		}
	}
	return n
}

// TestSnapshotDirResolved: --snapshot-dir and --data-dir are compared as
// resolved paths: a snapshot directory inside the data directory through
// a link is refused, and nothing is made inside it; a data directory
// given through a link still serves.
func TestSnapshotDirResolved(t *testing.T) {
	bin := buildServer(t)
	tmp := t.TempDir()
	data := filepath.Join(tmp, "data")
	prepareDataDir(t, data)
	dataLink, intoData := filepath.Join(tmp, "datalink"), filepath.Join(tmp, "intodata")
	for link, target := range map[string]string{dataLink: data, intoData: filepath.Join(data, "corpus")} {
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	before := checksumTree(t, data)
	for _, tc := range []struct{ name, data, snaps string }{
		{"snapshot dir through a link into the data dir", data, filepath.Join(intoData, "snaps")},
		{"data dir through a link, snapshot dir inside it", dataLink, filepath.Join(data, "snaps")},
		{"snapshot dir is the data dir through a link", data, dataLink},
	} {
		t.Run(tc.name, func(t *testing.T) {
			requireRefused(t, bin, nil, []string{"inside Cassandra's data directory"}, serverArgs(tc.data, tc.snaps)...)
		})
	}
	if d := diffTrees(before, checksumTree(t, data)); d != "" {
		t.Fatalf("a refused server changed the data directory:\n%s", d)
	}

	t.Run("data dir through a link serves", func(t *testing.T) {
		s := startServer(t, bin, dataLink, filepath.Join(tmp, "snaps"))
		c := dial(t, s)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if rows, _ := readAll(ctx, t, s, c, wideInfo(ctx, t, s, c)); rows == 0 {
			s.fatalf(t, "no rows of corpus.wide through a linked data directory")
		}
		c.Close()
		s.terminate(t)
	})
}
