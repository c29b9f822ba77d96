package catalog

import (
	"errors"
	"fmt"

	"github.com/sstable-flight/sstable-flight/internal/safefile"
)

// SchemaFile is the name of the schema file the Catalog looks for in a
// table directory: the output of DESCRIBE TABLE ... WITH INTERNALS.
const SchemaFile = "schema.cql"

// ParseCQL reads CQL schema statements, as Cassandra's DESCRIBE ... WITH
// INTERNALS writes them, and returns the tables they define, in the order
// of their CREATE TABLE statements.
//
// It understands CREATE TYPE, CREATE TABLE (columns, PRIMARY KEY,
// CLUSTERING ORDER BY, WITH ID = ...), ALTER TABLE ADD/DROP ... USING
// TIMESTAMP/RENAME, ALTER TYPE ADD/RENAME, DROP TABLE/TYPE and USE, and
// skips statements that cannot change a table's columns (CREATE KEYSPACE,
// INDEX, MATERIALIZED VIEW, FUNCTION, ...; ALTER KEYSPACE; GRANT, ...).
// User types are resolved against the CREATE TYPE statements anywhere in
// the text. Errors are *SyntaxError, with the position and the statement.
func ParseCQL(text string) ([]*Table, error) {
	toks, serr := lex(text)
	if serr != nil {
		return nil, serr
	}
	r := &cqlReader{text: text, types: map[typeKey]*userType{}, tables: map[typeKey]*tableDef{}}
	for len(toks) > 0 && toks[0].kind != tEOF {
		n := 0
		for toks[n].kind != tEOF && !toks[n].isSym(';') {
			n++
		}
		stmt := append(toks[:n:n], token{kind: tEOF, pos: toks[n].pos})
		if err := r.statement(newParser(text, stmt)); err != nil {
			return nil, err
		}
		if toks[n].kind != tEOF {
			n++ // the ';'
		}
		toks = toks[n:]
	}
	return r.finish()
}

// ReadCQLFile reads a schema file with ParseCQL; errors name the file.
// It reads regular files only, never following a link or waiting on a
// FIFO (safefile.Open), of at most MaxSchemaFileSize bytes.
func ReadCQLFile(path string) ([]*Table, error) {
	b, err := readSchemaFile(path)
	if err != nil {
		return nil, fmt.Errorf("read schema file: %w", err)
	}
	tables, err := ParseCQL(string(b))
	if se := (*SyntaxError)(nil); errors.As(err, &se) {
		se.File = path
	}
	if err != nil {
		return nil, fmt.Errorf("parse schema file: %w", err) // the error names the file
	}
	return tables, nil
}

// cqlReader accumulates the effect of the statements read so far.
type cqlReader struct {
	text   string
	useKs  string // USE keyspace, for unqualified names
	types  map[typeKey]*userType
	tables map[typeKey]*tableDef
	order  []*tableDef // CREATE TABLE order, dropped tables included
}

// tableDef is a table being defined: its columns' types stay raw until
// every user type is known.
type tableDef struct {
	ks, name, id string
	cols         []*colDef
	dropped      map[string]int64
	gone         bool // dropped by DROP TABLE
}

type colDef struct {
	name string
	raw  *rawType
	kind Kind
	pos  int // key component index, -1 otherwise
	desc bool
}

func (d *tableDef) col(name string) *colDef {
	for _, c := range d.cols {
		if c.name == name {
			return c
		}
	}
	return nil
}

func (r *cqlReader) statement(p *parser) error {
	switch t := p.peek(); {
	case p.acceptKw("use"):
		ks, _, err := p.ident("a keyspace name")
		if err != nil {
			return err
		}
		r.useKs = ks
		return p.end()
	case p.acceptKw("create", "type"):
		return r.createType(p)
	case p.acceptKw("create", "table"), p.acceptKw("create", "columnfamily"):
		return r.createTable(p)
	case p.acceptKw("alter", "table"), p.acceptKw("alter", "columnfamily"):
		return r.alterTable(p)
	case p.acceptKw("alter", "type"):
		return r.alterType(p)
	case p.acceptKw("drop", "table"), p.acceptKw("drop", "columnfamily"):
		d, err := r.tableRef(p, true)
		if d != nil {
			d.gone = true
			delete(r.tables, typeKey{d.ks, d.name})
		}
		return err
	case p.acceptKw("drop", "type"):
		p.acceptKw("if", "exists")
		key, err := r.name(p, "a type name")
		if err != nil {
			return err
		}
		delete(r.types, key)
		return p.end()
	case t.is("create") || t.is("alter") || t.is("drop"):
		// Keyspaces, indexes, views, functions, aggregates, triggers,
		// roles: none changes a table's columns.
		return nil
	case t.is("grant") || t.is("revoke"):
		return nil
	default:
		return p.errAt(t, "unexpected statement: want CREATE, ALTER, DROP or USE, found %s", t.describe())
	}
}

// end checks that the statement has no more tokens.
func (p *parser) end() error {
	if t := p.peek(); t.kind != tEOF {
		return p.errAt(t, "unexpected %s", t.describe())
	}
	return nil
}

// name reads a [keyspace.]name, defaulting the keyspace to USE's.
func (r *cqlReader) name(p *parser, what string) (typeKey, error) {
	ks, name, t, err := p.qualifiedName(what)
	if err != nil {
		return typeKey{}, err
	}
	if ks == "" {
		if r.useKs == "" {
			return typeKey{}, p.errAt(t, "%s has no keyspace and no USE statement precedes it", name)
		}
		ks = r.useKs
	}
	return typeKey{ks, name}, nil
}

// tableRef reads [IF EXISTS] name for ALTER/DROP TABLE and finds the table;
// with IF EXISTS a missing table is (nil, nil).
func (r *cqlReader) tableRef(p *parser, drop bool) (*tableDef, error) {
	ifExists := p.acceptKw("if", "exists")
	at := p.peek()
	key, err := r.name(p, "a table name")
	if err != nil {
		return nil, err
	}
	d := r.tables[key]
	if d == nil && !ifExists {
		return nil, p.errAt(at, "unknown table %s.%s", key.ks, key.name)
	}
	if drop {
		return d, p.end()
	}
	return d, nil
}

// finish resolves every column type and builds the tables.
func (r *cqlReader) finish() ([]*Table, error) {
	res := newResolver(r.types)
	var out []*Table
	for _, d := range r.order {
		if d.gone {
			continue
		}
		t := &Table{Keyspace: d.ks, Name: d.name, ID: d.id, Dropped: d.dropped, Source: SourceSchemaCQL}
		for _, c := range d.cols {
			typ, err := res.column(c.raw, d.ks)
			if err != nil {
				return nil, fmt.Errorf("resolve type of column %s of %s.%s: %w", c.name, d.ks, d.name, err)
			}
			typ.Reversed = c.desc
			t.Columns = append(t.Columns, Column{Name: c.name, Type: typ, Kind: c.kind, Position: c.pos, Desc: c.desc})
		}
		sortColumns(t.Columns)
		out = append(out, t)
	}
	return out, nil
}

// MaxSchemaFileSize bounds what is read of a schema file: DESCRIBE of a
// table with its types is a few KiB; anything near this is not one.
const MaxSchemaFileSize = 16 << 20

func readSchemaFile(path string) ([]byte, error) {
	return safefile.ReadFile(path, MaxSchemaFileSize)
}
