package tables

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/sstable-flight/sstable-flight/flightserver/catalog"
	"github.com/sstable-flight/sstable-flight/internal/iostall"
	"github.com/sstable-flight/sstable-flight/snapshot"
	"github.com/sstable-flight/sstable-flight/sstable"
)

// SchemaSource gives the schema of a table found in the data directory:
// from the local Cassandra node, a schema.cql beside the SSTables, or the
// SSTables' serialization headers. Every method is part of the contract,
// so that a new source states what it knows instead of silently losing
// a feature: a source that cannot answer one returns its documented
// "nothing known" value. CatalogSchemas answers all four.
type SchemaSource interface {
	// TableSchema is the schema of the table in td, whose SSTables
	// readers reads (a source reading headers reads them there).
	TableSchema(ctx context.Context, td snapshot.TableDir, readers []*sstable.Reader) (*catalog.Table, error)
	// TableID is the table's current id in Cassandra's schema, which
	// names its directory: of the directories a dropped and re-created
	// table left, the server reads the one it names, and in Sidecar mode
	// it is the id of the table Sidecar snapshots. "", false: not known;
	// the server then reads the directory holding SSTables, and Sidecar
	// the table by name.
	TableID(ctx context.Context, keyspace, table string) (string, bool)
	// Tables lists every table the source knows (Cassandra's schema):
	// Sidecar mode, having no directory to list, lists these. nil: none
	// known, and a Sidecar-mode server lists no flights.
	Tables() []snapshot.TableDir
	// Refresh reads the schemas again now (the refresh-schema action);
	// nil at once from a source with nothing to reload (the server
	// forgets the schemas it resolved either way).
	Refresh(ctx context.Context) error
}

// ErrNotFound marks an unknown keyspace or table (gRPC NOT_FOUND).
var ErrNotFound = errors.New("not found")

// ErrSystemKeyspace marks a table of one of Cassandra's system keyspaces,
// which is never served whatever the schema source (gRPC
// PERMISSION_DENIED).
var ErrSystemKeyspace = errors.New("cassandra system keyspaces are never served")

// Registry finds the tables of the data directory and keeps, per table
// directory, the table built from its schema until the schema or the
// directory changes.
type Registry struct {
	dataDir string // resolved: Manager.DataDir
	locate  *snapshot.Locator
	schemas SchemaSource
	snaps   *snapshot.Manager
	// fresh is how long a found directory and a resolved schema are
	// trusted without asking again (the snapshot window, Manager.Window,
	// so 30 s in Sidecar mode unless given): per request,
	// the directory stats and the schema lookup were a tenth of a warm
	// point read's server time.
	fresh time.Duration
	now   func() time.Time
	// guard bounds how long a request waits for a table's listing, its
	// snapshot and its schema file, none of which the readers' own
	// guarded opens and reads cover (see guarded).
	guard *iostall.Guard

	mu    sync.Mutex
	built map[string]*Table // table directory → table
	found map[Name]foundDir // its directory, by name
}

// NewRegistry is the registry of the tables under snaps' data directory,
// whose schemas come from schemas. It trusts what it found for the
// snapshots' window, as the manager resolved it for its mode: one rule,
// not a guess. Listings start from the data directory as the manager
// resolved it; a keyspace or table directory that is a link is skipped,
// and reported to skipped. guard bounds the waits on storage its
// listings, snapshots and schema files take.
func NewRegistry(snaps *snapshot.Manager, schemas SchemaSource, now func() time.Time, guard *iostall.Guard, skipped func(snapshot.SkippedLink)) *Registry {
	return &Registry{dataDir: snaps.DataDir(), locate: snaps.NewLocator(skipped), schemas: schemas, snaps: snaps,
		fresh: snaps.Window(), now: now, guard: guard, built: map[string]*Table{}, found: map[Name]foundDir{}}
}

// Snapshots is the snapshot manager the registry leases epochs of.
func (ts *Registry) Snapshots() *snapshot.Manager { return ts.snaps }

// Name is a table's name as a map key (a struct: no string to build per
// lookup): Registry.found's and the query pins'.
type Name struct{ Keyspace, Table string }

type foundDir struct {
	td snapshot.TableDir
	at time.Time
}

// Lease is a table and a snapshot epoch of its SSTables, held for one
// plan or stream.
type Lease struct {
	t *Table
	e *snapshot.Epoch
	g *iostall.Guard
}

// Table is the leased table's model, Epoch the leased snapshot epoch,
// Readers its SSTables' readers.
func (l *Lease) Table() *Table              { return l.t }
func (l *Lease) Epoch() *snapshot.Epoch     { return l.e }
func (l *Lease) Readers() []*sstable.Reader { return l.e.Readers }

// Release ends the lease. Ending it is an update in memory, made where
// the request runs, except after the last lease of a retired epoch:
// then the epoch's cleanup closes its readers and removes its links,
// which block on hung storage. That runs under the guard, so the request
// ends regardless, waiting for it no longer than ctx; if the guard
// refuses it (storage of the table stuck, ctx ended, or shutting down)
// it runs unwaited for, so the epoch is still cleaned up.
func (l *Lease) Release(ctx context.Context) { unlease(ctx, l.g, l.e) }

func unlease(ctx context.Context, g *iostall.Guard, e *snapshot.Epoch) {
	cleanup := e.Unlease()
	if cleanup == nil {
		return
	}
	op := iostall.Op{Action: "release the snapshot of", Path: e.Table.Keyspace + "." + e.Table.Table, Offset: -1}
	if err := g.Do(ctx, op, cleanup, nil); iostall.Refused(err) {
		go cleanup()
	}
}

// Acquire finds the table and leases its current snapshot epoch.
func (ts *Registry) Acquire(ctx context.Context, keyspace, name string) (*Lease, error) {
	if err := checkNames(keyspace, name); err != nil {
		return nil, err
	}
	if l := ts.acquireWarm(ctx, keyspace, name); l != nil {
		return l, nil
	}
	return ts.guarded(ctx, "snapshot", keyspace, name, func() (*Lease, error) { return ts.acquireNow(ctx, keyspace, name) })
}

// acquireWarm leases the table's current epoch if that touches no
// storage: its directory found, its epoch listed and its schema checked,
// each within the window. So it is for every request to a table but
// about one per window, which runs where it is, without the guard's
// goroutine and wait (a sixth of a warm keyed read's instructions when
// every request took them). nil: the caller takes the guarded way.
// Where tables are not local directories (Sidecar mode) finding one asks
// the schema source, which may ask Cassandra: it always takes the guarded
// way.
func (ts *Registry) acquireWarm(ctx context.Context, keyspace, name string) *Lease {
	if !ts.locate.Local() {
		return nil
	}
	td, ok := ts.foundFresh(Name{Keyspace: keyspace, Table: name}, ts.now())
	if !ok {
		return nil
	}
	e, ok := ts.snaps.AcquireCurrent(td)
	if !ok {
		return nil
	}
	if l := ts.leaseWarm(e); l != nil {
		return l
	}
	unlease(ctx, ts.guard, e)
	return nil
}

// guarded runs fn, which finds and leases a table (listing directories,
// reading txn logs and schema.cql, cutting and opening an epoch), under
// the storage guard: the request waits for it until its context ends or
// twice the I/O timeout passes, so that a stalled open or read inside,
// guarded itself, reports first, naming its file. When the request stops
// waiting, fn goes on and its lease, if it gets one, is released then;
// a table with a listing stuck past the timeout refuses the next ones
// at once.
func (ts *Registry) guarded(ctx context.Context, action, keyspace, name string, fn func() (*Lease, error)) (*Lease, error) {
	var (
		l   *Lease
		err error
	)
	op := iostall.Op{Action: action, Path: keyspace + "." + name, Offset: -1}
	late := func() {
		if l != nil {
			l.Release(context.Background())
		}
	}
	if gerr := ts.guard.DoTimeout(ctx, op, 2*ts.guard.Timeout(), func() { l, err = fn() }, late); gerr != nil {
		return nil, gerr
	}
	return l, err
}

func (ts *Registry) acquireNow(ctx context.Context, keyspace, name string) (*Lease, error) {
	td, err := ts.find(ctx, keyspace, name)
	if err != nil {
		return nil, err
	}
	e, err := ts.snaps.Acquire(td)
	if err != nil {
		return nil, fmt.Errorf("snapshot %s.%s: %w", keyspace, name, err)
	}
	return ts.leaseOf(ctx, e)
}

// AcquireEpoch leases the epoch a ticket names: every split of one query
// reads the same SSTables. Finding the epoch is a lookup in memory; only
// a schema to check again (once a window) takes the guarded way.
func (ts *Registry) AcquireEpoch(ctx context.Context, keyspace, name, id string) (*Lease, error) {
	if err := checkNames(keyspace, name); err != nil {
		return nil, err
	}
	e, err := ts.snaps.Lookup(keyspace, name, id)
	if err != nil {
		return nil, err
	}
	if l := ts.leaseWarm(e); l != nil {
		return l, nil
	}
	unlease(ctx, ts.guard, e)
	return ts.guarded(ctx, "schema of", keyspace, name, func() (*Lease, error) {
		e, err := ts.snaps.Lookup(keyspace, name, id)
		if err != nil {
			return nil, err
		}
		return ts.leaseOf(ctx, e)
	})
}

// checkNames refuses names Cassandra would not accept, before they come
// near a path or a lookup, and the tables of Cassandra's system
// keyspaces. Every RPC that names a table comes through here.
func checkNames(keyspace, name string) error {
	// NB: a byte loop (catalog.ValidName), not a regexp: it runs on
	// every request, where the regexp was 1% of a keyed read.
	if !catalog.ValidName(keyspace) || !catalog.ValidName(name) {
		return fmt.Errorf("find table %q.%q: %w (not a valid Cassandra name)", keyspace, name, ErrNotFound)
	}
	if catalog.IsSystemKeyspace(keyspace) {
		return fmt.Errorf("find table %s.%s: %w", keyspace, name, ErrSystemKeyspace)
	}
	return nil
}

// find resolves a table's directory; checkNames passed.
func (ts *Registry) find(ctx context.Context, keyspace, name string) (snapshot.TableDir, error) {
	key := Name{Keyspace: keyspace, Table: name}
	now := ts.now()
	if td, ok := ts.foundFresh(key, now); ok {
		return td, nil
	}
	// The schema source's id names the current directory of a table
	// dropped and re-created (and Sidecar's table).
	id := func() (string, bool) { return ts.schemas.TableID(ctx, keyspace, name) }
	td, ok, err := ts.locate.Find(keyspace, name, id)
	if err != nil {
		return snapshot.TableDir{}, fmt.Errorf("find table %s.%s: %w", keyspace, name, err)
	}
	if !ok {
		return snapshot.TableDir{}, fmt.Errorf("find table %s.%s: %w", keyspace, name, ErrNotFound)
	}
	if !ts.locate.Local() {
		return td, nil
	}
	ts.mu.Lock()
	ts.found[key] = foundDir{td: td, at: now}
	ts.mu.Unlock()
	return td, nil
}

// foundFresh is the table's directory as find last found it, if that was
// within the window.
func (ts *Registry) foundFresh(key Name, now time.Time) (snapshot.TableDir, bool) {
	ts.mu.Lock()
	f, ok := ts.found[key]
	ts.mu.Unlock()
	if ok && now.Sub(f.at) < ts.fresh {
		return f.td, true
	}
	return snapshot.TableDir{}, false
}

// Forget drops what find and leaseOf trust (after refresh-schema).
func (ts *Registry) Forget() {
	ts.mu.Lock()
	ts.found = map[Name]foundDir{}
	for _, t := range ts.built {
		t.checked = time.Time{}
	}
	ts.mu.Unlock()
}

// leaseOf pairs a leased epoch with its table model, built again when
// the schema changed.
func (ts *Registry) leaseOf(ctx context.Context, e *snapshot.Epoch) (*Lease, error) {
	if l := ts.leaseWarm(e); l != nil {
		return l, nil
	}
	td := e.Table
	now := ts.now()
	ts.mu.Lock()
	t := ts.built[td.Path]
	ts.mu.Unlock()
	sch, err := ts.schemas.TableSchema(ctx, td, e.Readers)
	if err != nil {
		e.Release()
		return nil, fmt.Errorf("schema of %s.%s: %w", td.Keyspace, td.Table, err)
	}
	if t == nil || t.cat != sch {
		if t, err = newTable(td, sch); err != nil {
			e.Release()
			return nil, err
		}
	}
	ts.mu.Lock()
	// NB: only the latest epoch's check is remembered; a stream of an
	// older epoch asks the schema source again, which is correct, only
	// slower.
	t.epoch, t.checked = e.ID, now
	ts.built[td.Path] = t
	ts.mu.Unlock()
	return &Lease{t: t, e: e, g: ts.guard}, nil
}

// leaseWarm pairs a leased epoch with its table model if the model was
// built or checked for this epoch within the window; nil when the schema
// must be asked again (leaseOf).
func (ts *Registry) leaseWarm(e *snapshot.Epoch) *Lease {
	now := ts.now()
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if t := ts.built[e.Table.Path]; t != nil && t.epoch == e.ID && now.Sub(t.checked) < ts.fresh {
		return &Lease{t: t, e: e, g: ts.guard}
	}
	return nil
}

// All lists every user table the locator finds (the data directory's,
// or in Sidecar mode the schema source's): never the tables of
// Cassandra's system keyspaces, which checkNames refuses.
func (ts *Registry) All(ctx context.Context) ([]snapshot.TableDir, error) {
	var found []snapshot.TableDir
	var err error
	op := iostall.Op{Action: "list", Path: ts.dataDir, Offset: -1}
	if gerr := ts.guard.DoTimeout(ctx, op, 2*ts.guard.Timeout(), func() { found, err = ts.locate.All(ts.schemas.Tables) }, nil); gerr != nil {
		return nil, gerr
	}
	if err != nil {
		return nil, err
	}
	var out []snapshot.TableDir
	for _, td := range found {
		if !catalog.IsSystemKeyspace(td.Keyspace) {
			out = append(out, td)
		}
	}
	return out, nil
}
