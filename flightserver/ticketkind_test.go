package flightserver

import (
	"bytes"
	"encoding/json"
	"testing"
)

// testKeys are ticket keys for tests of the package.
func testKeys(t testing.TB) *ticketKeys {
	t.Helper()
	k, err := loadTicketKeys("")
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
		b, err := keys.seal(tk)
		if err != nil {
			t.Fatal(err)
		}
		if !isTicket(b) || isCommand(b) {
			t.Errorf("sealed %+v: isTicket %v, isCommand %v", tk, isTicket(b), isCommand(b))
		}
		got, err := keys.open(b)
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
			if got := isCommand([]byte(c.in)); got != c.want {
				t.Errorf("isCommand(%s) = %v, want %v", c.in, got, c.want)
			}
			if isTicket([]byte(c.in)) && isCommand([]byte(c.in)) {
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
		if isTicket(b) && isCommand(b) {
			t.Fatalf("%q: both a ticket and a command", b)
		}
		if json.Valid(b) && bytes.HasPrefix(bytes.TrimLeft(b, " \t\r\n"), []byte("{")) && !isCommand(b) {
			t.Fatalf("%q: a JSON object that is no command", b)
		}
		if !isTicket(b) {
			keys.open(b) // only: never panic
		}
		// b as a ticket's names: sealed, it is a ticket and opens;
		// one byte changed anywhere, it does not.
		tk := &Ticket{Keyspace: "ks", Table: string(b), Columns: []string{string(b)}, Range: &[2]Token{1, 2}, Now: 1, Epoch: "e"}
		sealed, err := keys.seal(tk)
		if err != nil {
			return // too large to issue
		}
		if !isTicket(sealed) || isCommand(sealed) {
			t.Fatalf("sealed %q: not told as a ticket", sealed)
		}
		if _, err := keys.open(sealed); err != nil && tk.Table != "" {
			t.Fatalf("sealed %q does not open: %v", sealed, err)
		}
		edited := bytes.Clone(sealed)
		edited[int(at)%len(edited)] ^= 1 << (at % 8)
		if _, err := keys.open(edited); err == nil {
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
	sealed, err := keys.seal(tk)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("seal", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := keys.seal(tk); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("open", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := keys.open(sealed); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestTicketSizeBound: long keys are grouped so every ticket stays under
// maxTicketBytes, and a ticket that cannot (clustering bounds of many
// long values) is refused at planning, never issued.
func TestTicketSizeBound(t *testing.T) {
	keys := testKeys(t)
	long := make([][]byte, 300)
	for i := range long {
		long[i] = append(bytes.Repeat([]byte{'k'}, maxKeyBytes-2), byte(i>>8), byte(i))
	}
	sortByToken(long) // as planning orders them
	groups := groupKeys(long)
	n := 0
	for _, g := range groups {
		n += len(g)
		b, err := keys.seal(&Ticket{Keyspace: "ks", Table: "t", Keys: g, Now: 1, Epoch: "e"})
		if err != nil {
			t.Fatalf("a group of %d long keys: %v", len(g), err)
		}
		if _, err := keys.open(b); err != nil {
			t.Fatalf("a group of %d long keys does not open: %v", len(g), err)
		}
	}
	if n != len(long) || len(groups) < 2 {
		t.Fatalf("%d keys in %d groups", n, len(groups))
	}
	if g := groupKeys(make([][]byte, 600)); len(g) != 3 || len(g[0]) != keysPerTicket {
		t.Fatalf("600 short keys: %d groups", len(g))
	}
	big := make([][]byte, 8)
	for i := range big {
		big[i] = bytes.Repeat([]byte{'x'}, maxKeyBytes)
	}
	_, err := keys.seal(&Ticket{Keyspace: "ks", Table: "t", Keys: [][]byte{{1}}, Now: 1, Epoch: "e",
		Slice: &TicketSlice{HasStart: true, Start: big, HasEnd: true, End: big}})
	if err == nil || !bytes.Contains([]byte(err.Error()), []byte("a ticket may hold")) {
		t.Fatalf("a ticket over the limit: %v", err)
	}
}
