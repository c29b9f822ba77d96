package request

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// FuzzParseCommandFast: whatever parseCommandFast accepts, encoding/json
// reads the same way (the same Command, no error); what it refuses goes
// to encoding/json, so the two paths never disagree. Either path takes
// only one JSON object, nothing after it, with each member once (under
// case folding for the command's fields, exactly for a key's columns),
// as the fuzz checks with its own reading of the members.
func FuzzParseCommandFast(f *testing.F) {
	for _, s := range []string{
		`{"version":1,"keyspace":"ks","table":"t","keys":[{"k":1}]}`,
		`{"version":1,"keyspace":"ks","table":"t","keys":[{"k":"a","c":-2.5e3}],"columns":["v","k"],"limit":10}`,
		` { "version" : 1 , "keyspace" : "ks" , "table" : "t" , "splits" : 4 } `,
		`{"version":1,"keyspace":"ks","table":"t","keys":[{"a":true,"b":null},{"a":false,"b":0}]}`,
		`{"version":1,"keyspace":"ks","table":"t","keys":[]}`,
		`{"version":1,"keyspace":"ks","table":"t","columns":[]}`,
		`{"version":1,"Keyspace":"ks","table":"t"}`,
		`{"version":1,"keyspace":"k\"s","table":"t"}`,
		`{"version":1,"keyspace":"ks","table":"t","limit":9223372036854775807}`,
		`{"version":1,"keyspace":"ks","table":"t","limit":-9223372036854775808}`,
		`{"version":1,"keyspace":"ks","table":"t"} trailing`,
		`{"version":1,"version":2,"keyspace":"ks","table":"t"}`,
		`{"version":1,"keyspace":"ks","table":"t","token_range":{"start":"1","end":2}}`,
		`{"version":1,"keyspace":"ks","table":"t"}{"version":1,"keyspace":"ks","table":"t"}`,
		`{"version":1,"keyspace":"ks","table":"t"} null`,
		`{"version":1,"keyspace":"ks","table":"t","TABLE":"u"}`,
		`{"version":1,"keyspace":"ks","table":"t","t\u0061ble":"u"}`,
		`{"version":1,"keyspace":"ks","table":"t","keys":[{"k":1,"k":2}]}`,
		`{"version":1,"keyspace":"ks","table":"t","keys":[{"k":1,"K":2}]}`,
		`{"version":1,"keyspace":"ks","table":"t","keys":[{"k":1}],"clustering":{"start":{"values":[1],"values":[2]}}}`,
		`{"version":1,"keyspace":"ks","table":"t","keys":[{"k":1}],"query_id":"20250101_120000_00001_abcde"}`,
		`{"version":1,"keyspace":"ks","table":"t","query_id":""}`,
		`{"version":1,"keyspace":"ks","table":"t","query_id":null}`,
		`{"version":1,"keyspace":"ks","table":"t","query_id":"q\u0041"}`,
		`{"version":1,"keyspace":"ks","table":"t","query_id":"q\n"}`,
		`{"version":1,"keyspace":"ks","table":"t","query_id":7}`,
		`{"version":1,"keyspace":"ks","table":"t","query_id":"` + strings.Repeat("q", 129) + `"}`,
		`{"version":1,"keyspace":"ks","table":"t","query_id":"a","Query_Id":"b"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		fast, fastOK := parseCommandFast(b)
		slow, err := decodeCommand(b)
		if fastOK && err != nil {
			t.Fatalf("fast path read %q, encoding/json refused it: %v", b, err)
		}
		if fastOK && !reflect.DeepEqual(fast, slow) {
			t.Fatalf("%q: fast path %+v, encoding/json %+v", b, fast, slow)
		}
		if err != nil {
			return
		}
		if !json.Valid(b) {
			t.Fatalf("%q: read as a command, but it is not one JSON value alone", b)
		}
		if name, dup := repeatedMember(b); dup {
			t.Fatalf("%q: read as a command, with member %q twice", b, name)
		}
	})
}

// repeatedMember finds a member named twice at the top of a command (as
// encoding/json folds field names) or in one of its keys (exactly), by
// reading the members in order: the fuzz's own reading, not the one
// checkMembersOnce does.
func repeatedMember(b []byte) (string, bool) {
	members := func(raw []byte) ([]string, map[string]json.RawMessage) {
		dec := json.NewDecoder(bytes.NewReader(raw))
		if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
			return nil, nil
		}
		var names []string
		values := map[string]json.RawMessage{}
		for dec.More() {
			tok, err := dec.Token()
			if err != nil {
				return nil, nil
			}
			var v json.RawMessage
			if dec.Decode(&v) != nil {
				return nil, nil
			}
			names = append(names, tok.(string))
			values[strings.ToLower(tok.(string))] = v
		}
		return names, values
	}
	names, values := members(b)
	for i, n := range names {
		for _, m := range names[:i] {
			if bytes.EqualFold([]byte(n), []byte(m)) {
				return n, true
			}
		}
	}
	var keys []json.RawMessage
	if json.Unmarshal(values["keys"], &keys) == nil {
		for _, k := range keys {
			cols, _ := members(k)
			for i, n := range cols {
				if slices.Contains(cols[:i], n) {
					return n, true
				}
			}
		}
	}
	return "", false
}

// TestParseCommandFastTakesPointReads: the commands clients send most
// take the fast path (else it would save nothing).
func TestParseCommandFastTakesPointReads(t *testing.T) {
	for _, s := range []string{
		`{"version":1,"keyspace":"bench","table":"narrow","keys":[{"key":"key-0000000042"}]}`,
		`{"version":1,"keyspace":"ks","table":"t","columns":["a","b"],"keys":[{"p":1,"q":"x"},{"p":2,"q":"y"}],"limit":5}`,
		`{"version":1,"keyspace":"ks","table":"t","splits":8}`,
		`{"version":1,"keyspace":"ks","table":"t","keys":[{"k":1}],"query_id":"20250101_120000_00001_abcde"}`,
	} {
		if _, ok := parseCommandFast([]byte(s)); !ok {
			t.Errorf("%s: not taken by the fast path", s)
		}
	}
}
