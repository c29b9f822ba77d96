package tables

import (
	"context"
	"errors"
	"fmt"
	"github.com/sstable-flight/sstable-flight/flightserver/catalog"
	"github.com/sstable-flight/sstable-flight/snapshot"
	"github.com/sstable-flight/sstable-flight/sstable"
	"strings"
	"sync"
)

// CatalogSchemas is the SchemaSource over a catalog.Catalog: Cassandra's
// system_schema when the catalog has a session, else schema.cql beside
// the SSTables, else the SSTables' headers. A schema built from headers
// is kept while the table's SSTables are the same, so the table's Arrow
// schema is not rebuilt per request.
type CatalogSchemas struct {
	cat *catalog.Catalog

	mu      sync.Mutex
	headers map[string]headerSchema // table directory → last header schema
}

type headerSchema struct {
	sstables string
	t        *catalog.Table
}

var _ SchemaSource = (*CatalogSchemas)(nil)

// NewCatalogSchemas wraps a catalog.
func NewCatalogSchemas(c *catalog.Catalog) *CatalogSchemas {
	return &CatalogSchemas{cat: c, headers: map[string]headerSchema{}}
}

// TableSchema implements SchemaSource.
func (cs *CatalogSchemas) TableSchema(ctx context.Context, td snapshot.TableDir, readers []*sstable.Reader) (*catalog.Table, error) {
	var names []string
	for _, r := range readers {
		names = append(names, r.Desc.Prefix())
	}
	set := strings.Join(names, " ")
	cs.mu.Lock()
	h, ok := cs.headers[td.Path]
	cs.mu.Unlock()
	t, err := cs.cat.Table(ctx, td.Keyspace, td.Table, td.Path, func() ([]*sstable.Reader, error) { return readers, nil })
	if errors.Is(err, catalog.ErrNotFound) {
		return nil, fmt.Errorf("%w: %w", ErrNotFound, err)
	}
	if err != nil || t.Source != catalog.SourceHeader {
		return t, err
	}
	if ok && h.sstables == set {
		return h.t, nil
	}
	cs.mu.Lock()
	cs.headers[td.Path] = headerSchema{sstables: set, t: t}
	cs.mu.Unlock()
	return t, nil
}

// TableID is the table's id in Cassandra's schema, read as a lookup
// reads it (a fresh server reads the schema here; a table dropped and
// created again shows its new id once the schema changed).
func (cs *CatalogSchemas) TableID(ctx context.Context, keyspace, table string) (string, bool) {
	return cs.cat.TableID(ctx, keyspace, table)
}

// Tables lists the tables of Cassandra's schema (none before it was read).
func (cs *CatalogSchemas) Tables() []snapshot.TableDir {
	sch := cs.cat.Schema()
	if sch == nil {
		return nil
	}
	out := make([]snapshot.TableDir, 0, len(sch.Tables))
	for _, t := range sch.Tables {
		out = append(out, snapshot.TableDir{Keyspace: t.Keyspace, Table: t.Name, ID: t.ID})
	}
	return out
}

// Refresh reads Cassandra's schema now.
func (cs *CatalogSchemas) Refresh(ctx context.Context) error { return cs.cat.Refresh(ctx) }
