package catalog

import (
	"strings"
)

// parser walks the tokens of one statement (or one type string). Errors
// point into text, the whole input the tokens were cut from, and name
// the statement's opening words.
type parser struct {
	text string
	toks []token // ends with tEOF
	i    int
	stmt string
}

func newParser(text string, toks []token) *parser {
	p := &parser{text: text, toks: toks}
	p.stmt = p.head()
	return p
}

// head is the statement's opening words, for error messages: up to the
// first parenthesis or six words, a qualified name counting as one, e.g.
// "CREATE TABLE corpus.udts".
func (p *parser) head() string {
	var b strings.Builder
	words := 0
	for i, t := range p.toks {
		if t.kind == tEOF || t.isSym('(') || t.isSym(';') {
			break
		}
		joined := t.isSym('.') || i > 0 && p.toks[i-1].isSym('.')
		if !joined {
			if words == 6 {
				break
			}
			words++
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
		}
		switch t.kind {
		case tQIdent:
			b.WriteString(`"` + t.text + `"`)
		case tString:
			b.WriteString("'" + t.text + "'")
		default:
			b.WriteString(t.text)
		}
	}
	return b.String()
}

func (p *parser) peek() token { return p.toks[p.i] }

func (p *parser) peekAt(n int) token {
	if p.i+n < len(p.toks) {
		return p.toks[p.i+n]
	}
	return p.toks[len(p.toks)-1]
}

func (p *parser) next() token {
	t := p.toks[p.i]
	if t.kind != tEOF {
		p.i++
	}
	return t
}

func (p *parser) errAt(t token, format string, args ...any) *SyntaxError {
	return synErr(p.text, t.pos, p.stmt, format, args...)
}

// acceptKw consumes the keywords kws if they come next, all of them.
func (p *parser) acceptKw(kws ...string) bool {
	for j, kw := range kws {
		if !p.peekAt(j).is(kw) {
			return false
		}
	}
	p.i += len(kws)
	return true
}

func (p *parser) expectKw(kws ...string) error {
	if !p.acceptKw(kws...) {
		return p.errAt(p.peek(), "expected %s, found %s", strings.ToUpper(strings.Join(kws, " ")), p.peek().describe())
	}
	return nil
}

func (p *parser) acceptSym(c byte) bool {
	if p.peek().isSym(c) {
		p.i++
		return true
	}
	return false
}

func (p *parser) expectSym(c byte) error {
	if !p.acceptSym(c) {
		return p.errAt(p.peek(), "expected '%c', found %s", c, p.peek().describe())
	}
	return nil
}

// ident reads an identifier, quoted or not (unreserved keywords such as
// "key" or "type" are valid names unquoted).
func (p *parser) ident(what string) (string, token, error) {
	t := p.peek()
	if t.kind != tIdent && t.kind != tQIdent {
		return "", t, p.errAt(t, "expected %s, found %s", what, t.describe())
	}
	p.i++
	return t.name(), t, nil
}

// qualifiedName reads [keyspace "."] name; keyspace is "" when absent.
func (p *parser) qualifiedName(what string) (ks, name string, t token, err error) {
	name, t, err = p.ident(what)
	if err != nil {
		return "", "", t, err
	}
	if p.acceptSym('.') {
		ks = name
		if name, _, err = p.ident(what); err != nil {
			return "", "", t, err
		}
	}
	return ks, name, t, nil
}

// skipValue skips one option value or column qualifier: tokens up to the
// next ',' ')' ';' or AND at nesting depth 0, with (), {} and [] balanced.
func (p *parser) skipValue() error {
	depth := 0
	for {
		t := p.peek()
		switch {
		case t.kind == tEOF:
			if depth > 0 {
				return p.errAt(t, "unbalanced brackets: unexpected end of statement")
			}
			return nil
		case t.isSym('(') || t.isSym('{') || t.isSym('['):
			depth++
		case t.isSym(')') || t.isSym('}') || t.isSym(']'):
			if depth == 0 {
				return nil
			}
			depth--
		case depth == 0 && (t.isSym(',') || t.isSym(';') || t.is("and")):
			return nil
		}
		p.i++
	}
}

// skipGroup skips a parenthesised group, nested brackets included.
func (p *parser) skipGroup() error {
	open := p.next()
	depth := 1
	for depth > 0 {
		t := p.next()
		switch {
		case t.kind == tEOF:
			return p.errAt(open, "unbalanced brackets: no ')' closes this '('")
		case t.isSym('(') || t.isSym('{') || t.isSym('['):
			depth++
		case t.isSym(')') || t.isSym('}') || t.isSym(']'):
			depth--
		}
	}
	return nil
}
