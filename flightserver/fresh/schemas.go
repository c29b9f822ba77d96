package fresh

import (
	"github.com/sstable-flight/sstable-flight/commitlog"
	"github.com/sstable-flight/sstable-flight/flightserver/catalog"
	"github.com/sstable-flight/sstable-flight/overlay"
)

// overlayTables are the overlay's tables of a schema read from the node:
// each table with an id, under a header naming every column (the runs'
// header: a reader maps its columns by name, as an SSTable's).
//
// A column dropped since decodes with the type Cassandra's schema
// recorded for it (catalog.Table.DroppedTypes); the runs leave its cells
// out, as reads ignore them.
func overlayTables(s *catalog.Schema) map[commitlog.TableID]overlay.Table {
	out := map[commitlog.TableID]overlay.Table{}
	if s == nil {
		return out
	}
	for _, t := range s.Tables {
		id, err := commitlog.ParseTableID(t.ID)
		if err != nil {
			continue
		}
		ot := overlay.Table{Name: t.Keyspace + "." + t.Name, Header: t.Header()}
		for name, typ := range t.DroppedTypes {
			if _, live := t.Column(name); !live {
				if ot.Dropped == nil {
					ot.Dropped = map[string]string{}
				}
				ot.Dropped[name] = typ.Marshal()
			}
		}
		out[id] = ot
	}
	return out
}
