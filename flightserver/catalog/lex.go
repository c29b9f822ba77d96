package catalog

import (
	"strings"
)

// tokKind classifies CQL tokens. The lexer knows just enough of CQL's
// lexical grammar (Cql.g's Lexer) to walk DESCRIBE output and type
// strings: identifiers, quoted identifiers, string literals, numbers,
// UUIDs and single-character symbols; comments are skipped.
type tokKind int

const (
	tEOF    tokKind = iota
	tIdent          // unquoted identifier or keyword, as written
	tQIdent         // "quoted identifier", unescaped
	tString         // 'string' or $$string$$, unescaped
	tNumber         // integer, float, hex blob (0x...), as written
	tUUID           // 8-4-4-4-12 hex digits, as written
	tSymbol         // one byte of punctuation: ( ) < > , ; . = { } [ ] : ...
)

type token struct {
	kind tokKind
	text string
	pos  int // byte offset in the whole text
}

// is reports whether t is the unquoted keyword kw (case-insensitive, as
// CQL keywords are).
func (t token) is(kw string) bool { return t.kind == tIdent && strings.EqualFold(t.text, kw) }

// isSym reports whether t is the symbol c.
func (t token) isSym(c byte) bool { return t.kind == tSymbol && t.text[0] == c }

// name is the identifier t denotes: unquoted identifiers are
// case-insensitive and fold to lower case, quoted ones are kept as written.
func (t token) name() string {
	if t.kind == tIdent {
		return strings.ToLower(t.text)
	}
	return t.text
}

func (t token) describe() string {
	switch t.kind {
	case tEOF:
		return "end of input"
	case tString:
		return "string '" + t.text + "'"
	case tQIdent:
		return `"` + t.text + `"`
	}
	return "'" + t.text + "'"
}

// lex splits text into tokens, ending with a tEOF token. An unterminated
// string, quoted identifier or comment, or a byte CQL does not use, is a
// SyntaxError.
func lex(text string) ([]token, *SyntaxError) {
	var toks []token
	i := 0
	for {
		i = skipSpaceAndComments(text, i)
		if i < 0 {
			return nil, synErr(text, len(text), "", "unterminated /* comment")
		}
		if i >= len(text) {
			return append(toks, token{kind: tEOF, pos: len(text)}), nil
		}
		start := i
		c := text[i]
		switch {
		case isUUIDAt(text, i):
			toks = append(toks, token{tUUID, text[i : i+36], start})
			i += 36
		case isLetter(c) || c == '_':
			for i < len(text) && (isLetter(text[i]) || isDigit(text[i]) || text[i] == '_') {
				i++
			}
			toks = append(toks, token{tIdent, text[start:i], start})
		case isDigit(c) || c == '-' && i+1 < len(text) && isDigit(text[i+1]):
			i = scanNumber(text, i)
			toks = append(toks, token{tNumber, text[start:i], start})
		case c == '"' || c == '\'':
			s, end, ok := scanQuoted(text, i, c)
			if !ok {
				what := "string"
				if c == '"' {
					what = "quoted identifier"
				}
				return nil, synErr(text, start, "", "unterminated %s", what)
			}
			k := tString
			if c == '"' {
				k = tQIdent
				if s == "" {
					return nil, synErr(text, start, "", "empty quoted identifier")
				}
			}
			toks = append(toks, token{k, s, start})
			i = end
		case c == '$' && strings.HasPrefix(text[i:], "$$"):
			end := strings.Index(text[i+2:], "$$")
			if end < 0 {
				return nil, synErr(text, start, "", "unterminated $$ string")
			}
			toks = append(toks, token{tString, text[i+2 : i+2+end], start})
			i += 2 + end + 2
		case strings.IndexByte("()<>,;.={}[]:+-*/?!%&|", c) >= 0:
			toks = append(toks, token{tSymbol, text[i : i+1], start})
			i++
		default:
			return nil, synErr(text, start, "", "unexpected character %q", rune(c))
		}
	}
}

// skipSpaceAndComments returns the offset of the next token, or -1 inside
// an unterminated block comment.
func skipSpaceAndComments(text string, i int) int {
	for i < len(text) {
		switch c := text[i]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
			i++
		case strings.HasPrefix(text[i:], "--") || strings.HasPrefix(text[i:], "//"):
			if nl := strings.IndexByte(text[i:], '\n'); nl >= 0 {
				i += nl + 1
			} else {
				i = len(text)
			}
		case strings.HasPrefix(text[i:], "/*"):
			end := strings.Index(text[i+2:], "*/")
			if end < 0 {
				return -1
			}
			i += 2 + end + 2
		default:
			return i
		}
	}
	return i
}

// scanQuoted reads a string or quoted identifier starting at the quote
// q at text[i]; a doubled quote stands for itself.
func scanQuoted(text string, i int, q byte) (s string, end int, ok bool) {
	var b strings.Builder
	for j := i + 1; j < len(text); j++ {
		if text[j] != q {
			b.WriteByte(text[j])
			continue
		}
		if j+1 < len(text) && text[j+1] == q {
			b.WriteByte(q)
			j++
			continue
		}
		return b.String(), j + 1, true
	}
	return "", 0, false
}

// scanNumber reads -?digits[.digits][e[+-]digits], or a 0x hex blob, and
// any letters glued to it (so "12ab" is one bad token, not two good ones).
func scanNumber(text string, i int) int {
	if text[i] == '-' {
		i++
	}
	for i < len(text) && (isDigit(text[i]) || isLetter(text[i]) || text[i] == '_' || text[i] == '.' ||
		(text[i] == '+' || text[i] == '-') && (text[i-1] == 'e' || text[i-1] == 'E')) {
		i++
	}
	return i
}

// isUUIDAt reports whether text[i:] starts with a UUID not glued to more
// identifier characters (Cql.g's UUID token wins over numbers and names).
func isUUIDAt(text string, i int) bool {
	if len(text)-i < 36 {
		return false
	}
	for j := range 36 {
		c := text[i+j]
		if j == 8 || j == 13 || j == 18 || j == 23 {
			if c != '-' {
				return false
			}
		} else if !isHex(c) {
			return false
		}
	}
	if k := i + 36; k < len(text) && (isLetter(text[k]) || isDigit(text[k]) || text[k] == '_') {
		return false
	}
	return true
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool  { return c >= '0' && c <= '9' }
func isHex(c byte) bool    { return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }
