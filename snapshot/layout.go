package snapshot

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"

	"github.com/sstable-flight/sstable-flight/snapshot/txnlog"
	"github.com/sstable-flight/sstable-flight/sstable/metadata"
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

// SkippedLink is a keyspace or table directory that is a symbolic link:
// never listed, never read (see skipLink). Target is where it points, as
// resolved then ("" when it resolves nowhere).
type SkippedLink struct {
	Path, Target string
}

// skipLink reports whether the entry e of dir is a symbolic link, and
// then tells skipped of it (when set). NB: keyspace and table
// directories are never entered through a link, wherever it points. One
// out of the data directory would serve what is not Cassandra's (the
// file system's other secrets, another node's data); one inside it only
// aliases another directory of it, which could show a table of a system
// keyspace under a user keyspace's name, which checkNames would not
// stop. Cassandra makes neither; an operator who moves a keyspace onto
// another disk mounts the disk there (a bind mount is a directory).
// Only the data directory itself may be a link: NewManager resolves it
// at start.
func skipLink(dir string, e fs.DirEntry, skipped func(SkippedLink)) bool {
	if e.Type()&fs.ModeSymlink == 0 {
		return false
	}
	if skipped != nil {
		p := filepath.Join(dir, e.Name())
		target, _ := filepath.EvalSymlinks(p)
		skipped(SkippedLink{Path: p, Target: target})
	}
	return true
}

// layout lists the tables and their SSTables under a Cassandra data
// directory, telling skipped (when set) of every link it skipped. Other
// entries (snapshots/, backups/, stray files such as schema.cql) are
// ignored, and so are keyspace and table directories that are symbolic
// links (skipLink); directories that cannot be read are errors. The
// server lists through a Lister (Lister.Layout, Lister.Find).
func layout(dataDir string, skipped func(SkippedLink)) ([]TableDir, error) {
	keyspaces, err := os.ReadDir(dataDir)
	if err != nil {
		return nil, fmt.Errorf("list data dir: %w", err)
	}
	var out []TableDir
	for _, ks := range keyspaces {
		if skipLink(dataDir, ks, skipped) || !ks.IsDir() {
			continue
		}
		ksDir := filepath.Join(dataDir, ks.Name())
		tables, err := os.ReadDir(ksDir)
		if err != nil {
			return nil, fmt.Errorf("list keyspace dir: %w", err)
		}
		for _, t := range tables {
			m := tableDirRE.FindStringSubmatch(t.Name())
			if m == nil || skipLink(ksDir, t, skipped) || !t.IsDir() {
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
// finished compaction obsoleted but has not deleted yet (see snapshot/txnlog).
// It fails with txnlog.ErrInProgress when it raced with Cassandra finishing a
// transaction; listing again resolves that.
func listSSTables(dir string) ([]SSTable, error) {
	entries, err := txnlog.LiveEntries(dir)
	if err != nil {
		return nil, err
	}
	byPrefix := map[string]*SSTable{}
	for _, e := range entries {
		d, err := metadata.ParseDescriptor(e.Name())
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

// findTable lists the directories of one table (more than one when the
// table was dropped and re-created: each has its table id) without
// walking the rest of the data directory, as layout would find them: a
// keyspace or table directory that is a symbolic link is not (skipLink),
// and skipped (when set) is told of it. Names must be validated by the
// caller: they are joined into a path.
func findTable(dataDir, keyspace, table string, skipped func(SkippedLink)) ([]TableDir, error) {
	ksDir := filepath.Join(dataDir, keyspace)
	st, err := os.Lstat(ksDir)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("stat keyspace dir: %w", err)
	}
	if skipLink(dataDir, fs.FileInfoToDirEntry(st), skipped) {
		return nil, nil
	}
	entries, err := os.ReadDir(ksDir)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("list keyspace dir: %w", err)
	}
	var out []TableDir
	for _, e := range entries {
		m := tableDirRE.FindStringSubmatch(e.Name())
		if m == nil || m[1] != table || skipLink(ksDir, e, skipped) || !e.IsDir() {
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
