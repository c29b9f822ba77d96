package marshal

import (
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/sstable-flight/sstable-flight/internal/snippet"
)

// ErrSyntax is the kind of every error for a malformed type string, and
// ErrUnknownType of every error for a well-formed string naming a class
// this package does not know; test with errors.Is.
var (
	ErrSyntax      = errors.New("marshal: syntax error")
	ErrUnknownType = errors.New("marshal: unknown marshal type")
)

// Error is the error Parse returns. It names the whole type string and the
// byte offset of the problem, as Cassandra's own SyntaxException does.
type Error struct {
	Input string // the string given to Parse
	Pos   int    // byte offset into Input
	Msg   string // what is wrong, e.g. "unknown marshal type org.apache.cassandra.db.marshal.Foo"
	Err   error  // ErrSyntax or ErrUnknownType
}

func (e *Error) Error() string {
	// NB: the type string comes from a file (a Statistics.db header) and
	// may be anything: show the part around the position, not all of it
	// (maxShown bytes: a real type string, a UDT's included, fits).
	return "marshal: " + snippet.Cut(e.Msg, maxShown) + " at char " + strconv.Itoa(e.Pos) + " of " + snippet.Around(e.Input, e.Pos, maxShown)
}

func (e *Error) Unwrap() error { return e.Err }

// maxShown bounds what an Error shows of its input and message.
const maxShown = 512

// maxDepth bounds nesting so hostile input cannot recurse without limit;
// real schemas nest a handful of levels.
const maxDepth = 100

// Parse parses one Cassandra type string, as found in a Statistics.db
// serialization header, into a Type tree. Errors are *Error.
func Parse(s string) (*Type, error) {
	p := parser{s: s}
	t, err := p.parseType(0)
	if err != nil {
		return nil, err
	}
	p.skipBlank()
	if p.i < len(s) {
		return nil, p.errorf("unexpected %q after the type", s[p.i])
	}
	return t, nil
}

type parser struct {
	s string
	i int
}

func (p *parser) errorf(format string, args ...any) *Error {
	return &Error{Input: p.s, Pos: p.i, Msg: fmt.Sprintf(format, args...), Err: ErrSyntax}
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\n' }

// isIdentChar is TypeParser.isIdentifierChar.
func isIdentChar(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' ||
		c == '-' || c == '+' || c == '.' || c == '_' || c == '&'
}

func (p *parser) skipBlank() {
	for p.i < len(p.s) && isBlank(p.s[p.i]) {
		p.i++
	}
}

func (p *parser) ident() string {
	j := p.i
	for p.i < len(p.s) && isIdentChar(p.s[p.i]) {
		p.i++
	}
	return p.s[j:p.i]
}

// peek skips blanks and returns the next byte, 0 at the end.
func (p *parser) peek() byte {
	p.skipBlank()
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

func (p *parser) expect(c byte) error {
	if got := p.peek(); got != c {
		if got == 0 {
			return p.errorf("expected %q, found end of string", c)
		}
		return p.errorf("expected %q, found %q", c, got)
	}
	p.i++
	return nil
}

// more consumes the separator between parameters: it returns false after
// consuming the closing ')', true after consuming a ','.
func (p *parser) more() (bool, error) {
	switch c := p.peek(); c {
	case ')':
		p.i++
		return false, nil
	case ',':
		p.i++
		return true, nil
	case 0:
		return false, p.errorf("unexpected end of string, expected ',' or ')'")
	default:
		return false, p.errorf("unexpected %q, expected ',' or ')'", c)
	}
}

// className strips Cassandra's default package; ok is false for any other
// package, since only org.apache.cassandra.db.marshal classes are known.
func className(name string) (string, bool) {
	if !strings.Contains(name, ".") {
		return name, true
	}
	short, found := strings.CutPrefix(name, pkg)
	return short, found && !strings.Contains(short, ".")
}

func (p *parser) parseType(depth int) (*Type, error) {
	if depth > maxDepth {
		return nil, p.errorf("types nested deeper than %d levels", maxDepth)
	}
	p.skipBlank()
	start := p.i
	name := p.ident()
	if name == "" {
		if p.i >= len(p.s) {
			return nil, p.errorf("expected a type name, found end of string")
		}
		return nil, p.errorf("expected a type name, found %q", p.s[p.i])
	}
	short, ok := className(name)
	hasParams := p.peek() == '('

	switch short {
	case "FrozenType", "ReversedType":
		if !hasParams {
			return nil, p.errorf("%s needs one type parameter", name)
		}
		elems, err := p.typeList(depth)
		if err != nil {
			return nil, err
		}
		if len(elems) != 1 {
			return nil, &Error{Input: p.s, Pos: start, Msg: fmt.Sprintf("%s takes exactly 1 type parameter, got %d", name, len(elems)), Err: ErrSyntax}
		}
		t := elems[0]
		if short == "FrozenType" {
			freeze(t)
			return t, nil
		}
		if t.Reversed {
			return nil, &Error{Input: p.s, Pos: start, Msg: "ReversedType of a reversed type", Err: ErrSyntax}
		}
		t.Reversed = true
		return t, nil
	case "DateType":
		// Legacy timestamp: same encoding as TimestampType.
		short = natives[Timestamp].class
	}

	k, known := classKinds[short]
	if !ok || !known {
		return nil, &Error{Input: p.s, Pos: start, Msg: "unknown marshal type " + name, Err: ErrUnknownType}
	}
	t := &Type{Kind: k}
	if k.IsNative() {
		if hasParams {
			rev, err := p.keyValueParams()
			if err != nil {
				return nil, err
			}
			t.Reversed = rev
		}
		return t, nil
	}
	if !hasParams && k != Composite && k != DynamicComposite && k != Tuple {
		return nil, p.errorf("%s needs type parameters", name)
	}

	var err error
	switch k {
	case List, Set, Map, Tuple, Composite:
		if hasParams {
			if t.Elems, err = p.typeList(depth); err != nil {
				return nil, err
			}
		}
		want := 0
		switch k {
		case List, Set:
			want = 1
		case Map:
			want = 2
		}
		if want > 0 && len(t.Elems) != want {
			return nil, &Error{Input: p.s, Pos: start, Msg: fmt.Sprintf("%s takes exactly %d type parameters, got %d", name, want, len(t.Elems)), Err: ErrSyntax}
		}
		if k == Tuple {
			// Tuples are always frozen, and so is what they hold.
			freeze(t)
		}
	case UDT:
		err = p.userType(t, depth)
	case Vector:
		err = p.vector(t, depth)
	case DynamicComposite:
		if hasParams {
			err = p.aliases(t, depth)
		}
	case PartitionerOrder:
		err = p.partitionerOrder(t, depth)
	}
	if err != nil {
		return nil, err
	}
	return t, nil
}

// typeList parses "(" [type {"," type}] ")".
func (p *parser) typeList(depth int) ([]*Type, error) {
	if err := p.expect('('); err != nil {
		return nil, err
	}
	if p.peek() == ')' {
		p.i++
		return nil, nil
	}
	var elems []*Type
	for {
		e, err := p.parseType(depth + 1)
		if err != nil {
			return nil, err
		}
		elems = append(elems, e)
		more, err := p.more()
		if err != nil {
			return nil, err
		}
		if !more {
			return elems, nil
		}
	}
}

// keyValueParams parses the legacy "(k[=v], ...)" list a native type may
// carry (AbstractType.parseDefaultParameters) and reports whether it asks
// for reversal; Cassandra ignores every other key.
func (p *parser) keyValueParams() (reversed bool, err error) {
	if err := p.expect('('); err != nil {
		return false, err
	}
	if p.peek() == ')' {
		p.i++
		return false, nil
	}
	for {
		p.skipBlank()
		k := p.ident()
		if k == "" {
			return false, p.errorf("expected a parameter name")
		}
		v := ""
		if p.peek() == '=' {
			p.i++
			p.skipBlank()
			v = p.ident()
		}
		if k == "reversed" && (v == "" || v == "true") {
			reversed = true
		}
		more, err := p.more()
		if err != nil {
			return false, err
		}
		if !more {
			return reversed, nil
		}
	}
}

func (p *parser) hexIdent(what string) (string, error) {
	p.skipBlank()
	at := p.i
	h := p.ident()
	if h == "" {
		return "", p.errorf("expected hex %s", what)
	}
	b, err := hex.DecodeString(h)
	if err != nil {
		return "", &Error{Input: p.s, Pos: at, Msg: fmt.Sprintf("bad hex %s %q: %v", what, h, err), Err: ErrSyntax}
	}
	return string(b), nil
}

// userType parses "(" keyspace "," hexname {"," hexfield ":" type} ")".
func (p *parser) userType(t *Type, depth int) error {
	if err := p.expect('('); err != nil {
		return err
	}
	p.skipBlank()
	if t.Keyspace = p.ident(); t.Keyspace == "" {
		return p.errorf("expected a keyspace name")
	}
	if err := p.expect(','); err != nil {
		return err
	}
	var err error
	if t.Name, err = p.hexIdent("type name"); err != nil {
		return err
	}
	for {
		more, err := p.more()
		if err != nil {
			return err
		}
		if !more {
			break
		}
		f, err := p.hexIdent("field name")
		if err != nil {
			return err
		}
		if err := p.expect(':'); err != nil {
			return err
		}
		e, err := p.parseType(depth + 1)
		if err != nil {
			return err
		}
		// Field values are single cells even in a non-frozen UDT: what
		// a field holds is frozen whether or not the string says so
		// (Cassandra before 5.0 omitted FrozenType on fields).
		freeze(e)
		t.FieldNames = append(t.FieldNames, f)
		t.Elems = append(t.Elems, e)
	}
	return nil
}

// vector parses "(" type "," dimension ")".
func (p *parser) vector(t *Type, depth int) error {
	if err := p.expect('('); err != nil {
		return err
	}
	e, err := p.parseType(depth + 1)
	if err != nil {
		return err
	}
	freeze(e) // VectorType freezes its element
	if err := p.expect(','); err != nil {
		return err
	}
	p.skipBlank()
	at := p.i
	d := p.ident()
	n, perr := strconv.Atoi(d)
	if perr != nil || n <= 0 || n > math.MaxInt32 {
		return &Error{Input: p.s, Pos: at, Msg: fmt.Sprintf("bad vector dimension %q: want a positive 32-bit integer", d), Err: ErrSyntax}
	}
	if w := e.FixedLength(); w > 0 && int64(w)*int64(n) > math.MaxInt32 {
		return &Error{Input: p.s, Pos: at, Msg: fmt.Sprintf("vector of %d %d-byte elements is too large", n, w), Err: ErrSyntax}
	}
	if err := p.expect(')'); err != nil {
		return err
	}
	t.Elems, t.Dim, t.Frozen = []*Type{e}, n, true
	return nil
}

// aliases parses DynamicCompositeType's "(" c "=>" type {"," c "=>" type} ")".
func (p *parser) aliases(t *Type, depth int) error {
	if err := p.expect('('); err != nil {
		return err
	}
	if p.peek() == ')' {
		p.i++
		return nil
	}
	for {
		p.skipBlank()
		at := p.i
		a := p.ident()
		if len(a) != 1 {
			return &Error{Input: p.s, Pos: at, Msg: fmt.Sprintf("DynamicCompositeType alias %q is not a single character", a), Err: ErrSyntax}
		}
		if p.peek() != '=' || p.i+1 >= len(p.s) || p.s[p.i+1] != '>' {
			return p.errorf("expected \"=>\"")
		}
		p.i += 2
		e, err := p.parseType(depth + 1)
		if err != nil {
			return err
		}
		t.Aliases = append(t.Aliases, a[0])
		t.Elems = append(t.Elems, e)
		more, err := p.more()
		if err != nil {
			return err
		}
		if !more {
			return nil
		}
	}
}

// partitionerOrder parses "(" partitioner [":" type] ")": Cassandra 5.0
// appends the base table's partition key type, older versions do not.
func (p *parser) partitionerOrder(t *Type, depth int) error {
	if err := p.expect('('); err != nil {
		return err
	}
	p.skipBlank()
	if t.Partitioner = p.ident(); t.Partitioner == "" {
		return p.errorf("expected a partitioner class")
	}
	if p.peek() == ':' {
		p.i++
		e, err := p.parseType(depth + 1)
		if err != nil {
			return err
		}
		t.Elems = []*Type{e}
	}
	return p.expect(')')
}

// freeze marks t and everything nested in it frozen: a frozen value is one
// serialized blob, so nothing inside it can be multi-cell.
func freeze(t *Type) {
	switch t.Kind {
	case List, Set, Map, UDT, Tuple, Vector:
		t.Frozen = true
	default:
		return // natives; composite kinds hold no multi-cell types
	}
	for _, e := range t.Elems {
		freeze(e)
	}
}
