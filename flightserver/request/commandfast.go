package request

import (
	"encoding/json"
	"math"
)

// parseCommandFast reads the commonest commands, a point read or a scan
// ({"version":1,"keyspace":"ks","table":"t","keys":[{"k":1}],...} with
// columns, limit, splits and query_id), without encoding/json: its
// reflection and double scan were 19k instructions a command, 13% of a
// direct keyed read's server time (callgrind). It accepts only a strict subset: known
// lower-case fields each at most once, plain ASCII strings without
// escapes, integers, and key values that are such strings, numbers, true,
// false or null. For anything else (or any doubt) it returns false and
// ParseCommand takes encoding/json's path, so both read every command it
// accepts alike (FuzzParseCommandFast checks it).
func parseCommandFast(b []byte) (*Command, bool) {
	p := fastParser{b: b}
	var c Command
	var seen uint16 // one bit per field read
	if !p.byte('{') {
		return nil, false
	}
	for first := true; ; first = false {
		if p.byte('}') {
			break
		}
		if !first && !p.byte(',') {
			return nil, false
		}
		name, ok := p.str()
		if !ok || !p.byte(':') {
			return nil, false
		}
		bit := uint16(1) << fastFields[name] // 1<<0 for unknown names
		if fastFields[name] == 0 || seen&bit != 0 {
			return nil, false // unknown, or read twice
		}
		seen |= bit
		switch name {
		case "version":
			v, ok := p.int(math.MinInt32, math.MaxInt32)
			if !ok {
				return nil, false
			}
			c.Version = int(v)
		case "keyspace":
			if c.Keyspace, ok = p.str(); !ok {
				return nil, false
			}
		case "table":
			if c.Table, ok = p.str(); !ok {
				return nil, false
			}
		case "limit":
			if c.Limit, ok = p.int(math.MinInt64, math.MaxInt64); !ok {
				return nil, false
			}
		case "splits":
			v, ok := p.int(math.MinInt32, math.MaxInt32)
			if !ok {
				return nil, false
			}
			c.Splits = int(v)
		case "columns":
			if c.Columns, ok = p.strings(); !ok {
				return nil, false
			}
		case "keys":
			if c.Keys, ok = p.keys(); !ok {
				return nil, false
			}
		case "query_id":
			// Trino names every plan's query: the point reads it sends
			// carry one. An id the check refuses is encoding/json's to
			// report.
			id, ok := p.str()
			if !ok || checkQueryID(id) != nil {
				return nil, false
			}
			c.QueryID = QueryID(id)
		default:
			return nil, false
		}
	}
	p.space()
	if p.i != len(p.b) {
		return nil, false // trailing bytes: let encoding/json judge
	}
	return &c, true
}

// fastFields numbers the fields parseCommandFast reads (from 1).
var fastFields = map[string]int{"version": 1, "keyspace": 2, "table": 3, "limit": 4, "splits": 5, "columns": 6, "keys": 7, "query_id": 8}

type fastParser struct {
	b []byte
	i int
}

func (p *fastParser) space() {
	for p.i < len(p.b) && (p.b[p.i] == ' ' || p.b[p.i] == '\t' || p.b[p.i] == '\n' || p.b[p.i] == '\r') {
		p.i++
	}
}

// byte consumes c after optional whitespace.
func (p *fastParser) byte(c byte) bool {
	p.space()
	if p.i < len(p.b) && p.b[p.i] == c {
		p.i++
		return true
	}
	return false
}

// str reads a string of printable ASCII without escapes.
func (p *fastParser) str() (string, bool) {
	raw, ok := p.rawStr()
	if !ok {
		return "", false
	}
	return string(raw[1 : len(raw)-1]), true
}

// rawStr reads such a string and returns it with its quotes.
func (p *fastParser) rawStr() ([]byte, bool) {
	p.space()
	if p.i >= len(p.b) || p.b[p.i] != '"' {
		return nil, false
	}
	start := p.i
	for p.i++; p.i < len(p.b); p.i++ {
		switch c := p.b[p.i]; {
		case c == '"':
			p.i++
			return p.b[start:p.i], true
		case c == '\\' || c < 0x20 || c >= 0x7f:
			return nil, false
		}
	}
	return nil, false
}

// int reads an integer literal (no fraction, no exponent) within [lo, hi].
func (p *fastParser) int(lo, hi int64) (int64, bool) {
	raw, ok := p.number()
	if !ok {
		return 0, false
	}
	neg := raw[0] == '-'
	if neg {
		raw = raw[1:]
	}
	var v uint64
	for _, c := range raw {
		if c < '0' || c > '9' {
			return 0, false // a fraction or an exponent
		}
		if v > (math.MaxUint64-9)/10 {
			return 0, false
		}
		v = v*10 + uint64(c-'0')
	}
	if neg {
		if v > uint64(-lo) && !(lo == math.MinInt64 && v == 1<<63) {
			return 0, false
		}
		return -int64(v), true
	}
	if v > uint64(hi) {
		return 0, false
	}
	return int64(v), true
}

// number reads a JSON number as the grammar gives it.
func (p *fastParser) number() ([]byte, bool) {
	p.space()
	start, b := p.i, p.b
	i := p.i
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	default:
		return nil, false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			return nil, false
		}
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			return nil, false
		}
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	}
	p.i = i
	return b[start:i], true
}

// strings reads an array of plain strings.
func (p *fastParser) strings() ([]string, bool) {
	if !p.byte('[') {
		return nil, false
	}
	out := []string{}
	for first := true; ; first = false {
		if p.byte(']') {
			return out, true
		}
		if !first && !p.byte(',') {
			return nil, false
		}
		s, ok := p.str()
		if !ok {
			return nil, false
		}
		out = append(out, s)
	}
}

// keys reads an array of objects of column → plain value.
func (p *fastParser) keys() ([]map[string]json.RawMessage, bool) {
	if !p.byte('[') {
		return nil, false
	}
	out := []map[string]json.RawMessage{}
	for first := true; ; first = false {
		if p.byte(']') {
			return out, true
		}
		if !first && !p.byte(',') {
			return nil, false
		}
		if !p.byte('{') {
			return nil, false
		}
		m := map[string]json.RawMessage{}
		for firstCol := true; ; firstCol = false {
			if p.byte('}') {
				break
			}
			if !firstCol && !p.byte(',') {
				return nil, false
			}
			col, ok := p.str()
			if _, dup := m[col]; !ok || dup || !p.byte(':') {
				return nil, false
			}
			v, ok := p.value()
			if !ok {
				return nil, false
			}
			m[col] = append(json.RawMessage(nil), v...)
		}
		out = append(out, m)
	}
}

// value reads a plain string, a number, true, false or null.
func (p *fastParser) value() ([]byte, bool) {
	p.space()
	if p.i >= len(p.b) {
		return nil, false
	}
	switch c := p.b[p.i]; {
	case c == '"':
		return p.rawStr()
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	}
	for _, lit := range []string{"true", "false", "null"} {
		if len(p.b)-p.i >= len(lit) && string(p.b[p.i:p.i+len(lit)]) == lit {
			p.i += len(lit)
			return p.b[p.i-len(lit) : p.i], true
		}
	}
	return nil, false
}
