package catalog

import (
	"fmt"
	"strings"

	"github.com/sstable-flight/sstable-flight/internal/snippet"
)

// SyntaxError is a schema text that cannot be read: malformed CQL, a type
// that does not parse, a reference to an unknown type or column. It names
// where the problem is, so an operator can fix the file.
type SyntaxError struct {
	File      string // the file read, "" when the text came from elsewhere
	Line, Col int    // 1-based position of the problem in the text
	Statement string // the statement's opening words, e.g. "CREATE TABLE ks.t"
	Msg       string // what is wrong
}

func (e *SyntaxError) Error() string {
	var b strings.Builder
	if e.File != "" {
		fmt.Fprintf(&b, "%s:%d:%d: ", e.File, e.Line, e.Col)
	} else {
		fmt.Fprintf(&b, "line %d col %d: ", e.Line, e.Col)
	}
	// NB: the text may not be a schema at all (a schema.cql that is a
	// copy of something else): show a snippet of it, not more.
	if e.Statement != "" {
		fmt.Fprintf(&b, "in %s: ", snippet.QuoteN(e.Statement, 64))
	}
	b.WriteString(snippet.Cut(e.Msg, 200))
	return b.String()
}

// lineCol converts a byte offset of text into a 1-based line and column
// (columns count bytes: the offending text is ASCII in practice).
func lineCol(text string, off int) (line, col int) {
	if off > len(text) {
		off = len(text)
	}
	line = 1 + strings.Count(text[:off], "\n")
	col = off - strings.LastIndexByte(text[:off], '\n')
	return line, col
}

// synErr builds a SyntaxError at byte offset off of text.
func synErr(text string, off int, stmt, format string, args ...any) *SyntaxError {
	l, c := lineCol(text, off)
	return &SyntaxError{Line: l, Col: c, Statement: stmt, Msg: fmt.Sprintf(format, args...)}
}
