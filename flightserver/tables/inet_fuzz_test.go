package tables

import (
	"net/netip"
	"testing"
)

// FuzzInetBytes checks inetBytes never panics and that what it accepts is
// an address of 4 or 16 bytes, never a mapped one in 16 (Java unmaps
// them), that reads back to the same bytes from its canonical text.
func FuzzInetBytes(f *testing.F) {
	for _, s := range []string{"1.2.3.4", "::ffff:1.2.3.4", "[::1]", "1.2.772", "16909060", "::1.2.3.4",
		"fe80::1%1", "::ffff:01.2.3.4", "4294967296", "1.2.3.4.5", "[1.2.3.4]", "[::1", "::ffff:1.2.3.4%1", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b, err := inetBytes(s)
		if err != nil {
			return
		}
		a, ok := netip.AddrFromSlice(b)
		if !ok || a.Is4In6() {
			t.Fatalf("%q: %x is not an address Cassandra stores", s, b)
		}
		again, err := inetBytes(a.String())
		if err != nil || string(again) != string(b) {
			t.Fatalf("%q: %x, its text %s reads as %x, %v", s, b, a, again, err)
		}
	})
}
