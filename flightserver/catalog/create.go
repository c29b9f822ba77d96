package catalog

import (
	"strings"
)

// createType reads CREATE TYPE [IF NOT EXISTS] name (field type, ...).
func (r *cqlReader) createType(p *parser) error {
	ifNotExists := p.acceptKw("if", "not", "exists")
	at := p.peek()
	key, err := r.name(p, "a type name")
	if err != nil {
		return err
	}
	if _, dup := r.types[key]; dup {
		if ifNotExists {
			return nil
		}
		return p.errAt(at, "type %s.%s is defined twice", key.ks, key.name)
	}
	if err := p.expectSym('('); err != nil {
		return err
	}
	u := &userType{}
	for {
		f, ft, err := p.ident("a field name")
		if err != nil {
			return err
		}
		for _, g := range u.fieldNames {
			if g == f {
				return p.errAt(ft, "field %s is defined twice", f)
			}
		}
		rt, err := p.parseType(0)
		if err != nil {
			return err
		}
		u.fieldNames = append(u.fieldNames, f)
		u.fieldTypes = append(u.fieldTypes, rt)
		if !p.acceptSym(',') {
			break
		}
	}
	if err := p.expectSym(')'); err != nil {
		return err
	}
	r.types[key] = u
	return p.end()
}

// createTable reads CREATE TABLE [IF NOT EXISTS] name (columns, PRIMARY
// KEY (...)) [WITH options].
func (r *cqlReader) createTable(p *parser) error {
	ifNotExists := p.acceptKw("if", "not", "exists")
	at := p.peek()
	key, err := r.name(p, "a table name")
	if err != nil {
		return err
	}
	if _, dup := r.tables[key]; dup {
		if ifNotExists {
			return nil
		}
		return p.errAt(at, "table %s.%s is defined twice", key.ks, key.name)
	}
	d := &tableDef{ks: key.ks, name: key.name, dropped: map[string]int64{}}
	if err := p.expectSym('('); err != nil {
		return err
	}
	var pk [][]string // partition key, then clustering columns
	var pkTok token
	for {
		if t := p.peek(); p.acceptKw("primary", "key") {
			if pk != nil {
				return p.errAt(t, "more than one PRIMARY KEY")
			}
			pkTok = t
			if pk, err = p.primaryKey(); err != nil {
				return err
			}
		} else {
			c, inlinePK, err := p.columnDef(d)
			if err != nil {
				return err
			}
			if inlinePK {
				if pk != nil {
					return p.errAt(t, "more than one PRIMARY KEY")
				}
				pk, pkTok = [][]string{{c.name}}, t
			}
		}
		if !p.acceptSym(',') {
			break
		}
		if p.peek().isSym(')') { // a trailing comma
			break
		}
	}
	if err := p.expectSym(')'); err != nil {
		return err
	}
	if pk == nil {
		return p.errAt(at, "table %s.%s has no PRIMARY KEY", key.ks, key.name)
	}
	if err := d.setKey(p, pk, pkTok); err != nil {
		return err
	}
	if p.acceptKw("with") {
		if err := r.tableOptions(p, d); err != nil {
			return err
		}
	}
	if err := p.end(); err != nil {
		return err
	}
	r.tables[key] = d
	r.order = append(r.order, d)
	return nil
}

// columnDef reads name type [STATIC] [PRIMARY KEY] and skips other column
// qualifiers (5.0's MASKED WITH ...).
func (p *parser) columnDef(d *tableDef) (c *colDef, primaryKey bool, err error) {
	name, nt, err := p.ident("a column name")
	if err != nil {
		return nil, false, err
	}
	if d.col(name) != nil {
		return nil, false, p.errAt(nt, "column %s is defined twice", name)
	}
	rt, err := p.parseType(0)
	if err != nil {
		return nil, false, err
	}
	c = &colDef{name: name, raw: rt, kind: Regular, pos: -1}
	for {
		t := p.peek()
		switch {
		case t.kind == tEOF || t.isSym(',') || t.isSym(')'):
			d.cols = append(d.cols, c)
			return c, primaryKey, nil
		case p.acceptKw("static"):
			c.kind = Static
		case p.acceptKw("primary", "key"):
			primaryKey = true
		case t.isSym('('):
			if err := p.skipGroup(); err != nil {
				return nil, false, err
			}
		default:
			p.next()
		}
	}
}

// primaryKey reads the ((k1, k2), c1, c2) after PRIMARY KEY: the
// partition key columns, then one entry per clustering column.
func (p *parser) primaryKey() ([][]string, error) {
	if err := p.expectSym('('); err != nil {
		return nil, err
	}
	var out [][]string
	var part []string
	if p.acceptSym('(') {
		for {
			n, _, err := p.ident("a partition key column")
			if err != nil {
				return nil, err
			}
			part = append(part, n)
			if !p.acceptSym(',') {
				break
			}
		}
		if err := p.expectSym(')'); err != nil {
			return nil, err
		}
	} else {
		n, _, err := p.ident("a partition key column")
		if err != nil {
			return nil, err
		}
		part = []string{n}
	}
	out = append(out, part)
	for p.acceptSym(',') {
		n, _, err := p.ident("a clustering column")
		if err != nil {
			return nil, err
		}
		out = append(out, []string{n})
	}
	return out, p.expectSym(')')
}

// setKey marks the key columns: pk[0] the partition key, pk[1:] the
// clustering columns.
func (d *tableDef) setKey(p *parser, pk [][]string, at token) error {
	mark := func(name string, k Kind, pos int) error {
		c := d.col(name)
		switch {
		case c == nil:
			return p.errAt(at, "PRIMARY KEY column %s is not defined", name)
		case c.kind == Static:
			return p.errAt(at, "PRIMARY KEY column %s is static", name)
		case c.pos >= 0:
			return p.errAt(at, "column %s appears twice in the PRIMARY KEY", name)
		}
		c.kind, c.pos = k, pos
		return nil
	}
	for i, n := range pk[0] {
		if err := mark(n, PartitionKey, i); err != nil {
			return err
		}
	}
	for i, c := range pk[1:] {
		if err := mark(c[0], Clustering, i); err != nil {
			return err
		}
	}
	return nil
}

// tableOptions reads WITH option [AND option ...]: the table id and the
// clustering order matter here, the rest is skipped.
func (r *cqlReader) tableOptions(p *parser, d *tableDef) error {
	for {
		t := p.peek()
		switch {
		case p.acceptKw("clustering", "order", "by"):
			if err := p.clusteringOrder(d); err != nil {
				return err
			}
		case p.acceptKw("compact", "storage"):
			return p.errAt(t, "COMPACT STORAGE tables are not supported (Cassandra 4.0 and later cannot read them either)")
		case t.is("id") && p.peekAt(1).isSym('='):
			p.i += 2
			v := p.next()
			id := strings.ToLower(strings.ReplaceAll(v.text, "-", ""))
			if (v.kind != tUUID && v.kind != tString) || len(id) != 32 || strings.Trim(id, "0123456789abcdef") != "" {
				return p.errAt(v, "bad table id %s: want a UUID", v.describe())
			}
			d.id = id
		default:
			if _, _, err := p.ident("a table option"); err != nil {
				return err
			}
			if err := p.expectSym('='); err != nil {
				return err
			}
			if err := p.skipValue(); err != nil {
				return err
			}
		}
		if !p.acceptKw("and") {
			return nil
		}
	}
}

// clusteringOrder reads (c1 ASC, c2 DESC, ...) after CLUSTERING ORDER BY.
func (p *parser) clusteringOrder(d *tableDef) error {
	if err := p.expectSym('('); err != nil {
		return err
	}
	for {
		n, nt, err := p.ident("a clustering column")
		if err != nil {
			return err
		}
		c := d.col(n)
		if c == nil || c.kind != Clustering {
			return p.errAt(nt, "CLUSTERING ORDER BY names %s, which is not a clustering column", n)
		}
		switch t := p.peek(); {
		case p.acceptKw("asc"):
			c.desc = false
		case p.acceptKw("desc"):
			c.desc = true
		default:
			return p.errAt(t, "expected ASC or DESC, found %s", t.describe())
		}
		if !p.acceptSym(',') {
			break
		}
	}
	return p.expectSym(')')
}
