package flightserver

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestIsCommandByStructure: a command is told from a ticket by its
// top-level version member, never by the word appearing in names or
// values.
func TestIsCommandByStructure(t *testing.T) {
	named := (&Ticket{Version: TicketVersion, Keyspace: "version", Table: "version", Columns: []string{"version", "v"},
		Keys: [][]byte{[]byte(`"version"`)}, Now: 1, Epoch: "version"}).Encode()
	sliced := (&Ticket{Version: TicketVersion, Keyspace: "ks", Table: "t", Keys: [][]byte{{1}},
		Slice: &TicketSlice{Start: [][]byte{[]byte(`{"version":1}`)}, HasStart: true}, Now: 1}).Encode()
	for _, c := range []struct {
		in   string
		want bool
	}{
		{string(named), false},
		{string(sliced), false},
		{`{"v":1,"ks":"ks","t":"version","range":["1","2"],"now":5}`, false},
		{`{"v":1,"ks":"ks","t":"t","cols":["version"],"range":["1","2"],"now":5}`, false},
		{`{"v":1,"ks":"ks","t":"t","nested":{"version":1},"range":["1","2"],"now":5}`, false},
		{`{"v":1,"ks":"ks","t":"t","list":[{"version":1},"version"],"now":5}`, false},
		{`{"v":1,"ks":"ks\"version\"","t":"t","now":5}`, false},
		{`{"version":1,"keyspace":"ks","table":"t","keys":[{"k":1}]}`, true},
		{`{"keyspace":"version","table":"version","columns":["version"],"keys":[{"version":1}],"version":1}`, true},
		{` { "keyspace" : "ks" , "version" : 1 } `, true},
		{`{"Version":1,"keyspace":"ks","table":"t"}`, true},
		{`{"vers\u0069on":1,"keyspace":"ks","table":"t"}`, true},
		{`{"keyspace":"ks","table":"t","keys":[{"version":1}]}`, false},
		{`["version"]`, false},
		{`"version"`, false},
		{``, false},
		{`{"version`, false},
	} {
		if got := isCommand([]byte(c.in)); got != c.want {
			t.Errorf("isCommand(%s) = %v, want %v", c.in, got, c.want)
		}
	}
}

// FuzzIsCommand: for every JSON object, isCommand agrees with
// encoding/json on whether a top-level member would fill the command's
// version field.
func FuzzIsCommand(f *testing.F) {
	for _, s := range []string{
		`{"version":1,"keyspace":"ks","table":"t","keys":[{"k":1}]}`,
		`{"v":1,"ks":"version","t":"version","cols":["version"],"range":["1","2"],"now":5}`,
		`{"a":{"version":1},"b":["version",{"version":2}],"c":"\"version\""}`,
		`{"VERSION":1}`,
		`{"vers\u0069on":1}`,
		`{"a\\":"version"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var m map[string]json.RawMessage
		if json.Unmarshal(b, &m) != nil || m == nil {
			isCommand(b) // only: never panic
			return
		}
		want := false
		for k := range m {
			if bytes.EqualFold([]byte(k), []byte(commandVersionMember)) {
				want = true
			}
		}
		if got := isCommand(b); got != want {
			t.Fatalf("isCommand(%q) = %v, encoding/json finds a version member: %v", b, got, want)
		}
	})
}

// BenchmarkIsCommand: telling a command from a ticket costs next to
// nothing beside decoding either.
func BenchmarkIsCommand(b *testing.B) {
	command := []byte(`{"version":1,"keyspace":"bench","table":"narrow","keys":[{"key":"key-0000000042"}]}`)
	ticket := (&Ticket{Version: TicketVersion, Keyspace: "bench", Table: "narrow", Columns: []string{"k", "v"},
		Keys: [][]byte{[]byte("key-0000000042")}, Now: 1700000000, Epoch: "e1"}).Encode()
	b.Run("command", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if !isCommand(command) {
				b.Fatal("not a command")
			}
		}
	})
	b.Run("ticket", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if isCommand(ticket) {
				b.Fatal("not a ticket")
			}
		}
	})
}
