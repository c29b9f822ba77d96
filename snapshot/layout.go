package snapshot

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"

	"github.com/sstable-flight/sstable-flight/sstable"
)

// TableDir is one table directory of a Cassandra data directory:
// <data>/<keyspace>/<table>-<id>/.
type TableDir struct {
	Keyspace string
	Table    string
	ID       string // table id, 32 hex digits, as in the directory name
	Path     string
	SSTables []SSTable
}

// SSTable is one SSTable in a table directory: its components by name.
type SSTable struct {
	Prefix     string // e.g. oa-3-big
	Version    string
	Format     string
	Components map[string]int64 // component → size in bytes
	// irregular are the components present but not as regular files
	// (directories, symbolic links): never read, but the SSTable is
	// listed, so that checkSSTables reports it rather than the epoch
	// leaving it out.
	irregular []string
}

// tableDirRE matches <table>-<id>: Cassandra appends the table id without
// dashes. Table names are [A-Za-z0-9_]+, so the last '-' splits.
var tableDirRE = regexp.MustCompile(`^(\w+)-([0-9a-f]{32})$`)

// Layout lists the tables and their SSTables under a Cassandra data
// directory. Other entries (snapshots/, backups/, stray files such as
// schema.cql) are ignored; directories that cannot be read are errors.
func Layout(dataDir string) ([]TableDir, error) {
	keyspaces, err := os.ReadDir(dataDir)
	if err != nil {
		return nil, fmt.Errorf("list data dir: %w", err)
	}
	var out []TableDir
	for _, ks := range keyspaces {
		if !ks.IsDir() {
			continue
		}
		tables, err := os.ReadDir(filepath.Join(dataDir, ks.Name()))
		if err != nil {
			return nil, fmt.Errorf("list keyspace dir: %w", err)
		}
		for _, t := range tables {
			m := tableDirRE.FindStringSubmatch(t.Name())
			if !t.IsDir() || m == nil {
				continue
			}
			td := TableDir{Keyspace: ks.Name(), Table: m[1], ID: m[2], Path: filepath.Join(dataDir, ks.Name(), t.Name())}
			if td.SSTables, err = listSSTables(td.Path); err != nil {
				return nil, err
			}
			out = append(out, td)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Keyspace != out[j].Keyspace {
			return out[i].Keyspace < out[j].Keyspace
		}
		return out[i].Table < out[j].Table
	})
	return out, nil
}

// listSSTables lists the SSTables Cassandra itself would load from dir:
// not those of a flush or compaction still in progress, nor those a
// finished compaction obsoleted but has not deleted yet (see txnlog.go).
// It fails with ErrTxnInProgress when it raced with Cassandra finishing a
// transaction; listing again resolves that.
func listSSTables(dir string) ([]SSTable, error) {
	entries, err := liveEntries(dir)
	if err != nil {
		return nil, err
	}
	byPrefix := map[string]*SSTable{}
	for _, e := range entries {
		d, err := sstable.ParseDescriptor(e.Name())
		if err != nil {
			continue // not an SSTable component
		}
		st := byPrefix[d.Prefix()]
		if st == nil {
			st = &SSTable{Prefix: d.Prefix(), Version: d.Version, Format: d.Format, Components: map[string]int64{}}
			byPrefix[d.Prefix()] = st
		}
		if !e.Type().IsRegular() {
			st.irregular = append(st.irregular, d.Component)
			continue
		}
		info, err := e.Info()
		if err != nil {
			return nil, fmt.Errorf("stat sstable component: %w", err)
		}
		st.Components[d.Component] = info.Size()
	}
	out := make([]SSTable, 0, len(byPrefix))
	for _, st := range byPrefix {
		out = append(out, *st)
	}
	sort.Slice(out, func(i, j int) bool { return lessPrefix(out[i].Prefix, out[j].Prefix) })
	return out, nil
}

// lessPrefix orders sequential generations numerically (oa-2 before oa-10).
func lessPrefix(a, b string) bool {
	if len(a) != len(b) {
		return len(a) < len(b)
	}
	return a < b
}

// FindTable lists the directories of one table (more than one when the
// table was dropped and re-created: each has its table id) without
// walking the rest of the data directory. Names must be validated by the
// caller: they are joined into a path.
func FindTable(dataDir, keyspace, table string) ([]TableDir, error) {
	entries, err := os.ReadDir(filepath.Join(dataDir, keyspace))
	if err != nil {
		if os.IsNotExist(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("list keyspace dir: %w", err)
	}
	var out []TableDir
	for _, e := range entries {
		m := tableDirRE.FindStringSubmatch(e.Name())
		if !e.IsDir() || m == nil || m[1] != table {
			continue
		}
		td := TableDir{Keyspace: keyspace, Table: table, ID: m[2], Path: filepath.Join(dataDir, keyspace, e.Name())}
		if td.SSTables, err = listSSTables(td.Path); err != nil {
			return nil, err
		}
		out = append(out, td)
	}
	return out, nil
}
