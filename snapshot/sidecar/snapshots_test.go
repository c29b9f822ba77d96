package sidecar_test

import (
	"context"
	"errors"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sstable-flight/sstable-flight/snapshot/sidecar"
	"github.com/sstable-flight/sstable-flight/sstable"
)

// TestSnapshotRoundTrip: create links the live SSTables into the table's
// snapshots directory, list shows them with their sizes and table id,
// a second create conflicts, and delete removes the snapshot.
func TestSnapshotRoundTrip(t *testing.T) {
	f := newFixture(t)
	c := f.client(sidecar.Options{})
	ctx := context.Background()
	dir := f.tables["deletions"]
	if err := c.CreateSnapshot(ctx, keyspace, "deletions", "epoch-1"); err != nil {
		t.Fatal(err)
	}
	files, err := c.ListSnapshot(ctx, keyspace, "deletions", "epoch-1")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	tableID := strings.TrimPrefix(filepath.Base(dir), "deletions-")
	for _, fi := range files {
		names = append(names, fi.FileName)
		if fi.Keyspace != keyspace || fi.Table != "deletions" || fi.TableID != tableID || fi.Snapshot != "epoch-1" || fi.DataDirIndex != 0 {
			t.Errorf("listing entry %+v: wrong keyspace, table, id, snapshot or data directory", fi)
		}
		st, err := os.Stat(filepath.Join(dir, "snapshots", "epoch-1", fi.FileName))
		if err != nil || st.Size() != fi.Size {
			t.Errorf("%s: listed size %d, on disk %v %v", fi.FileName, fi.Size, st, err)
		}
		if fi.FileName == "schema.cql" || fi.FileName == "manifest.json" {
			continue // written for the snapshot
		}
		if live, err := os.Stat(filepath.Join(dir, fi.FileName)); err != nil || !os.SameFile(live, st) {
			t.Errorf("%s: snapshot file is not a hard link of the live one", fi.FileName)
		}
	}
	slices.Sort(names)
	var want []string
	tocs, _ := filepath.Glob(filepath.Join(dir, "*-TOC.txt"))
	for _, toc := range tocs {
		b, err := os.ReadFile(toc)
		if err != nil {
			t.Fatal(err)
		}
		prefix := strings.TrimSuffix(filepath.Base(toc), "TOC.txt")
		for _, comp := range append(strings.Fields(string(b)), "TOC.txt") {
			want = append(want, prefix+comp)
		}
	}
	slices.Sort(want)
	components := slices.Compact(want)
	want = append(slices.Clone(components), "manifest.json", "schema.cql")
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Errorf("listed %v, want %v", names, want)
	}
	manifest, err := os.ReadFile(filepath.Join(dir, "snapshots", "epoch-1", "manifest.json"))
	if err != nil || !strings.Contains(string(manifest), `"oa-1-big-Data.db"`) {
		t.Errorf("manifest.json %s (%v) does not name the Data.db files", manifest, err)
	}

	if err := c.CreateSnapshot(ctx, keyspace, "deletions", "epoch-1"); !errors.Is(err, fs.ErrExist) {
		t.Errorf("second create: %v, want fs.ErrExist", err)
	}
	if err := c.DeleteSnapshot(ctx, keyspace, "deletions", "epoch-1"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "snapshots", "epoch-1")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("snapshot directory still there after delete: %v", err)
	}
	if _, err := c.ListSnapshot(ctx, keyspace, "deletions", "epoch-1"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("list after delete: %v, want fs.ErrNotExist", err)
	}
	if err := c.DeleteSnapshot(ctx, keyspace, "deletions", "epoch-1"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("second delete: %v, want fs.ErrNotExist", err)
	}
	for _, live := range components {
		if _, err := os.Stat(filepath.Join(dir, live)); err != nil {
			t.Errorf("live file %s gone after delete: %v", live, err)
		}
	}
}

// TestNotFound: every way of naming something Sidecar does not have is
// an error matching fs.ErrNotExist that names the route and status.
func TestNotFound(t *testing.T) {
	f := newFixture(t)
	c := f.client(sidecar.Options{})
	ctx := context.Background()
	if err := c.CreateSnapshot(ctx, keyspace, "wide", "s1"); err != nil {
		t.Fatal(err)
	}
	cases := map[string]func() error{
		"list unknown keyspace": func() error { _, err := c.ListSnapshot(ctx, "nokeyspace", "wide", "s1"); return err },
		"list unknown table":    func() error { _, err := c.ListSnapshot(ctx, keyspace, "notable", "s1"); return err },
		"list unknown snapshot": func() error { _, err := c.ListSnapshot(ctx, keyspace, "wide", "s2"); return err },
		"create unknown table":  func() error { return c.CreateSnapshot(ctx, keyspace, "notable", "s1") },
		"delete unknown table":  func() error { return c.DeleteSnapshot(ctx, keyspace, "notable", "s1") },
		"open in unknown snapshot": func() error {
			_, err := sstable.Open("oa-1-big-Data.db", sstable.Options{FS: c.FS(keyspace, "wide", "s2")})
			return err
		},
		"open unknown component": func() error {
			_, _, err := c.FS(keyspace, "wide", "s1").Open("x/oa-9-big-Data.db")
			return err
		},
	}
	for name, call := range cases {
		t.Run(name, func(t *testing.T) {
			err := call()
			if !errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("error %v does not match fs.ErrNotExist", err)
			}
			var se *sidecar.StatusError
			if errors.As(err, &se) && (se.Code != http.StatusNotFound || !strings.Contains(err.Error(), "/api/v1/keyspaces/") || !strings.Contains(err.Error(), "404")) {
				t.Errorf("error %v does not name the route and status", err)
			}
		})
	}

	// A component that disappears after the listing: the read is the error.
	sfs := c.FS(keyspace, "wide", "s1")
	file, _, err := sfs.Open("oa-1-big-Data.db")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(f.tables["wide"], "snapshots", "s1", "oa-1-big-Data.db")); err != nil {
		t.Fatal(err)
	}
	if _, err := file.ReadAt(make([]byte, 10), 0); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("read of a removed component: %v, want fs.ErrNotExist", err)
	}
}

// TestNamesRefused: names that are not one path segment never reach the
// server; the fake refuses them too when sent raw, and nothing outside a
// snapshot directory is ever served.
func TestNamesRefused(t *testing.T) {
	f := newFixture(t)
	c := f.client(sidecar.Options{})
	ctx := context.Background()
	for _, bad := range []string{"", ".", "..", "a/b", "../x", "a\x00b", `a\b`} {
		if err := c.CreateSnapshot(ctx, keyspace, "wide", bad); !errors.Is(err, sidecar.ErrInvalidName) {
			t.Errorf("create snapshot %q: %v, want ErrInvalidName", bad, err)
		}
		if _, err := c.ListSnapshot(ctx, bad, "wide", "s"); !errors.Is(err, sidecar.ErrInvalidName) {
			t.Errorf("list keyspace %q: %v, want ErrInvalidName", bad, err)
		}
		if err := c.DeleteSnapshot(ctx, keyspace, bad, "s"); !errors.Is(err, sidecar.ErrInvalidName) {
			t.Errorf("delete table %q: %v, want ErrInvalidName", bad, err)
		}
	}
	if n := len(f.fake.Requests()); n != 0 {
		t.Errorf("%d requests reached the server", n)
	}

	if err := c.CreateSnapshot(ctx, keyspace, "wide", "s1"); err != nil {
		t.Fatal(err)
	}
	// A secret next to the data directory, and one in the live table
	// directory that a snapshot name of ".." would reach.
	if err := os.WriteFile(filepath.Join(filepath.Dir(f.dataDir), "secret.db"), []byte("secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	tableDir := filepath.Base(f.tables["wide"])
	for _, path := range []string{
		"/api/v1/keyspaces/corpus/tables/" + tableDir + "/snapshots/%2E%2E/components/oa-1-big-Data.db",
		"/api/v1/keyspaces/corpus/tables/" + tableDir + "/snapshots/s1/components/..%2F..%2F..%2F..%2Fsecret.db",
		"/api/v1/keyspaces/corpus/tables/" + tableDir + "/snapshots/s1/components/%2E%2E",
		"/api/v1/keyspaces/corpus/tables/wide%2F..%2F..%2F/snapshots/s1/components/oa-1-big-Data.db",
		"/api/v1/keyspaces/%2E%2E/tables/wide/snapshots/s1",
		"/api/v1/keyspaces/corpus/tables/wide/snapshots/..%2F..%2F..",
		"/api/v1/keyspaces/corpus/tables/" + tableDir + "/snapshots/s1/components/oa-1-big-Data.db?dataDirectoryIndex=7",
		"/api/v1/keyspaces/corpus/tables/" + tableDir + "/snapshots/s1/components/oa-1-big-Digest.crc32",
	} {
		resp, err := http.Get(f.fake.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest && resp.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s: %s, want 400 or 404", path, resp.Status)
		}
	}
	for _, method := range []string{http.MethodPut, http.MethodDelete} {
		req, _ := http.NewRequest(method, f.fake.URL+"/api/v1/keyspaces/corpus/tables/wide/snapshots/%2E%2E", nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("%s snapshot \"..\": %s, want 400", method, resp.Status)
		}
	}
	if _, err := os.Stat(f.tables["wide"]); err != nil {
		t.Errorf("live table directory damaged: %v", err)
	}
}
