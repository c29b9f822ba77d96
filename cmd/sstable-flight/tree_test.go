package main_test

// Copies and checksums of directory trees: the crash test's proof that
// Cassandra's files are untouched.

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// prepareDataDir copies the corpus to dir, the stand-in for Cassandra's
// data directory, and adds a Cassandra snapshot to the wide table's
// directory (hard links and a manifest, as nodetool snapshot makes). It
// returns the wide table's directory.
func prepareDataDir(t *testing.T, dir string) string {
	t.Helper()
	if err := copyTree(corpusSrc, dir); err != nil {
		t.Fatal(err)
	}
	wides, err := filepath.Glob(filepath.Join(dir, "corpus", "wide-*"))
	if err != nil || len(wides) != 1 {
		t.Fatalf("wide table dir in %s: %v %v", dir, wides, err)
	}
	wide := wides[0]
	backup := filepath.Join(wide, "snapshots", "backup1")
	if err := os.MkdirAll(backup, 0o755); err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join(wide, "*-big-*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("SSTable files in %s: %v %v", wide, files, err)
	}
	var names []string
	for _, f := range files {
		if err := os.Link(f, filepath.Join(backup, filepath.Base(f))); err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(f, "-Data.db") {
			names = append(names, filepath.Base(f))
		}
	}
	manifest, _ := json.Marshal(map[string]any{"files": names, "created_at": "2026-01-01T00:00:00Z", "expires_at": nil})
	if err := os.WriteFile(filepath.Join(backup, "manifest.json"), manifest, 0o644); err != nil {
		t.Fatal(err)
	}
	return wide
}

func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return os.MkdirAll(target, info.Mode().Perm()|0o700)
		case d.Type().IsRegular():
			in, err := os.Open(path)
			if err != nil {
				return err
			}
			defer in.Close()
			out, err := os.OpenFile(target, os.O_CREATE|os.O_EXCL|os.O_WRONLY, info.Mode().Perm())
			if err != nil {
				return err
			}
			if _, err := io.Copy(out, in); err != nil {
				out.Close()
				return err
			}
			return out.Close()
		default:
			return fmt.Errorf("copy corpus: %s is neither a file nor a directory", path)
		}
	})
}

// treeEntry is one file or directory of the data directory. Link counts
// are left out: our hard links change them legitimately.
type treeEntry struct {
	Path    string
	Mode    fs.FileMode
	Size    int64 // files only
	SHA256  string
	ModTime time.Time
}

func checksumTree(t *testing.T, dir string) []treeEntry {
	t.Helper()
	var out []treeEntry
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		e := treeEntry{Path: rel, Mode: info.Mode(), ModTime: info.ModTime()}
		if info.Mode().IsRegular() {
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			sum := sha256.Sum256(b)
			e.Size, e.SHA256 = info.Size(), hex.EncodeToString(sum[:])
		}
		out = append(out, e)
		return nil
	})
	if err != nil {
		t.Fatalf("checksum %s: %v", dir, err)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

func diffTrees(a, b []treeEntry) string {
	am, bm := map[string]treeEntry{}, map[string]treeEntry{}
	for _, e := range a {
		am[e.Path] = e
	}
	for _, e := range b {
		bm[e.Path] = e
	}
	var d []string
	for _, e := range a {
		if f, ok := bm[e.Path]; !ok {
			d = append(d, "removed: "+e.Path)
		} else if f != e {
			d = append(d, fmt.Sprintf("changed: %s: %+v -> %+v", e.Path, e, f))
		}
	}
	for _, e := range b {
		if _, ok := am[e.Path]; !ok {
			d = append(d, fmt.Sprintf("added: %s (%+v)", e.Path, e))
		}
	}
	return strings.Join(d, "\n")
}

func expectedRows(t *testing.T, tableDir string) int64 {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(tableDir, "expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	var exp struct {
		Rows []json.RawMessage `json:"rows"`
	}
	if err := json.Unmarshal(b, &exp); err != nil {
		t.Fatal(err)
	}
	if len(exp.Rows) == 0 {
		t.Fatalf("%s/expected.json has no rows", tableDir)
	}
	return int64(len(exp.Rows))
}

// epochDirs lists the epochs of corpus.wide under the snapshot dir.
func epochDirs(t *testing.T, snaps string) []string {
	t.Helper()
	var dirs []string
	m, err := filepath.Glob(filepath.Join(snaps, "corpus", "wide-*", "*"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range m {
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			dirs = append(dirs, p)
		}
	}
	return dirs
}

// treeNames lists everything below dir, relative to it.
func treeNames(dir string) []string {
	var out []string
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			out = append(out, fmt.Sprintf("(error %v)", err))
			return nil
		}
		if path != dir {
			rel, _ := filepath.Rel(dir, path)
			out = append(out, rel)
		}
		return nil
	})
	return out
}

func onlyMarker(names []string) bool { return len(names) == 1 && names[0] == snapMarker }

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// requireSameFile checks that a is a hard link of b.
func requireSameFile(t *testing.T, a, b string) {
	t.Helper()
	fa, err := os.Stat(a)
	if err != nil {
		t.Fatal(err)
	}
	fb, err := os.Stat(b)
	if err != nil {
		t.Fatal(err)
	}
	if !os.SameFile(fa, fb) {
		t.Fatalf("%s is not a hard link of %s", a, b)
	}
}
