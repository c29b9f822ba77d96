package snapshot

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/sstable-flight/sstable-flight/snapshot/sidecar"
	"github.com/sstable-flight/sstable-flight/sstable/metadata"
)

// Sidecar mode: the server shares no volume with Cassandra. An epoch is a
// Cassandra snapshot taken through Apache Cassandra Sidecar, whose files
// the readers fetch with HTTP range requests (snapshot/sidecar). Taking a
// snapshot makes Cassandra flush the table, so the window bounds how
// often queries cause flushes (DefaultSidecarWindow).

// ErrNoTable reports a keyspace or table Cassandra does not have
// (Sidecar answered 404 to the snapshot).
var ErrNoTable = errors.New("no such table")

// sidecarOpTimeout bounds the snapshot and listing requests of a cut, and
// the clearing of a snapshot. Opening the readers is bounded per block
// read, by the client's HTTP timeout (sidecar.Options.HTTPClient).
const sidecarOpTimeout = 2 * time.Minute

// SidecarTable is the TableDir of a table in Sidecar mode. Its Path names
// the table, not a local directory: nothing is read from it.
func SidecarTable(keyspace, table string) TableDir {
	return TableDir{Keyspace: keyspace, Table: table, Path: "sidecar:" + keyspace + "/" + table}
}

// sidecarSnapshotDir is where one of our Cassandra snapshots of a table
// is in the node's data directory, <keyspace>/<table>-<id>/snapshots/
// <snapshot>: the name its files go by in every error (the check's, the
// readers'), as the other modes name files relative to the data
// directory. The sidecar FS reads a file by its base name only.
func sidecarSnapshotDir(td TableDir, snap string) string {
	dir := td.Keyspace + "/" + td.Table
	if td.ID != "" {
		dir += "-" + td.ID
	}
	return dir + "/snapshots/" + snap
}

// snapshotName is the Cassandra snapshot of an epoch: recognisably ours,
// unique per process and epoch.
func snapshotName(epochID string) string { return "sstable-flight-" + epochID }

// cutSidecar snapshots the table through Sidecar and returns cur when
// the snapshot holds cur's SSTables (it is dropped again), else a new
// epoch reading the snapshot.
func (m *Manager) cutSidecar(td TableDir, cur *Epoch) (*Epoch, error) {
	ctx, cancel := context.WithTimeout(context.Background(), sidecarOpTimeout)
	defer cancel()
	c := m.cfg.Sidecar
	id := m.nextID()
	name := snapshotName(id)
	if err := m.journal.add(td.Keyspace, td.Table, name); err != nil {
		return nil, err
	}
	drop := func() { m.dropSidecarSnapshot(td.Keyspace, td.Table, name) }
	if err := c.CreateSnapshot(ctx, td.Keyspace, td.Table, name); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			m.journal.remove(td.Keyspace, td.Table, name)
			return nil, fmt.Errorf("snapshot %s.%s through sidecar: %w: %w", td.Keyspace, td.Table, ErrNoTable, err)
		}
		// NB: a snapshot that failed half way (Cassandra could not link
		// one file, or the answer was lost) may have linked the others,
		// pinning their disk space on the node: clear it as any of ours
		// (journaled until Sidecar confirms).
		drop()
		return nil, err
	}
	files, err := c.ListSnapshot(ctx, td.Keyspace, td.Table, name)
	if err != nil {
		drop()
		return nil, err
	}
	ssts := sidecarSSTables(files)
	if cur != nil && sameSSTables(cur.Table.SSTables, ssts) {
		drop() // nothing changed: keep the open epoch
		return cur, nil
	}
	// Sidecar gives no commit log: the epoch is what the snapshot's
	// flush wrote.
	e := &Epoch{ID: id, Dir: td.Path, Cut: m.cfg.Now(), m: m, sidecarSnap: name,
		Fresh: Freshness{FlushedOnly: "sidecar mode: no commit log"}}
	e.Table = td
	e.Table.SSTables = ssts
	if len(files) > 0 && e.Table.ID == "" {
		e.Table.ID = files[0].TableID
	}
	fsys := c.FSWithListing(td.Keyspace, td.Table, name, files)
	if err := checkSidecar(e.Table, name, ssts, fsys); err != nil {
		drop()
		return nil, err
	}
	for _, st := range ssts {
		r, err := m.cfg.OpenFS(sidecarSnapshotDir(e.Table, name)+"/"+st.Prefix+"-Data.db", fsys)
		if err != nil {
			for _, o := range e.Readers {
				o.Close()
			}
			drop()
			return nil, fmt.Errorf("open SSTable %s of %s.%s through sidecar: %w", st.Prefix, td.Keyspace, td.Table, err)
		}
		e.Readers = append(e.Readers, r)
	}
	m.mu.Lock()
	m.stats.ReadersOpened += uint64(len(e.Readers))
	m.owned += len(e.Readers)
	m.mu.Unlock()
	return e, nil
}

// sidecarSSTables groups a snapshot's files into SSTables (other files,
// manifest.json and schema.cql, are not components).
func sidecarSSTables(files []sidecar.FileInfo) []SSTable {
	byPrefix := map[string]*SSTable{}
	for _, f := range files {
		d, err := metadata.ParseDescriptor(f.FileName)
		if err != nil {
			continue
		}
		st := byPrefix[d.Prefix()]
		if st == nil {
			st = &SSTable{Prefix: d.Prefix(), Version: d.Version, Format: d.Format, Components: map[string]int64{}}
			byPrefix[d.Prefix()] = st
		}
		st.Components[d.Component] = f.Size
	}
	out := make([]SSTable, 0, len(byPrefix))
	for _, st := range byPrefix {
		out = append(out, *st)
	}
	sort.Slice(out, func(i, j int) bool { return lessPrefix(out[i].Prefix, out[j].Prefix) })
	return out
}

// dropSidecarSnapshot clears one of our Cassandra snapshots; a failure
// leaves it in the journal, so the next start clears it.
func (m *Manager) dropSidecarSnapshot(keyspace, table, name string) {
	ctx, cancel := context.WithTimeout(context.Background(), sidecarOpTimeout)
	defer cancel()
	err := m.cfg.Sidecar.DeleteSnapshot(ctx, keyspace, table, name)
	if err == nil || errors.Is(err, fs.ErrNotExist) {
		m.journal.remove(keyspace, table, name)
	}
}

// journal lists the Cassandra snapshots this server made and has not
// cleared, in a file of the snapshot directory: a server killed before it
// cleared them clears them at its next start.
type journal struct {
	path string

	mu      sync.Mutex
	entries map[string]bool // "ks table name"
}

// journalFile is the journal's name in the snapshot directory.
const journalFile = "sidecar-snapshots"

func openJournal(dir string) *journal {
	return &journal{path: filepath.Join(dir, journalFile), entries: map[string]bool{}}
}

// leftovers reads what a previous run left.
func (j *journal) leftovers() ([][3]string, error) {
	f, err := os.Open(j.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read snapshot journal: %w", err)
	}
	defer f.Close()
	var out [][3]string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if p := strings.Fields(sc.Text()); len(p) == 3 {
			out = append(out, [3]string{p[0], p[1], p[2]})
		}
	}
	return out, sc.Err()
}

func (j *journal) add(keyspace, table, name string) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.entries[keyspace+" "+table+" "+name] = true
	return j.write()
}

func (j *journal) remove(keyspace, table, name string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	delete(j.entries, keyspace+" "+table+" "+name)
	j.write() // a stale line only makes the next start clear a cleared snapshot
}

// write replaces the file (it is small: one line per live epoch); j.mu
// is held.
func (j *journal) write() error {
	lines := make([]string, 0, len(j.entries))
	for e := range j.entries {
		lines = append(lines, e+"\n")
	}
	sort.Strings(lines)
	tmp := j.path + ".tmp"
	if err := os.WriteFile(tmp, []byte(strings.Join(lines, "")), 0o644); err != nil {
		return fmt.Errorf("write snapshot journal: %w", err)
	}
	if err := os.Rename(tmp, j.path); err != nil {
		return fmt.Errorf("write snapshot journal: %w", err)
	}
	return nil
}

// clearLeftovers clears the snapshots a previous run left (journal) and
// starts an empty journal.
func (m *Manager) clearLeftovers() error {
	left, err := m.journal.leftovers()
	if err != nil {
		return err
	}
	for _, l := range left {
		if err := m.journal.add(l[0], l[1], l[2]); err != nil {
			return err
		}
	}
	for _, l := range left {
		m.dropSidecarSnapshot(l[0], l[1], l[2])
	}
	return nil
}
