package snippet

import (
	"strings"
	"testing"
)

func TestSnippetsAreShortAndQuoted(t *testing.T) {
	long := strings.Repeat("s3cr3t\x00\xff", 1000)
	for name, got := range map[string]string{
		"Quote":       Quote([]byte(long)),
		"QuoteString": QuoteString(long),
		"Hex":         Hex([]byte(long)),
		"Around":      Around(long, 4000, Max),
		"Cut":         Cut(long, 40),
	} {
		t.Run(name, func(t *testing.T) {
			if len(got) > 3*Max+40 || strings.ContainsAny(got, "\x00\xff") && name != "Cut" {
				t.Errorf("%s: %d bytes: %q", name, len(got), got)
			}
			if !strings.Contains(got, "8000") && !strings.Contains(got, "7960") {
				t.Errorf("%s does not say how long the whole was: %q", name, got)
			}
		})
	}
	if got := Quote([]byte("Data.db")); got != `"Data.db"` {
		t.Errorf("short: %s", got)
	}
	if got := Hex([]byte{0, 1}); got != "0001" {
		t.Errorf("short hex: %s", got)
	}
}
