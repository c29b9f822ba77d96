package snapshot

import (
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"
)

// TestLinkedDirsNotFollowed: keyspace and table directories that are
// symbolic links, out of the data directory or within it, are neither
// listed (layout, Lister.Layout) nor found (findTable, Lister.Find), and the Lister
// tells of each once however often it meets it.
func TestLinkedDirsNotFollowed(t *testing.T) {
	tmp := t.TempDir()
	data, outside := filepath.Join(tmp, "data"), filepath.Join(tmp, "outside")
	const id = "0123456789abcdef0123456789abcdef"
	for _, d := range []string{filepath.Join(data, "ks", "t-"+id), filepath.Join(outside, "ks", "t-"+id)} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "oa-1-big-Data.db"), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		filepath.Join(data, "ks_out"):      filepath.Join(outside, "ks"),          // keyspace, out
		filepath.Join(data, "ks_in"):       filepath.Join(data, "ks"),             // keyspace, within
		filepath.Join(data, "ks", "u-"+id): filepath.Join(outside, "ks", "t-"+id), // table, out
		filepath.Join(data, "ks", "v-"+id): filepath.Join(data, "ks", "t-"+id),    // table, within
		filepath.Join(data, "ks_gone"):     filepath.Join(outside, "nothing"),     // dangling
	}
	for link, target := range links {
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}

	tables, err := layout(data, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(tables) != 1 || tables[0].Keyspace != "ks" || tables[0].Table != "t" {
		t.Fatalf("layout: %+v, want ks.t alone", tables)
	}
	var told []SkippedLink
	l := NewLister(data, func(s SkippedLink) { told = append(told, s) })
	for range 2 {
		if _, err := l.Layout(); err != nil {
			t.Fatal(err)
		}
		for _, kt := range [][2]string{{"ks_out", "t"}, {"ks_in", "t"}, {"ks", "u"}, {"ks", "v"}, {"ks_gone", "t"}} {
			dirs, err := findTable(data, kt[0], kt[1], nil)
			if err != nil || len(dirs) != 0 {
				t.Errorf("findTable %s.%s: %+v, %v; want nothing", kt[0], kt[1], dirs, err)
			}
			if dirs, err = l.Find(kt[0], kt[1]); err != nil || len(dirs) != 0 {
				t.Errorf("Lister.Find %s.%s: %+v, %v; want nothing", kt[0], kt[1], dirs, err)
			}
		}
		if dirs, err := l.Find("ks", "t"); err != nil || len(dirs) != 1 {
			t.Errorf("Lister.Find ks.t: %+v, %v; want its directory", dirs, err)
		}
	}
	var paths []string
	for _, s := range told {
		paths = append(paths, s.Path)
		if want, _ := filepath.EvalSymlinks(links[s.Path]); s.Target != want {
			t.Errorf("%s: told target %q, want %q", s.Path, s.Target, want)
		}
	}
	var want []string
	for link := range links {
		want = append(want, link)
	}
	sort.Strings(paths)
	sort.Strings(want)
	if !reflect.DeepEqual(paths, want) {
		t.Errorf("told of %v, want each link once: %v", paths, want)
	}
}

// TestDataDirResolved: the data directory given through a link resolves
// to the directory itself, and a snapshot directory is checked against
// that: inside it through a link, or not yet existing below a link into
// it, is refused.
func TestDataDirResolved(t *testing.T) {
	tmp := t.TempDir()
	data := filepath.Join(tmp, "data")
	if err := os.Mkdir(data, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(tmp, "link")
	if err := os.Symlink(data, link); err != nil {
		t.Fatal(err)
	}
	real, err := filepath.EvalSymlinks(data)
	if err != nil {
		t.Fatal(err)
	}
	c := Config{DataDir: link, Mode: Live}
	if err := c.resolve(); err != nil {
		t.Fatal(err)
	}
	if c.DataDir != real {
		t.Errorf("DataDir %s resolved to %s, want %s", link, c.DataDir, real)
	}
	for _, dir := range []string{filepath.Join(link, "snaps"), filepath.Join(link, "a", "b"), link, tmp} {
		if r, err := openRoot(dir, real); err == nil {
			r.close()
			t.Errorf("openRoot(%s) beside data dir %s: accepted", dir, real)
		}
	}
	if _, err := os.Stat(filepath.Join(data, "snaps")); !os.IsNotExist(err) {
		t.Errorf("a refused snapshot dir was made inside the data dir: %v", err)
	}
	r, err := openRoot(filepath.Join(tmp, "snaps"), real)
	if err != nil {
		t.Fatal(err)
	}
	r.close()
}
