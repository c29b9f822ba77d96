package catalog

import (
	"strconv"
)

// alterType reads ALTER TYPE name ADD field type | RENAME f TO g [AND ...].
func (r *cqlReader) alterType(p *parser) error {
	p.acceptKw("if", "exists")
	at := p.peek()
	key, err := r.name(p, "a type name")
	if err != nil {
		return err
	}
	u := r.types[key]
	if u == nil {
		return p.errAt(at, "unknown type %s.%s", key.ks, key.name)
	}
	switch t := p.peek(); {
	case p.acceptKw("add"):
		p.acceptKw("if", "not", "exists")
		f, _, err := p.ident("a field name")
		if err != nil {
			return err
		}
		rt, err := p.parseType(0)
		if err != nil {
			return err
		}
		u.fieldNames = append(u.fieldNames, f)
		u.fieldTypes = append(u.fieldTypes, rt)
	case p.acceptKw("rename"):
		p.acceptKw("if", "exists")
		for {
			from, ft, err := p.ident("a field name")
			if err != nil {
				return err
			}
			if err := p.expectKw("to"); err != nil {
				return err
			}
			to, _, err := p.ident("a field name")
			if err != nil {
				return err
			}
			i := indexOf(u.fieldNames, from)
			if i < 0 {
				return p.errAt(ft, "type %s.%s has no field %s", key.ks, key.name, from)
			}
			u.fieldNames[i] = to
			if !p.acceptKw("and") {
				break
			}
		}
	default:
		return p.errAt(t, "unsupported ALTER TYPE: want ADD or RENAME, found %s", t.describe())
	}
	return p.end()
}

func indexOf(s []string, v string) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}

// alterTable reads ALTER TABLE name ADD ... | DROP ... | RENAME ... |
// WITH ...; DESCRIBE ... WITH INTERNALS writes the first two to record
// dropped and re-added columns.
func (r *cqlReader) alterTable(p *parser) error {
	d, err := r.tableRef(p, false)
	if err != nil || d == nil {
		return err
	}
	switch t := p.peek(); {
	case p.acceptKw("add"):
		ifNotExists := p.acceptKw("if", "not", "exists")
		err = p.list(func() error {
			at := p.peek()
			name, _, err := p.ident("a column name")
			if err != nil {
				return err
			}
			if d.col(name) != nil {
				if ifNotExists {
					_, err := p.parseType(0)
					p.acceptKw("static")
					return err
				}
				return p.errAt(at, "column %s already exists", name)
			}
			p.i--
			_, primaryKey, err := p.columnDef(d)
			if err == nil && primaryKey {
				err = p.errAt(at, "ALTER TABLE ADD cannot add a PRIMARY KEY column")
			}
			return err
		})
	case p.acceptKw("drop"):
		ifExists := p.acceptKw("if", "exists")
		var names []token
		if err := p.list(func() error {
			_, nt, err := p.ident("a column name")
			names = append(names, nt)
			return err
		}); err != nil {
			return err
		}
		if !p.acceptKw("using", "timestamp") {
			return p.errAt(p.peek(), "DROP without USING TIMESTAMP: the drop time, which hides older cells, is unknown")
		}
		v := p.next()
		ts, perr := strconv.ParseInt(v.text, 10, 64)
		if v.kind != tNumber || perr != nil {
			return p.errAt(v, "bad drop timestamp %s", v.describe())
		}
		for _, nt := range names {
			c := d.col(nt.name())
			if c == nil {
				if ifExists {
					continue
				}
				return p.errAt(nt, "column %s does not exist", nt.name())
			}
			if c.kind == PartitionKey || c.kind == Clustering {
				return p.errAt(nt, "cannot drop key column %s", c.name)
			}
			d.cols = removeCol(d.cols, c)
			d.dropped[c.name] = ts
		}
	case p.acceptKw("rename"):
		p.acceptKw("if", "exists")
		for {
			from, ft, err := p.ident("a column name")
			if err != nil {
				return err
			}
			if err := p.expectKw("to"); err != nil {
				return err
			}
			to, tt, err := p.ident("a column name")
			if err != nil {
				return err
			}
			c := d.col(from)
			if c == nil {
				return p.errAt(ft, "column %s does not exist", from)
			}
			if d.col(to) != nil {
				return p.errAt(tt, "column %s already exists", to)
			}
			c.name = to
			if !p.acceptKw("and") {
				break
			}
		}
	case p.acceptKw("with"):
		return r.tableOptions(p, d)
	default:
		return p.errAt(t, "unsupported ALTER TABLE: want ADD, DROP, RENAME or WITH, found %s", t.describe())
	}
	if err != nil {
		return err
	}
	return p.end()
}

// list reads either one item or a parenthesised, comma-separated list.
func (p *parser) list(item func() error) error {
	if !p.acceptSym('(') {
		return item()
	}
	for {
		if err := item(); err != nil {
			return err
		}
		if !p.acceptSym(',') {
			break
		}
	}
	return p.expectSym(')')
}

func removeCol(cols []*colDef, c *colDef) []*colDef {
	out := cols[:0]
	for _, x := range cols {
		if x != c {
			out = append(out, x)
		}
	}
	return out
}
