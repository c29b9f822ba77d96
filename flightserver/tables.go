package flightserver

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sync"

	"github.com/sstable-flight/sstable-flight/flightserver/catalog"
	"github.com/sstable-flight/sstable-flight/snapshot"
	"github.com/sstable-flight/sstable-flight/sstable"
)

// SchemaSource gives the schema of a table found in the data directory:
// from the local Cassandra node, a schema.cql beside the SSTables, or the
// SSTables' serialization headers.
type SchemaSource interface {
	TableSchema(ctx context.Context, td snapshot.TableDir, readers []*sstable.Reader) (*catalog.Table, error)
}

// errNotFound marks an unknown keyspace or table (gRPC NOT_FOUND).
var errNotFound = errors.New("not found")

// validName is Cassandra's rule for keyspace and table names; the server
// checks names with it before they come near a path.
var validName = regexp.MustCompile(`^[A-Za-z0-9_]{1,48}$`)

// tables finds the tables of the data directory and keeps, per table
// directory, the table built from its schema until the schema or the
// directory changes.
type tables struct {
	dataDir string
	lister  *snapshot.Lister
	schemas SchemaSource
	readers *readerCache

	mu    sync.Mutex
	built map[string]*table // table directory → table
}

// lease is a table and a consistent set of its SSTable readers, held for
// one plan or stream.
type lease struct {
	t  *table
	rs *readerSet
}

func (l *lease) readers() []*sstable.Reader { return l.rs.readers }
func (l *lease) release()                   { l.rs.release() }

// acquire finds the table and pins its current SSTables.
func (ts *tables) acquire(ctx context.Context, keyspace, name string) (*lease, error) {
	if !validName.MatchString(keyspace) || !validName.MatchString(name) {
		return nil, fmt.Errorf("find table %q.%q: %w (not a valid Cassandra name)", keyspace, name, errNotFound)
	}
	dirs, err := ts.lister.Find(keyspace, name)
	if err != nil {
		return nil, fmt.Errorf("find table %s.%s: %w", keyspace, name, err)
	}
	if len(dirs) == 0 {
		return nil, fmt.Errorf("find table %s.%s: %w", keyspace, name, errNotFound)
	}
	td := ts.pickDir(keyspace, name, dirs)
	return ts.acquireDir(ctx, td)
}

// tableIDs is a SchemaSource that knows the current id of a table (from
// Cassandra's schema), which names its directory.
type tableIDs interface {
	TableID(keyspace, table string) (string, bool)
}

// pickDir chooses among the directories of a table that was dropped and
// re-created (Cassandra leaves the old one, with its snapshots): the one
// named by the table's current id when the schema source knows it, else
// one holding SSTables.
func (ts *tables) pickDir(keyspace, name string, dirs []snapshot.TableDir) snapshot.TableDir {
	if len(dirs) > 1 {
		if ids, ok := ts.schemas.(tableIDs); ok {
			if id, ok := ids.TableID(keyspace, name); ok {
				for _, d := range dirs {
					if d.ID == id {
						return d
					}
				}
			}
		}
	}
	return newestDir(dirs)
}

func (ts *tables) acquireDir(ctx context.Context, td snapshot.TableDir) (*lease, error) {
	rs, err := ts.readers.acquire(td)
	if err != nil {
		return nil, err
	}
	sch, err := ts.schemas.TableSchema(ctx, td, rs.readers)
	if err != nil {
		rs.release()
		return nil, fmt.Errorf("schema of %s.%s: %w", td.Keyspace, td.Table, err)
	}
	ts.mu.Lock()
	t := ts.built[td.Path]
	ts.mu.Unlock()
	if t == nil || t.cat != sch {
		if t, err = newTable(td, sch); err != nil {
			rs.release()
			return nil, err
		}
		ts.mu.Lock()
		ts.built[td.Path] = t
		ts.mu.Unlock()
	}
	return &lease{t: t, rs: rs}, nil
}

// newestDir picks one directory of a table that was dropped and
// re-created (Cassandra leaves the old directory with its snapshots): the
// one holding SSTables.
func newestDir(dirs []snapshot.TableDir) snapshot.TableDir {
	best := dirs[len(dirs)-1]
	for _, d := range dirs {
		if len(d.SSTables) > 0 {
			best = d
		}
	}
	return best
}

// all lists every table of the data directory.
func (ts *tables) all() ([]snapshot.TableDir, error) {
	return snapshot.Layout(ts.dataDir)
}
