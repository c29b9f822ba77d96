package main_test

// Issue #15's damaged-disk acceptance test through the binary, in both
// snapshot modes: internal/testkit/diskdamage's sweep, one process per mode.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"

	"github.com/sstable-flight/sstable-flight/internal/testkit/corpus"
	"github.com/sstable-flight/sstable-flight/internal/testkit/diskdamage"
	"github.com/sstable-flight/sstable-flight/snapshot/sidecar/sidecartest"
)

// sweepCase is one damage to one component of a copy of corpus.timestamps
// that has a keyspace of its own.
type sweepCase struct {
	name     string // <format>/<component>/<damage>
	keyspace string
	format   string
	tableDir string // the table's directory
	victim   string // the damaged file's name
	damage   diskdamage.Damage
	running  bool // damaged under the running server, else before it starts
}

// TestDamagedDiskThroughTheBinary runs the damaged-disk sweep
// (flightserver's TestDamagedDisk runs it in process) against the binary
// in both snapshot modes: hardlink (--data-dir) and sidecar (--sidecar, a
// fake Sidecar in this process over the data directory). Each mode has one
// process over a data directory holding, for every component of
// generation 3 of corpus.timestamps in nb, oa and da and every damage, a
// copy of the table in a keyspace of its own, damaged before the process
// starts or under it (alternating, as in flightserver), and an intact copy
// per format. Cases are <mode>/<format>/<component>/<damage>, in
// parallel: each query gets the intact rows or a clear error naming the
// file relative to the data directory and no absolute path, at once; the
// intact copies are served throughout; and SIGTERM ends the process
// within --drain-timeout.
func TestDamagedDiskThroughTheBinary(t *testing.T) {
	bin := buildServer(t)
	for mi, mode := range []string{"hardlink", "sidecar"} {
		t.Run(mode, func(t *testing.T) { sweepBinary(t, bin, mi, mode) })
	}
}

func sweepBinary(t *testing.T, bin string, mi int, mode string) {
	const drain = 3 * time.Second
	tmp := t.TempDir()
	data, outside := filepath.Join(tmp, "data"), filepath.Join(tmp, "outside")
	must0(t, os.MkdirAll(outside, 0o755))
	formats := corpus.Modes
	var cases []sweepCase
	for _, format := range formats {
		src := must(filepath.Glob(filepath.Join("../../testdata/corpus", format, "corpus", "timestamps-*")))
		if len(src) != 1 {
			t.Fatalf("corpus.timestamps of %s: %v", format, src)
		}
		copyTableAs(t, src[0], data, "intact_"+format)
		prefix := diskdamage.Prefix(format)
		toc := must(os.ReadFile(filepath.Join(src[0], prefix+"-TOC.txt")))
		for ci, component := range strings.Fields(string(toc)) {
			for di, d := range diskdamage.Damages {
				ks := fmt.Sprintf("%s_%d_%d", format, ci, di)
				cases = append(cases, sweepCase{
					name: format + "/" + component + "/" + d.Name, keyspace: ks, format: format,
					tableDir: copyTableAs(t, src[0], data, ks), victim: prefix + "-" + component,
					damage: d, running: d.Open || (mi+ci+di/2)%2 == 0,
				})
			}
		}
	}
	args, key := withDrain(serverArgs(data, filepath.Join(tmp, "snaps")), drain), "p"
	if mode == "sidecar" {
		// The node runs before any damage: its snapshots link what it
		// has open, as Cassandra's do.
		side := sidecartest.New(data)
		t.Cleanup(side.Close)
		args = withDrain([]string{"--sidecar", side.URL, "--snapshot-dir", filepath.Join(tmp, "sidecar-state"),
			"--listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0", "--batch-rows", "1"}, drain)
		key = "key" // without --cassandra, columns are named from SSTable headers
	}
	args = append(args, "--snapshot-window", "1ms") // every query lists the table again
	for _, c := range cases {
		if !c.running {
			must0(t, c.damage.Apply(filepath.Join(c.tableDir, c.victim), outside))
		}
	}
	s := startServerArgs(t, bin, args)
	sw := sweeper{s: s, c: dial(t, s), key: key}
	want := map[string]map[string]string{} // by format, then query
	for _, format := range formats {
		want[format] = sw.intact(t, "intact_"+format, nil)
		if !strings.Contains(want[format]["scan"], "v=newer than partition delete") {
			s.fatalf(t, "%s: the intact table lacks generation 3's values:\n%s", format, want[format]["scan"])
		}
	}
	// After every case: the intact tables as they were, and SIGTERM.
	t.Cleanup(func() {
		for _, format := range formats {
			for q, rows := range sw.intact(t, "intact_"+format, nil) {
				if rows != want[format][q] {
					s.fatalf(t, "%s of intact_%s.timestamps after the sweep:\n%swant\n%s", q, format, rows, want[format][q])
				}
			}
		}
		if s.sigterm(t, drain); s.waitErr != nil {
			s.fatalf(t, "exit after SIGTERM: %v", s.waitErr)
		}
		// Sidecar mode: none of our Cassandra snapshots is left on the
		// node, not even one whose creation failed half way.
		if left, _ := filepath.Glob(filepath.Join(data, "*", "*", "snapshots", "*")); len(left) > 0 {
			t.Fatalf("%d snapshots left in the data directory after SIGTERM: %v", len(left), left[0])
		}
	})
	for _, sc := range cases {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			file := filepath.Join(sc.tableDir, sc.victim)
			if sc.running {
				t.Log("damaged under the running server")
				sw.intact(t, sc.keyspace, want[sc.format])
				must0(t, sc.damage.Apply(file, outside))
				time.Sleep(5 * time.Millisecond) // past the window
			} else {
				t.Log("damaged before the server started")
			}
			rel := sc.keyspace + "/" + filepath.Base(sc.tableDir) + "/"
			sw.damaged(t, sc.keyspace, want[sc.format], rel, sc.victim, tmp)
		})
	}
}

// sweeper makes the sweep's queries of one server.
type sweeper struct {
	s   *server
	c   flight.Client
	key string // the partition key column's name (diskdamage.Queries)
}

// queryResult is one sweep query's outcome.
type queryResult struct {
	rows string
	err  error
	took time.Duration
}

// run makes the sweep's queries of keyspace.timestamps at once.
func (sw sweeper) run(keyspace string) map[string]queryResult {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var mu sync.Mutex
	var wg sync.WaitGroup
	out := map[string]queryResult{}
	for _, q := range diskdamage.Queries(keyspace, sw.key) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			start := time.Now()
			rows, err := diskdamage.Rows(ctx, sw.c, q.Desc)
			mu.Lock()
			out[q.Name] = queryResult{rows, err, time.Since(start)}
			mu.Unlock()
		}()
	}
	wg.Wait()
	return out
}

// intact requires the sweep's queries of keyspace.timestamps to succeed,
// with want's rows unless want is nil, and returns the rows.
func (sw sweeper) intact(t *testing.T, keyspace string, want map[string]string) map[string]string {
	t.Helper()
	rows := map[string]string{}
	for name, r := range sw.run(keyspace) {
		if r.err != nil || (want != nil && r.rows != want[name]) {
			sw.s.fatalf(t, "%s of the intact %s.timestamps: %v, rows\n%swant\n%s", name, keyspace, r.err, r.rows, want[name])
		}
		rows[name] = r.rows
	}
	return rows
}

// damaged holds the sweep's queries of a damaged table to
// diskdamage.Check, each answered within 5 s.
func (sw sweeper) damaged(t *testing.T, keyspace string, want map[string]string, rel, victim, root string) {
	t.Helper()
	for name, r := range sw.run(keyspace) {
		if err := diskdamage.Check(r.rows, r.err, want[name], rel, victim, root); err != nil || r.took > 5*time.Second {
			sw.s.fatalf(t, "%s after %v: %v", name, r.took, err)
		}
		t.Logf("%s after %v: %v", name, r.took, r.err)
	}
}

// copyTableAs copies a corpus table directory's files into data as the
// same table of keyspace, its schema.cql saying so, and returns the copy.
func copyTableAs(t *testing.T, src, data, keyspace string) string {
	t.Helper()
	dst := filepath.Join(data, keyspace, filepath.Base(src))
	must0(t, os.MkdirAll(dst, 0o755))
	for _, e := range must(os.ReadDir(src)) {
		if e.IsDir() || e.Name() == "expected.json" {
			continue
		}
		b := must(os.ReadFile(filepath.Join(src, e.Name())))
		if e.Name() == "schema.cql" {
			b = []byte(strings.NewReplacer("KEYSPACE corpus ", "KEYSPACE "+keyspace+" ", "corpus.", keyspace+".").Replace(string(b)))
		}
		must0(t, os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644))
	}
	return dst
}
