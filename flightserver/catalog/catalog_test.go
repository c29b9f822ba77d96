package catalog

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sstable-flight/sstable-flight/sstable"
)

// corpusDir finds the oa corpus directory of a table.
func corpusDir(t *testing.T, table string) (dir, id string) {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join("..", "..", "testdata", "corpus", "oa", "corpus", table+"-*"))
	if err != nil || len(dirs) != 1 {
		t.Fatalf("find corpus table %s: %v %v", table, dirs, err)
	}
	return dirs[0], strings.TrimPrefix(filepath.Base(dirs[0]), table+"-")
}

// openDir opens every SSTable of a directory.
func openDir(t *testing.T, dir string) func() ([]*sstable.Reader, error) {
	return func() ([]*sstable.Reader, error) {
		files, err := filepath.Glob(filepath.Join(dir, "*-Data.db"))
		if err != nil {
			return nil, err
		}
		var out []*sstable.Reader
		for _, f := range files {
			r, err := sstable.Open(f, sstable.Options{})
			if err != nil {
				return nil, err
			}
			t.Cleanup(func() { r.Close() })
			out = append(out, r)
		}
		return out, nil
	}
}

func noReaders(t *testing.T) func() ([]*sstable.Reader, error) {
	return func() ([]*sstable.Reader, error) {
		t.Error("SSTable headers read although a better source exists")
		return nil, errors.New("not expected")
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestCatalogFallbacks walks the Catalog's sources without Cassandra:
// schema.cql when the directory has one for the table, the headers
// otherwise, and never a schema whose id is not the directory's.
func TestCatalogFallbacks(t *testing.T) {
	ctx := context.Background()
	c := New(Options{})
	dir, id := corpusDir(t, "udts")

	tab, err := c.Table(ctx, "corpus", "udts", dir, noReaders(t))
	if err != nil {
		t.Fatal(err)
	}
	if tab.Source != SourceSchemaCQL || tab.ID != id || len(tab.Columns) != 8 {
		t.Errorf("from schema.cql: source %s id %s %d columns", tab.Source, tab.ID, len(tab.Columns))
	}

	// The same directory's SSTables without schema.cql: headers.
	bare := filepath.Join(t.TempDir(), "udts-"+id)
	if err := os.Mkdir(bare, 0o755); err != nil {
		t.Fatal(err)
	}
	tab, err = c.Table(ctx, "corpus", "udts", bare, openDir(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	if tab.Source != SourceHeader || tab.ID != id || tab.Columns[0].Name != "key" {
		t.Errorf("from headers: source %s id %s first column %s", tab.Source, tab.ID, tab.Columns[0].Name)
	}

	// A schema.cql of another incarnation of the table (other id).
	other := filepath.Join(t.TempDir(), "udts-"+strings.Repeat("0", 32))
	if err := os.Mkdir(other, 0o755); err != nil {
		t.Fatal(err)
	}
	copyFile(t, filepath.Join(dir, SchemaFile), filepath.Join(other, SchemaFile))
	tab, err = c.Table(ctx, "corpus", "udts", other, openDir(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	if tab.Source != SourceHeader || tab.ID != strings.Repeat("0", 32) {
		t.Errorf("schema.cql with another id: source %s id %s", tab.Source, tab.ID)
	}

	// A schema.cql that does not define the table: headers.
	tab, err = c.Table(ctx, "corpus", "nope", dir, openDir(t, dir))
	if err != nil || tab.Source != SourceHeader {
		t.Errorf("table missing from schema.cql: %v %v", tab, err)
	}

	// Nothing at all.
	if _, err := c.Table(ctx, "corpus", "nope", "", nil); !errors.Is(err, ErrNotFound) {
		t.Errorf("no source: %v", err)
	}
	empty := func() ([]*sstable.Reader, error) { return nil, nil }
	if _, err := c.Table(ctx, "corpus", "nope", t.TempDir(), empty); !errors.Is(err, ErrNotFound) {
		t.Errorf("no SSTables: %v", err)
	}

	// Names that could escape the data directory never reach the disk.
	for _, bad := range [][2]string{{"..", "t"}, {"corpus", "../../etc"}, {"", "t"}, {"a/b", "t"}} {
		if _, err := c.Table(ctx, bad[0], bad[1], dir, noReaders(t)); err == nil || !strings.Contains(err.Error(), "invalid name") {
			t.Errorf("%q.%q: %v", bad[0], bad[1], err)
		}
	}
}

// TestCatalogSchemaFile checks that a malformed schema.cql is an error
// naming the file (not a silent fall back to headers), and that an edited
// file is read again.
func TestCatalogSchemaFile(t *testing.T) {
	ctx := context.Background()
	c := New(Options{})
	dir := filepath.Join(t.TempDir(), "t-"+strings.Repeat("a", 32))
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, SchemaFile)
	write := func(s string) {
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("CREATE TABLE ks.t (k int PRIMARY KEY, a text);")
	tab, err := c.Table(ctx, "ks", "t", dir, noReaders(t))
	if err != nil || len(tab.Columns) != 2 || tab.Source != SourceSchemaCQL {
		t.Fatalf("first read: %+v %v", tab, err)
	}
	write("CREATE TABLE ks.t (k int PRIMARY KEY, a text, bb int);")
	tab, err = c.Table(ctx, "ks", "t", dir, noReaders(t))
	if err != nil || len(tab.Columns) != 3 {
		t.Fatalf("after the edit: %+v %v", tab, err)
	}
	write("CREATE TABLE ks.t (k int PRIMARY KEY, a text, bb int")
	_, err = c.Table(ctx, "ks", "t", dir, noReaders(t))
	var se *SyntaxError
	if !errors.As(err, &se) || se.File != path || !strings.Contains(err.Error(), path+":1:") {
		t.Errorf("malformed file: %v", err)
	}
}

// IsSystemKeyspace follows Cassandra's SchemaConstants.isSystemKeyspace:
// the fixed names, in any case; a user keyspace that only starts with
// "system" (which Cassandra lets a user create) is not one.
func TestIsSystemKeyspace(t *testing.T) {
	for _, ks := range []string{"system", "system_schema", "system_auth", "system_distributed", "system_traces",
		"system_views", "system_virtual_schema", "system_cluster_metadata", "system_accord", "system_metrics", "System_Auth", "SYSTEM"} {
		if !IsSystemKeyspace(ks) {
			t.Errorf("%s: not a system keyspace", ks)
		}
	}
	for _, ks := range []string{"", "s", "sys", "systems", "system_foo", "systemauth", "my_system", "ks", "corpus"} {
		if IsSystemKeyspace(ks) {
			t.Errorf("%s: a system keyspace", ks)
		}
	}
}
