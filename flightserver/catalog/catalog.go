package catalog

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/sstable-flight/sstable-flight/internal/safefile"
	"github.com/sstable-flight/sstable-flight/sstable"
)

// DefaultCheckInterval is how often, at most, a Catalog asks Cassandra
// whether the schema changed, unless Options say otherwise.
const DefaultCheckInterval = 10 * time.Second

// Options configure a Catalog.
type Options struct {
	// Conn is the connection to the local Cassandra node
	// (cqlconn.Conn): the session of the moment, or why there is none,
	// when the schema is read. Session is a fixed one instead. Neither:
	// schemas come from schema.cql files and SSTable headers only.
	Conn    Sessions
	Session *gocql.Session
	// CheckInterval is the least time between two reads of system.local's
	// schema_version; 0 means DefaultCheckInterval.
	CheckInterval time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Sessions gives the session to the local node of the moment, or an
// error saying why there is none (the node is not up yet, or lost).
type Sessions interface {
	Session() (*gocql.Session, error)
}

// Fixed is Sessions over one session that does not change (tests, tools).
type Fixed struct{ S *gocql.Session }

func (f Fixed) Session() (*gocql.Session, error) { return f.S, nil }

// Catalog finds the schema of a table, preferring Cassandra's schema,
// then the table directory's schema.cql, then the SSTable headers (see
// the package documentation). It caches Cassandra's schema and reads it
// again when schema_version changes, which it checks at most once per
// CheckInterval during a lookup; Refresh reads it at once. It is safe for
// concurrent use; lookups wait while it talks to Cassandra.
type Catalog struct {
	opts Options

	mu      sync.Mutex
	schema  *Schema   // last schema read from Cassandra, nil before the first success
	checked time.Time // when schema_version was last asked for
	err     error     // the last Cassandra failure, nil after a success
	files   map[string]fileEntry
}

// fileEntry is a parsed schema.cql, valid while the file's modification
// time and size are unchanged.
type fileEntry struct {
	mod    time.Time
	size   int64
	tables []*Table
}

// New returns a Catalog. It does not contact Cassandra until the first
// lookup or Refresh.
func New(opts Options) *Catalog {
	if opts.CheckInterval <= 0 {
		opts.CheckInterval = DefaultCheckInterval
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Conn == nil && opts.Session != nil {
		opts.Conn = Fixed{opts.Session}
	}
	return &Catalog{opts: opts, files: map[string]fileEntry{}}
}

// Refresh reads the whole schema from Cassandra now, whatever the
// version. Without a connection it does nothing; while the node is not
// connected it is that error, and the last schema stays.
func (c *Catalog) Refresh(ctx context.Context) error {
	if c.opts.Conn == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.checked = c.opts.Now()
	s, err := c.opts.Conn.Session()
	if err != nil {
		c.err = err
		return err
	}
	return c.load(ctx, s)
}

// load reads the schema from Cassandra over s; c.mu is held.
func (c *Catalog) load(ctx context.Context, s *gocql.Session) error {
	sch, err := FromCassandra(ctx, s)
	c.err = err
	if err != nil {
		return err
	}
	c.schema = sch
	return nil
}

// check reloads the schema when CheckInterval has passed since the last
// check and schema_version has changed since the last load; c.mu is held.
// On failure (the node not connected among them) the previous schema
// stays in use: the node being briefly unreachable does not change the
// tables' columns. Failures are retried
// after CheckInterval too, so a node that is down costs one timeout per
// interval, not one per lookup.
func (c *Catalog) check(ctx context.Context) {
	now := c.opts.Now()
	if !c.checked.IsZero() && now.Sub(c.checked) < c.opts.CheckInterval {
		return
	}
	c.checked = now
	s, err := c.opts.Conn.Session()
	if err != nil {
		c.err = err
		return
	}
	if c.schema != nil {
		v, err := SchemaVersion(ctx, s)
		if err != nil {
			c.err = err
			return
		}
		if v == c.schema.Version {
			c.err = nil
			return
		}
	}
	_ = c.load(ctx, s) // recorded in c.err
}

// TableID returns the table's id in Cassandra's schema, which names its
// directory; like Table it reads the schema when none was read or the
// check interval has passed. False without a session, or when the node
// does not know the table.
func (c *Catalog) TableID(ctx context.Context, keyspace, table string) (string, bool) {
	if t, _ := c.fromNode(ctx, keyspace, table); t != nil && t.ID != "" {
		return t.ID, true
	}
	return "", false
}

// fromNode is the table as the node's schema has it, read again when the
// check interval has passed; nil without a session or when the node does
// not know the table; an error when the node knows it but its schema
// could not be read (Schema.Unreadable).
func (c *Catalog) fromNode(ctx context.Context, keyspace, table string) (*Table, error) {
	if c.opts.Conn == nil {
		return nil, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.check(ctx)
	t, err := c.lookup(keyspace, table)
	if t == nil && err == nil && c.opts.Now().Sub(c.checked) >= MissRecheck {
		// A table the schema lacks may have been created since the last
		// check (its directory is what is being looked up): ask now rather
		// than serve it from its headers until the next check.
		c.checked = time.Time{}
		c.check(ctx)
		t, err = c.lookup(keyspace, table)
	}
	return t, err
}

// MissRecheck is the least time between two schema checks that a lookup
// of a table the schema lacks makes at once, whatever CheckInterval: a
// table created a moment ago is read from Cassandra on its first lookup,
// while directories of dropped tables cost at most one schema_version
// query a second.
const MissRecheck = time.Second

// lookup is the table in the schema last read; c.mu is held.
func (c *Catalog) lookup(keyspace, table string) (*Table, error) {
	if c.schema == nil {
		return nil, nil
	}
	if err := c.schema.Problem(keyspace, table); err != nil {
		return nil, fmt.Errorf("look up table %s.%s: its schema in cassandra cannot be read: %w", keyspace, table, err)
	}
	t, _ := c.schema.Lookup(keyspace, table)
	return t, nil
}

// Schema returns the schema last read from Cassandra, nil if none was.
func (c *Catalog) Schema() *Schema {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.schema
}

// Err returns the last error talking to Cassandra, nil after a success.
// Lookups do not fail for it: they fall back to older or other sources.
func (c *Catalog) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// dirRE matches a table directory's name, <table>-<id>.
var dirRE = regexp.MustCompile(`^\w+-([0-9a-f]{32})$`)

// Table returns the schema of keyspace.table, whose SSTables are in dir
// (<data>/<keyspace>/<table>-<id>; "" if there is none) and opened by
// readers (nil if there are none): Cassandra's schema of the table if the
// node knows it, then dir's schema.cql if it defines the table, then the
// headers of readers' SSTables. When dir's name carries a table id, a
// schema with a different id is skipped: it describes a table dropped and
// created again, whose SSTables are in another directory. A malformed
// schema.cql is an error rather than a reason to guess from headers.
// Names must pass ValidName.
func (c *Catalog) Table(ctx context.Context, keyspace, table, dir string, readers func() ([]*sstable.Reader, error)) (*Table, error) {
	if !ValidName(keyspace) || !ValidName(table) {
		return nil, fmt.Errorf("look up table %q.%q: invalid name, want [A-Za-z0-9_]{1,48}", keyspace, table)
	}
	var dirID string
	if m := dirRE.FindStringSubmatch(filepath.Base(dir)); dir != "" && m != nil {
		dirID = m[1]
	}
	fits := func(t *Table) bool { return t.ID == "" || dirID == "" || t.ID == dirID }
	// A table the node has but whose schema cannot be read is that error:
	// its SSTables' headers would give its columns made-up names.
	t, err := c.fromNode(ctx, keyspace, table)
	if err != nil {
		return nil, err
	}
	if t != nil && fits(t) {
		return t, nil
	}
	if dir != "" {
		t, err := c.fromFile(filepath.Join(dir, SchemaFile), keyspace, table)
		if err != nil {
			return nil, err
		}
		if t != nil && fits(t) {
			return t, nil
		}
	}
	if readers == nil {
		return nil, fmt.Errorf("look up table %s.%s: %w", keyspace, table, ErrNotFound)
	}
	rs, err := readers()
	if err != nil {
		return nil, fmt.Errorf("look up table %s.%s: open sstables: %w", keyspace, table, err)
	}
	if len(rs) == 0 {
		return nil, fmt.Errorf("look up table %s.%s: %w", keyspace, table, ErrNotFound)
	}
	return FromHeader(keyspace, table, dirID, rs)
}

// ErrNotFound is returned (wrapped) by Catalog.Table when no source knows
// the table.
var ErrNotFound = errors.New("table not found in cassandra, schema.cql or sstables")

// fromFile returns the table from a schema.cql, nil if the file does not
// exist or does not define it. Parsed files are cached until they change.
func (c *Catalog) fromFile(path, keyspace, table string) (*Table, error) {
	// NB: Lstat, and ReadCQLFile opens with O_NOFOLLOW: a schema.cql that
	// is a link, a FIFO or a directory is an error, never followed or
	// waited on.
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read schema file: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("read schema file %s: %w: %s", path, safefile.ErrNotRegular, safefile.Kind(fi.Mode()))
	}
	c.mu.Lock()
	e, ok := c.files[path]
	c.mu.Unlock()
	if !ok || !e.mod.Equal(fi.ModTime()) || e.size != fi.Size() {
		tables, err := ReadCQLFile(path)
		if err != nil {
			return nil, err
		}
		e = fileEntry{mod: fi.ModTime(), size: fi.Size(), tables: tables}
		c.mu.Lock()
		c.files[path] = e
		c.mu.Unlock()
	}
	s := Schema{Tables: e.tables}
	t, _ := s.Lookup(keyspace, table)
	return t, nil
}
