package snapshot

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
