package flightserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/sstable-flight/sstable-flight/flightserver"
	"github.com/sstable-flight/sstable-flight/internal/testkit/diskdamage"
	"github.com/sstable-flight/sstable-flight/snapshot"
	"github.com/sstable-flight/sstable-flight/snapshot/sidecar"
	"github.com/sstable-flight/sstable-flight/snapshot/sidecar/sidecartest"
	"github.com/sstable-flight/sstable-flight/snapshot/txnlog"
)

// scanRows reads a whole table through GetFlightInfo and every endpoint,
// returning its rows rendered, or the first error.
func scanRows(ctx context.Context, ts *testServer, ks, table string) (string, error) {
	return queryRows(ctx, ts, path(ks, table))
}

// damageServer starts a server in one snapshot mode over data, with a
// window short enough that every query lists the table again.
func damageServer(t *testing.T, mode snapshot.Mode, data string) *testServer {
	t.Helper()
	return damageNode(t, mode, data)()
}

// damageNode is damageServer in two steps: in Sidecar mode the fake
// Sidecar, which stands for the running Cassandra node, starts at once
// and learns the SSTables it has open; the returned function starts the
// server.
func damageNode(t *testing.T, mode snapshot.Mode, data string) func() *testServer {
	t.Helper()
	const window = time.Millisecond
	if mode != snapshot.Sidecar {
		return func() *testServer {
			return startServer(t, "oa", func(c *flightserver.Config) {
				c.DataDir = data
				c.Snapshot = snapshot.Config{Mode: mode, Dir: filepath.Join(filepath.Dir(data), "snaps"), Window: window}
			})
		}
	}
	side := sidecartest.New(data)
	t.Cleanup(side.Close)
	schemas := loadCorpusSchemas(t, data)
	return func() *testServer {
		return startServer(t, "oa", func(c *flightserver.Config) {
			c.DataDir, c.Schemas = "", schemas
			c.Snapshot = snapshot.Config{Mode: snapshot.Sidecar, Sidecar: side.Client(sidecar.Options{}),
				Dir: filepath.Join(filepath.Dir(data), "sidecar-state"), Window: window}
		})
	}
}

// timestampsServer serves a copy of the corpus' timestamps table (three
// oa generations) in one snapshot mode (damageServer) and returns the
// copy's table directory, for the test to damage under the server.
func timestampsServer(t *testing.T, mode snapshot.Mode) (*testServer, string) {
	t.Helper()
	data := copyCorpusTable(t, "timestamps")
	dirs, _ := filepath.Glob(filepath.Join(data, "corpus", "timestamps-*"))
	if len(dirs) != 1 {
		t.Fatalf("timestamps table directories in %s: %v", data, dirs)
	}
	return damageServer(t, mode, data), dirs[0]
}

// TestIncompleteSSTableFailsTheRead is issue #13's finding 4: an SSTable
// of a multi-generation table whose Data.db (or another component its
// TOC lists) is missing, a directory or a symbolic link, or whose TOC.txt
// is damaged or missing, while no txn log makes it obsolete, fails the
// scan with a status naming the file relative to the data directory:
// DATA_LOSS when a component is missing or the TOC is damaged,
// FAILED_PRECONDITION when a component is not a regular file. Before,
// the SSTable was left out (OK with the older SSTables' values) or the
// cut retried for half a second and gave INTERNAL "the directory kept
// changing". corpus.timestamps has three SSTables; oa-3-big holds the
// newest values of some rows, so leaving it out changes the result. In
// Sidecar mode the code is Sidecar's: a link or a FIFO is missing from
// the snapshot's listing (DATA_LOSS), a directory fails the snapshot
// (UNAVAILABLE, naming the file).
//
// Each case first reads the intact table, then damages it under the
// running server, so the check runs where it matters: when a new epoch
// is cut after the server already served the table.
func TestIncompleteSSTableFailsTheRead(t *testing.T) {
	const victim = "oa-3-big"
	outside := t.TempDir() // a file outside the data directory for a link to point to
	for _, c := range []struct {
		name      string
		component string // of victim, named in the error
		damage    func(t *testing.T, dir string)
		code      codes.Code
		sideCode  codes.Code // in Sidecar mode
	}{
		{"Data.db deleted", "Data.db", remove(victim + "-Data.db"), codes.DataLoss, codes.DataLoss},
		{"Data.db a directory", "Data.db", func(t *testing.T, dir string) {
			remove(victim+"-Data.db")(t, dir)
			must(t, os.Mkdir(filepath.Join(dir, victim+"-Data.db"), 0o755))
		}, codes.FailedPrecondition, codes.Unavailable},
		{"Data.db a symlink inside the table dir", "Data.db", func(t *testing.T, dir string) {
			remove(victim+"-Data.db")(t, dir)
			must(t, os.Symlink("oa-1-big-Data.db", filepath.Join(dir, victim+"-Data.db")))
		}, codes.FailedPrecondition, codes.DataLoss},
		{"Data.db a symlink out of the data dir", "Data.db", func(t *testing.T, dir string) {
			moved := filepath.Join(outside, fmt.Sprintf("%d-Data.db", time.Now().UnixNano()))
			must(t, os.Rename(filepath.Join(dir, victim+"-Data.db"), moved))
			must(t, os.Symlink(moved, filepath.Join(dir, victim+"-Data.db")))
		}, codes.FailedPrecondition, codes.DataLoss},
		{"Statistics.db deleted", "Statistics.db", remove(victim + "-Statistics.db"), codes.DataLoss, codes.DataLoss},
		{"Index.db deleted", "Index.db", remove(victim + "-Index.db"), codes.DataLoss, codes.DataLoss},
		// Cassandra, and the fake Sidecar, link the components they read
		// from the TOC when they loaded the SSTable: the damaged TOC too.
		{"TOC.txt damaged", "TOC.txt", func(t *testing.T, dir string) {
			must(t, os.WriteFile(filepath.Join(dir, victim+"-TOC.txt"), []byte("Data.db\nStat\x00\xffistics.db\n"), 0o644))
		}, codes.DataLoss, codes.DataLoss},
		{"TOC.txt lists no Data.db", "TOC.txt", func(t *testing.T, dir string) {
			must(t, os.WriteFile(filepath.Join(dir, victim+"-TOC.txt"), []byte("Statistics.db\nIndex.db\nTOC.txt\n"), 0o644))
		}, codes.DataLoss, codes.DataLoss},
		// A snapshot links the components a node has open, TOC or not;
		// a link is linked as itself, which Sidecar does not list.
		{"TOC.txt deleted", "TOC.txt", remove(victim + "-TOC.txt"), codes.DataLoss, codes.DataLoss},
		{"TOC.txt a symlink", "TOC.txt", func(t *testing.T, dir string) {
			remove(victim+"-TOC.txt")(t, dir)
			must(t, os.Symlink("oa-1-big-TOC.txt", filepath.Join(dir, victim+"-TOC.txt")))
		}, codes.FailedPrecondition, codes.DataLoss},
	} {
		for _, mode := range []snapshot.Mode{snapshot.Hardlink, snapshot.Live, snapshot.Sidecar} {
			code := c.code
			if mode == snapshot.Sidecar {
				code = c.sideCode
			}
			t.Run(string(mode)+"/"+c.name, func(t *testing.T) {
				ts, dir := timestampsServer(t, mode)
				ctx := context.Background()
				want, err := scanRows(ctx, ts, "corpus", "timestamps")
				if err != nil || !strings.Contains(want, "v=newer than partition delete") {
					t.Fatalf("intact table: %v\n%s", err, want)
				}
				c.damage(t, dir)
				time.Sleep(5 * time.Millisecond) // past the window
				start := time.Now()
				got, err := scanRows(ctx, ts, "corpus", "timestamps")
				took := time.Since(start)
				if err == nil {
					t.Fatalf("scan of a table whose %s %s: OK after %v, rows\n%s(intact:\n%s)", victim, c.name, took, got, want)
				}
				msg := status.Convert(err).Message()
				file := filepath.ToSlash(filepath.Join("corpus", filepath.Base(dir))) + "/"
				if status.Code(err) != code || !strings.Contains(msg, file) || !strings.Contains(msg, victim+"-"+c.component) {
					t.Fatalf("scan: %v after %v; want %v naming %s…%s-%s", err, took, code, file, victim, c.component)
				}
				if strings.Contains(msg, "kept changing") {
					t.Fatalf("a stable directory reported as changing: %v", err)
				}
				t.Logf("%v after %v", err, took)
			})
		}
	}
}

func remove(name string) func(t *testing.T, dir string) {
	return func(t *testing.T, dir string) {
		t.Helper()
		must(t, os.Remove(filepath.Join(dir, name)))
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestObsoleteSSTableBeingDeleted: while Cassandra deletes an SSTable a
// committed compaction obsoleted (its files one by one, Data.db first,
// the txn log last), every scan answers OK with the table's rows: the log
// hides the incomplete SSTable until its files are gone. The compaction
// rewrote oa-3-big into oa-4-big unchanged, as upgradesstables or cleanup
// do, so the rows never change.
func TestObsoleteSSTableBeingDeleted(t *testing.T) {
	for _, mode := range []snapshot.Mode{snapshot.Hardlink, snapshot.Live} {
		t.Run(string(mode), func(t *testing.T) {
			ts, dir := timestampsServer(t, mode)
			ctx := context.Background()
			want, err := scanRows(ctx, ts, "corpus", "timestamps")
			if err != nil {
				t.Fatal(err)
			}
			old, _ := filepath.Glob(filepath.Join(dir, "oa-3-big-*"))
			mtime := time.UnixMilli(1700000000123)
			for _, f := range old {
				b, err := os.ReadFile(f)
				must(t, err)
				must(t, os.WriteFile(strings.Replace(f, "oa-3-big-", "oa-4-big-", 1), b, 0o644))
				must(t, os.Chtimes(f, mtime, mtime))
			}
			log := filepath.Join(dir, "oa_txn_compaction_9a1f0e40-5b8e-11ef-8c99-0242ac120002.log")
			line := func(typ txnlog.RecordType, path string, update int64, files int) string {
				return fmt.Sprintf("%s:[%s,%d,%d][%d]\n", typ, path, update, files, txnlog.RecordChecksum(typ, path, update, files))
			}
			must(t, os.WriteFile(log, []byte(
				line(txnlog.Add, filepath.Join(dir, "oa-4-big-"), 0, 0)+
					line(txnlog.Remove, filepath.Join(dir, "oa-3-big-"), mtime.UnixMilli(), len(old))+
					line(txnlog.Commit, "", 0, 0)), 0o644))
			check := func(stage string) {
				t.Helper()
				time.Sleep(5 * time.Millisecond) // past the window
				got, err := scanRows(ctx, ts, "corpus", "timestamps")
				if err != nil || got != want {
					t.Fatalf("%s: %v, rows\n%swant\n%s", stage, err, got, want)
				}
			}
			check("committed, nothing deleted yet")
			// The format's delete order: Data.db first, then the rest.
			for _, c := range []string{"Data.db", "CompressionInfo.db", "Statistics.db", "TOC.txt", "Filter.db", "Index.db", "Digest.crc32", "Summary.db"} {
				remove("oa-3-big-"+c)(t, dir)
				check(c + " deleted")
			}
			must(t, os.Remove(log))
			check("txn log deleted")
		})
	}
}

// query is a named descriptor of a read: a scan, key reads or a slice.
type query struct {
	name string
	desc *flight.FlightDescriptor
}

// keyQueries reads each key of a table with a one-column partition key
// by itself.
func keyQueries(ks, table, col string, keys ...any) []query {
	var out []query
	for _, k := range keys {
		b, _ := json.Marshal(map[string]any{"version": 1, "keyspace": ks, "table": table, "keys": []any{map[string]any{col: k}}})
		out = append(out, query{fmt.Sprintf("key %s=%v", col, k), &flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: b}})
	}
	return out
}

// queryRows reads a descriptor through GetFlightInfo and every endpoint,
// returning its rows rendered, or the first error.
func queryRows(ctx context.Context, ts *testServer, desc *flight.FlightDescriptor) (string, error) {
	return diskdamage.Rows(ctx, ts.client, desc)
}
