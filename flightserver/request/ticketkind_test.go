package request

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/sstable-flight/sstable-flight/token"
)

// testKeys are ticket keys for tests of the package.
func testKeys(t testing.TB) *TicketKeys {
	t.Helper()
	k, err := LoadTicketKeys("")
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// TestTicketOrCommand: a ticket is told from a command by its first
// bytes, never by the word version appearing in names or values, and a
// sealed ticket opens to what was sealed.
func TestTicketOrCommand(t *testing.T) {
	keys := testKeys(t)
	named := &Ticket{Keyspace: "version", Table: "version", Columns: []string{"version", "v"},
		Keys: [][]byte{[]byte(`"version"`)}, Now: 1, Epoch: "version"}
	sliced := &Ticket{Keyspace: "ks", Table: "t", Keys: [][]byte{{1}},
		Slice: &TicketSlice{Start: [][]byte{[]byte(`{"version":1}`)}, HasStart: true}, Now: 1, Epoch: "e"}
	for _, tk := range []*Ticket{named, sliced} {
		b, err := keys.Seal(tk)
		if err != nil {
			t.Fatal(err)
		}
		if !IsTicket(b) || IsCommand(b) {
			t.Errorf("sealed %+v: isTicket %v, isCommand %v", tk, IsTicket(b), IsCommand(b))
		}
		got, err := keys.Open(b)
		if err != nil {
			t.Fatalf("open %q: %v", b, err)
		}
		gb, _ := json.Marshal(got)
		wb, _ := json.Marshal(tk)
		if !bytes.Equal(gb, wb) {
			t.Errorf("opened %s, sealed %s", gb, wb)
		}
	}
	for _, c := range []struct {
		in   string
		want bool
	}{
		{`{"version":1,"keyspace":"ks","table":"t","keys":[{"k":1}]}`, true},
		{`{"keyspace":"version","table":"version","columns":["version"],"keys":[{"version":1}],"version":1}`, true},
		{` { "keyspace" : "ks" , "version" : 1 } `, true},
		{`{"keyspace":"ks","table":"t"}`, true},                       // a command; ParseCommand says what it lacks
		{`{"v":1,"ks":"ks","t":"t","range":["1","2"],"now":5}`, true}, // a version 1 ticket is no ticket now
		{`["version"]`, false},
		{`"version"`, false},
		{``, false},
		{"sstf\x02{}", false},
	} {
		t.Run(c.in, func(t *testing.T) {
			if got := IsCommand([]byte(c.in)); got != c.want {
				t.Errorf("isCommand(%s) = %v, want %v", c.in, got, c.want)
			}
			if IsTicket([]byte(c.in)) && IsCommand([]byte(c.in)) {
				t.Errorf("%s: both a ticket and a command", c.in)
			}
		})
	}
}

// FuzzTicketOrCommand: no input is both a ticket and a command; every
// JSON object is a command; every sealed ticket, whatever it holds, is
// a ticket that opens, and no edit of one byte of it does.
func FuzzTicketOrCommand(f *testing.F) {
	for _, s := range []string{
		`{"version":1,"keyspace":"ks","table":"t","keys":[{"k":1}]}`,
		` {"a":{"version":1}}`,
		"sstf\x02{\"ks\":\"k\"}",
		"version",
	} {
		f.Add([]byte(s), uint16(0))
	}
	keys := testKeys(f)
	f.Fuzz(func(t *testing.T, b []byte, at uint16) {
		if IsTicket(b) && IsCommand(b) {
			t.Fatalf("%q: both a ticket and a command", b)
		}
		if json.Valid(b) && bytes.HasPrefix(bytes.TrimLeft(b, " \t\r\n"), []byte("{")) && !IsCommand(b) {
			t.Fatalf("%q: a JSON object that is no command", b)
		}
		if !IsTicket(b) {
			keys.Open(b) // only: never panic
		}
		// b as a ticket's names: sealed, it is a ticket and opens;
		// one byte changed anywhere, it does not.
		tk := &Ticket{Keyspace: "ks", Table: string(b), Columns: []string{string(b)}, Range: &[2]token.Token{1, 2}, Now: 1, Epoch: "e"}
		sealed, err := keys.Seal(tk)
		if err != nil {
			return // too large to issue
		}
		if !IsTicket(sealed) || IsCommand(sealed) {
			t.Fatalf("sealed %q: not told as a ticket", sealed)
		}
		if _, err := keys.Open(sealed); err != nil && tk.Table != "" {
			t.Fatalf("sealed %q does not open: %v", sealed, err)
		}
		edited := bytes.Clone(sealed)
		edited[int(at)%len(edited)] ^= 1 << (at % 8)
		if _, err := keys.Open(edited); err == nil {
			t.Fatalf("%q, edited at %d, opens", sealed, int(at)%len(edited))
		}
	})
}

// BenchmarkTicket: sealing at planning and opening at DoGet cost little
// beside the rest of a point read.
func BenchmarkTicket(b *testing.B) {
	keys := testKeys(b)
	tk := &Ticket{Keyspace: "bench", Table: "narrow", Columns: []string{"k", "v"},
		Keys: [][]byte{[]byte("key-0000000042")}, Now: 1700000000, Epoch: "e1"}
	sealed, err := keys.Seal(tk)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("seal", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := keys.Seal(tk); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("open", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := keys.Open(sealed); err != nil {
				b.Fatal(err)
			}
		}
	})
}
