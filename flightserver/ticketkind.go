package flightserver

import (
	"bytes"
	"encoding/json"
	"strings"
)

// isCommand tells a command sent to DoGet as its ticket from a ticket a
// plan issued, by structure: a command is a JSON object with a top-level
// version member (docs/flight-api.md), and a ticket never has one (its
// version is "v"). Names and values inside it are data: a keyspace, table
// or column named version, or a key value holding the word, leave a
// ticket a ticket. Anything that is not a JSON object is no command, and
// DecodeTicket reports what is wrong with it.
func isCommand(b []byte) bool { return hasMember(b, commandVersionMember) }

const commandVersionMember = "version"

// hasMember reports whether b is a JSON object with a top-level member
// called name, matched as encoding/json matches a member to a struct
// field (escapes decoded, case folded), since that is how the command
// decoder will read it. It scans b once without allocating (unless a
// member name holds an escape) and stops at the first match: a command
// usually starts with its version.
//
// NB: it only finds member names; it does not validate the JSON. A
// malformed object is judged by the decoder it is then given to.
func hasMember(b []byte, name string) bool {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	depth, wantName := 0, false
	for ; i < len(b); i++ {
		switch b[i] {
		case '"':
			end, escaped := stringEnd(b, i)
			if end < 0 {
				return false
			}
			if depth == 1 && wantName {
				if memberNameIs(b[i:end], escaped, name) {
					return true
				}
				wantName = false
			}
			i = end - 1
		case '{':
			depth++
			wantName = depth == 1
		case '[':
			depth++
		case '}', ']':
			depth--
			if depth <= 0 {
				return false
			}
		case ',':
			wantName = depth == 1
		}
	}
	return false
}

// skipSpace returns the index of the first byte at or after i that is not
// JSON whitespace.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// stringEnd returns the index just past the string starting at the quote
// b[i], and whether it holds an escape; -1 if it is not closed.
func stringEnd(b []byte, i int) (int, bool) {
	escaped := false
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			escaped = true
			i++ // the escaped byte cannot close the string
		case '"':
			return i + 1, escaped
		}
	}
	return -1, escaped
}

// memberNameIs compares a quoted member name with name as encoding/json
// matches a member to a field: under Unicode simple case folding, which
// is bytes.EqualFold (encoding/json's foldName says so).
func memberNameIs(quoted []byte, escaped bool, name string) bool {
	if !escaped {
		return bytes.EqualFold(quoted[1:len(quoted)-1], []byte(name))
	}
	var s string
	if err := json.Unmarshal(quoted, &s); err != nil {
		return false
	}
	return strings.EqualFold(s, name)
}
