package flightserver_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sstable-flight/sstable-flight/internal/testkit/diskdamage"
	"github.com/sstable-flight/sstable-flight/snapshot"
)

// damageModes are the snapshot modes the damaged-disk sweep runs in:
// Hardlink, which links each epoch's files, Live, which reads them in
// place, and Sidecar, which reads a Cassandra snapshot of them over HTTP.
var damageModes = []snapshot.Mode{snapshot.Hardlink, snapshot.Live, snapshot.Sidecar}

// damageFormat is one format's SSTable the sweep damages: generation 3 of
// corpus.timestamps, and what the intact table reads.
type damageFormat struct {
	name, prefix string
	components   []string
	want         map[string]string // by query
}

// TestDamagedDisk is issue #15's acceptance test for failing disks
// (internal/testkit/diskdamage): in each snapshot mode, every component of an
// SSTable of each format (nb, oa, da; corpus.timestamps generation 3,
// which holds the newest values of some rows, so leaving it out shows) is
// deleted, replaced by a directory, a FIFO, a symlink out of the data
// directory or a sparse 64 GiB file, or truncated in place while a server
// holds it open. Every query (scan, key reads, slice) then gets a clear
// error (DATA_LOSS, FAILED_PRECONDITION or UNAVAILABLE naming the table
// directory relative to the data directory and the file, with no
// absolute path of the server in it) or the intact table's rows; never
// OK with other rows, never a crash, never a hang, and Shutdown still
// returns at once. Cases are <mode>/<format>/<component>/<damage>, run
// in parallel, each with a server of its own; the damage is done before
// the server starts or under a running one, alternating between cases
// and between modes, so that each component and damage meets both
// (always under a running one for "truncated in place"). In Sidecar mode
// the fake Sidecar, the node, runs before the damage either way.
func TestDamagedDisk(t *testing.T) {
	start := time.Now()
	t.Cleanup(func() { t.Logf("%v", time.Since(start)) })
	var formats []damageFormat
	for _, name := range []string{"nb", "oa", "da"} {
		formats = append(formats, readDamageFormat(t, name))
	}
	for mi, mode := range damageModes {
		for _, f := range formats {
			for ci, component := range f.components {
				for di, d := range diskdamage.Damages {
					running := d.Open || (mi+ci+di/2)%2 == 0
					t.Run(fmt.Sprintf("%s/%s/%s/%s", mode, f.name, component, d.Name), func(t *testing.T) {
						t.Parallel()
						damagedDiskCase(t, f.prefix+"-"+component, d, mode, running, f.want)
					})
				}
			}
		}
	}
}

// readDamageFormat reads a format's intact table.
func readDamageFormat(t *testing.T, name string) damageFormat {
	t.Helper()
	f := damageFormat{name: name, prefix: diskdamage.Prefix(name), want: map[string]string{}}
	pristine := copyCorpusTables(t, name, "timestamps")
	dirs, _ := filepath.Glob(filepath.Join(pristine, "corpus", "timestamps-*"))
	toc, err := os.ReadFile(filepath.Join(dirs[0], f.prefix+"-TOC.txt"))
	must(t, err)
	f.components = strings.Fields(string(toc))
	ts := damageServer(t, snapshot.Live, pristine)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for _, q := range diskdamage.Queries("corpus", "p") {
		rows, err := queryRows(ctx, ts, q.Desc)
		if err != nil {
			t.Fatalf("%s: %s of the intact table: %v", name, q.Name, err)
		}
		f.want[q.Name] = rows
	}
	if !strings.Contains(f.want["scan"], "v=newer than partition delete") {
		t.Fatalf("%s: the intact table lacks generation 3's values:\n%s", name, f.want["scan"])
	}
	return f
}

func damagedDiskCase(t *testing.T, victim string, d diskdamage.Damage, mode snapshot.Mode, running bool, want map[string]string) {
	data := copyCorpusTables(t, victim[:2], "timestamps")
	root := filepath.Dir(data) // holds the data, snapshot and outside directories
	outside := filepath.Join(root, "outside")
	must(t, os.Mkdir(outside, 0o755))
	dirs, _ := filepath.Glob(filepath.Join(data, "corpus", "timestamps-*"))
	dir := dirs[0]
	file := filepath.Join(dir, victim)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	start := damageNode(t, mode, data)
	var ts *testServer
	if running {
		t.Log("damaged under a running server")
		ts = start()
		for _, q := range diskdamage.Queries("corpus", "p") {
			if _, err := queryRows(ctx, ts, q.Desc); err != nil {
				t.Fatalf("%s of the intact table: %v", q.Name, err)
			}
		}
		must(t, d.Apply(file, outside))
		time.Sleep(5 * time.Millisecond) // past the window
	} else {
		t.Log("damaged before the server started")
		must(t, d.Apply(file, outside))
		ts = start()
	}
	rel := "corpus/" + filepath.Base(dir) + "/"
	for _, q := range diskdamage.Queries("corpus", "p") {
		qctx, qcancel := context.WithTimeout(ctx, 20*time.Second)
		began := time.Now()
		rows, err := queryRows(qctx, ts, q.Desc)
		took := time.Since(began)
		qcancel()
		if err := diskdamage.Check(rows, err, want[q.Name], rel, victim, root); err != nil {
			t.Fatalf("%s after %v: %v", q.Name, took, err)
		}
		t.Logf("%s after %v: %v", q.Name, took, err)
	}
	sctx, scancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer scancel()
	began := time.Now()
	if err := ts.srv.Shutdown(sctx); err != nil || time.Since(began) > 2*time.Second {
		t.Fatalf("Shutdown: %v after %v", err, time.Since(began))
	}
	// Sidecar mode: none of our Cassandra snapshots is left on the node,
	// not even one whose creation failed half way.
	if left, _ := filepath.Glob(filepath.Join(dir, "snapshots", "*")); len(left) > 0 {
		t.Fatalf("snapshots left in the table directory after Shutdown: %v", left)
	}
}
