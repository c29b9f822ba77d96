package snapshot

// Locator finds the tables epochs are cut from, as the Manager's mode
// reads them: in the hard-link and live modes, the table directories of
// the local data directory (a Lister); in Sidecar mode, tables named by
// the schema source, which Sidecar snapshots (there is no local
// directory to list). Callers ask it and never branch on the mode.
type Locator struct {
	sidecar bool
	lister  *Lister
}

// NewLocator is the locator of m's mode over m's data directory. A
// keyspace or table directory that is a link is skipped, and reported to
// skipped.
func (m *Manager) NewLocator(skipped func(SkippedLink)) *Locator {
	return &Locator{sidecar: m.Mode() == Sidecar, lister: NewLister(m.DataDir(), skipped)}
}

// Local reports whether tables are directories on this machine's disk,
// found without asking anyone: what Find answers may then be kept for the
// snapshot window. In Sidecar mode every Find asks the schema source
// (id), which may ask Cassandra.
func (l *Locator) Local() bool { return !l.sidecar }

// Find resolves keyspace.table to the TableDir its epochs are cut from;
// false when it has no directory (locally; in Sidecar mode an unknown
// table fails the cut with ErrNoTable instead). id tells the table's
// current id from the schema; it is asked only when needed: in Sidecar
// mode always, locally only when the table has several directories.
// Names must be validated by the caller: they are joined into a path.
func (l *Locator) Find(keyspace, table string, id func() (string, bool)) (TableDir, bool, error) {
	if l.sidecar {
		td := SidecarTable(keyspace, table)
		td.ID, _ = id()
		return td, true, nil
	}
	dirs, err := l.lister.Find(keyspace, table)
	if err != nil || len(dirs) == 0 {
		return TableDir{}, false, err
	}
	var current string
	var known bool
	if len(dirs) > 1 {
		current, known = id()
	}
	return PickDir(dirs, current, known), true, nil
}

// All lists every table: locally, every table directory of the data
// directory (Lister.Layout); in Sidecar mode, the tables known says the
// schema source knows.
func (l *Locator) All(known func() []TableDir) ([]TableDir, error) {
	if !l.sidecar {
		return l.lister.Layout()
	}
	var out []TableDir
	for _, td := range known() {
		out = append(out, SidecarTable(td.Keyspace, td.Table))
	}
	return out, nil
}

// PickDir chooses among the directories of one table (Lister.Find; at
// least one). A table that was dropped and re-created has several, as
// Cassandra leaves the old one with its snapshots: the one named by the
// table's current id when known (from Cassandra's schema), else the
// last one holding SSTables, else the last.
func PickDir(dirs []TableDir, id string, known bool) TableDir {
	if len(dirs) > 1 && known {
		for _, d := range dirs {
			if d.ID == id {
				return d
			}
		}
	}
	best := dirs[len(dirs)-1]
	for _, d := range dirs {
		if len(d.SSTables) > 0 {
			best = d
		}
	}
	return best
}
