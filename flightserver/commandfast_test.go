package flightserver

import (
	"reflect"
	"testing"
)

// FuzzParseCommandFast: whatever parseCommandFast accepts, encoding/json
// reads the same way (the same Command, no error); what it refuses goes
// to encoding/json, so the two paths never disagree.
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
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		fast, ok := parseCommandFast(b)
		if !ok {
			return
		}
		slow, err := decodeCommand(b)
		if err != nil {
			t.Fatalf("fast path read %q, encoding/json refused it: %v", b, err)
		}
		if !reflect.DeepEqual(fast, slow) {
			t.Fatalf("%q: fast path %+v, encoding/json %+v", b, fast, slow)
		}
	})
}

// TestParseCommandFastTakesPointReads: the commands clients send most
// take the fast path (else it would save nothing).
func TestParseCommandFastTakesPointReads(t *testing.T) {
	for _, s := range []string{
		`{"version":1,"keyspace":"bench","table":"narrow","keys":[{"key":"key-0000000042"}]}`,
		`{"version":1,"keyspace":"ks","table":"t","columns":["a","b"],"keys":[{"p":1,"q":"x"},{"p":2,"q":"y"}],"limit":5}`,
		`{"version":1,"keyspace":"ks","table":"t","splits":8}`,
	} {
		if _, ok := parseCommandFast([]byte(s)); !ok {
			t.Errorf("%s: not taken by the fast path", s)
		}
	}
}
