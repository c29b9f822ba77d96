package request

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/sstable-flight/sstable-flight/snapshot"
	"github.com/sstable-flight/sstable-flight/token"
)

// TestTicketKeyFile: a key file that holds no usable key is refused with
// a snapshot.ConfigError naming the field (the command names its flag), never
// echoing the file's content; a good one gives its keys in order.
func TestTicketKeyFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	key := strings.Repeat("0f", MinTicketKeyBytes)
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, path, want string
	}{
		{"empty", write("empty", ""), "no key"},
		{"whitespace", write("ws", " \n\t\n  \n"), "no key"},
		{"comments only", write("comments", "# a key goes here\n"), "no key"},
		{"short", write("short", strings.Repeat("0f", MinTicketKeyBytes-1)+"\n"), "line 1: a key of 31 bytes, at least 32"},
		{"not hex", write("raw", "\n"+strings.Repeat("secretsecret", 8)+"\n"), "line 2: not a key in hexadecimal"},
		{"odd digits", write("odd", key+"0\n"), "line 1: not a key in hexadecimal"},
		{"a bad second line", write("second", key+"\nzz\n"), "line 2: not a key in hexadecimal"},
		{"huge", write("huge", strings.Repeat(key+"\n", 2000)), "not a file of ticket keys"},
		{"missing", filepath.Join(dir, "nope"), "no such file"},
		{"directory", dir, "not a regular file"},
		{"fifo", fifo, "not a regular file"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := LoadTicketKeys(c.path)
			var ce *snapshot.ConfigError
			if !errors.As(err, &ce) || ce.Field != "TicketKeyFile" || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("%v, want a TicketKeyFile snapshot.ConfigError saying %q", err, c.want)
			}
			if strings.Contains(err.Error(), "secret") {
				t.Fatalf("%v: the error shows the file's content", err)
			}
		})
	}
	k, err := LoadTicketKeys(write("good", "# current\n"+key+"\r\n\n# previous\n  "+strings.Repeat("A0", 40)+"  \n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(k.keys) != 2 || len(k.keys[0]) != 32 || k.keys[0][0] != 0x0f || len(k.keys[1]) != 40 || k.keys[1][0] != 0xa0 {
		t.Fatalf("keys %x", k.keys)
	}
}

// TestRandomTicketKeys: without a file each server draws its own key.
func TestRandomTicketKeys(t *testing.T) {
	a, b := testKeys(t), testKeys(t)
	if len(a.keys[0]) != MinTicketKeyBytes || string(a.keys[0]) == string(b.keys[0]) {
		t.Fatalf("random keys %x and %x", a.keys[0], b.keys[0])
	}
	sealed, err := a.Seal(&Ticket{Keyspace: "ks", Table: "t", Range: &[2]token.Token{1, 2}, Now: 1, Epoch: "e"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Open(sealed); err == nil || !strings.Contains(err.Error(), "signature") {
		t.Fatalf("another key's ticket: %v", err)
	}
}
