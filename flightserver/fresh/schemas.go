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
// NB: dropped columns' types are not read (catalog.Table.Dropped has
// their drop times only), so a mutation still in the log that writes a
// column dropped since cannot be decoded: its table is served flushed
// only until the segment goes.
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
		out[id] = overlay.Table{Name: t.Keyspace + "." + t.Name, Header: t.Header()}
	}
	return out
}
