package flightserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/sstable-flight/sstable-flight/snapshot"
)

// diskDamage is one way a disk or an operator damages a component file.
type diskDamage struct {
	name string
	// open: only while a server holds the file open; else the damage is
	// done once before a server starts and once under a running one,
	// alternating between cases.
	open  bool
	apply func(t *testing.T, file, outside string)
}

var diskDamages = []diskDamage{
	{"deleted", false, func(t *testing.T, file, _ string) { must(t, os.Remove(file)) }},
	{"a directory", false, func(t *testing.T, file, _ string) {
		must(t, os.Remove(file))
		must(t, os.Mkdir(file, 0o755))
	}},
	{"a FIFO", false, func(t *testing.T, file, _ string) {
		must(t, os.Remove(file))
		must(t, syscall.Mkfifo(file, 0o644))
	}},
	{"a symlink out of the data dir", false, func(t *testing.T, file, outside string) {
		moved := filepath.Join(outside, fmt.Sprintf("%d-%s", time.Now().UnixNano(), filepath.Base(file)))
		must(t, os.Rename(file, moved))
		must(t, os.Symlink(moved, file))
	}},
	{"a huge file", false, func(t *testing.T, file, _ string) {
		// A new sparse file of 64 GiB: it costs no disk.
		must(t, os.Remove(file))
		must(t, os.WriteFile(file, nil, 0o644))
		must(t, os.Truncate(file, 64<<30))
	}},
	{"truncated in place", true, func(t *testing.T, file, _ string) {
		fi, err := os.Stat(file)
		must(t, err)
		must(t, os.Truncate(file, fi.Size()/2))
	}},
}

// damageQueries are the reads of corpus.timestamps the damaged-disk test
// makes: a scan, key reads (one absent) and a clustering slice.
func damageQueries() []query {
	cmd := func(v map[string]any) *flight.FlightDescriptor {
		v["version"], v["keyspace"], v["table"] = 1, "corpus", "timestamps"
		b, _ := json.Marshal(v)
		return &flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: b}
	}
	keys := []any{map[string]any{"p": 1}, map[string]any{"p": 2}, map[string]any{"p": 3}, map[string]any{"p": 99}}
	return []query{
		{"scan", path("corpus", "timestamps")},
		{"keys", cmd(map[string]any{"keys": keys})},
		{"slice", cmd(map[string]any{"keys": keys[:1], "clustering": map[string]any{"start": map[string]any{"values": []any{2}, "inclusive": true}}})},
	}
}

// TestDamagedDisk is issue #15's acceptance test for failing disks: every
// component of an SSTable of each format (nb, oa, da; corpus.timestamps
// generation 3, which holds the newest values of some rows, so leaving
// it out shows) is deleted, replaced by a directory, a FIFO, a symlink
// out of the data directory or a sparse 64 GiB file, or truncated in
// place while a server holds it open. Every query (scan, key reads,
// slice) then gets a clear error (DATA_LOSS, FAILED_PRECONDITION or
// UNAVAILABLE naming the table directory relative to the data directory,
// with no absolute path of the server in it) or the intact table's rows;
// never OK with other rows, never a crash, never a hang, and Shutdown
// still returns at once. Each damage kind meets each component kind of
// each format once, in Hardlink or Live mode and before a server starts
// or under a running one, alternating, to stay within its time.
func TestDamagedDisk(t *testing.T) {
	start := time.Now()
	for _, format := range []string{"nb", "oa", "da"} {
		pristine := copyCorpusTables(t, format, "timestamps")
		dirs, _ := filepath.Glob(filepath.Join(pristine, "corpus", "timestamps-*"))
		prefix := format + "-3-big"
		if format == "da" {
			prefix = "da-3-bti"
		}
		toc, err := os.ReadFile(filepath.Join(dirs[0], prefix+"-TOC.txt"))
		must(t, err)
		components := strings.Fields(string(toc))
		want := map[string]string{}
		ts := damageServer(t, snapshot.Live, pristine)
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		for _, q := range damageQueries() {
			rows, err := queryRows(ctx, ts, q.desc)
			if err != nil {
				t.Fatalf("%s: %s of the intact table: %v", format, q.name, err)
			}
			want[q.name] = rows
		}
		cancel()
		if !strings.Contains(want["scan"], "v=newer than partition delete") {
			t.Fatalf("%s: the intact table lacks generation 3's values:\n%s", format, want["scan"])
		}
		for ci, component := range components {
			for di, d := range diskDamages {
				mode := []snapshot.Mode{snapshot.Hardlink, snapshot.Live}[(ci+di)%2]
				running := d.open || (ci+di/2)%2 == 0
				when := "before start"
				if running {
					when = "under a running server"
				}
				t.Run(fmt.Sprintf("%s/%s/%s/%s/%s", format, component, d.name, mode, when), func(t *testing.T) {
					damagedDiskCase(t, format, prefix+"-"+component, d, mode, running, want)
				})
			}
		}
	}
	t.Logf("%v", time.Since(start))
}

func damagedDiskCase(t *testing.T, format, victim string, d diskDamage, mode snapshot.Mode, running bool, want map[string]string) {
	data := copyCorpusTables(t, format, "timestamps")
	root := filepath.Dir(data) // holds the data, snapshot and outside directories
	outside := filepath.Join(root, "outside")
	must(t, os.Mkdir(outside, 0o755))
	dirs, _ := filepath.Glob(filepath.Join(data, "corpus", "timestamps-*"))
	dir := dirs[0]
	file := filepath.Join(dir, victim)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var ts *testServer
	if running {
		ts = damageServer(t, mode, data)
		for _, q := range damageQueries() {
			if _, err := queryRows(ctx, ts, q.desc); err != nil {
				t.Fatalf("%s of the intact table: %v", q.name, err)
			}
		}
		d.apply(t, file, outside)
		time.Sleep(5 * time.Millisecond) // past the window
	} else {
		d.apply(t, file, outside)
		ts = damageServer(t, mode, data)
	}
	rel := "corpus/" + filepath.Base(dir) + "/"
	for _, q := range damageQueries() {
		qctx, qcancel := context.WithTimeout(ctx, 20*time.Second)
		began := time.Now()
		rows, err := queryRows(qctx, ts, q.desc)
		took := time.Since(began)
		qcancel()
		if err == nil {
			if rows != want[q.name] {
				t.Fatalf("%s: OK with rows\n%swant\n%s", q.name, rows, want[q.name])
			}
			t.Logf("%s: the intact rows, after %v", q.name, took)
			continue
		}
		msg := status.Convert(err).Message()
		switch status.Code(err) {
		case codes.DataLoss, codes.FailedPrecondition, codes.Unavailable:
		default:
			t.Fatalf("%s: %v after %v; want DATA_LOSS, FAILED_PRECONDITION or UNAVAILABLE", q.name, err, took)
		}
		if !strings.Contains(msg, rel+victim) {
			t.Fatalf("%s: %v; the message does not name %s%s", q.name, err, rel, victim)
		}
		if strings.Contains(msg, root) {
			t.Fatalf("%s: the message shows a server path under %s: %s", q.name, root, msg)
		}
		t.Logf("%s: %v after %v: %s", q.name, status.Code(err), took, msg)
	}
	sctx, scancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer scancel()
	began := time.Now()
	if err := ts.srv.Shutdown(sctx); err != nil || time.Since(began) > 2*time.Second {
		t.Fatalf("Shutdown: %v after %v", err, time.Since(began))
	}
}
