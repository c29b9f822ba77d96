package token_test

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/sstable-flight/sstable-flight/token"
)

// TestTokenJSON: a token reads from a JSON number or a string holding one
// and writes as a string, so that clients whose numbers are float64 keep
// every bit.
func TestTokenJSON(t *testing.T) {
	for in, want := range map[string]token.Token{
		`5`:                     5,
		`"-5"`:                  -5,
		`"9223372036854775807"`: math.MaxInt64,
		`-9223372036854775808`:  math.MinInt64,
	} {
		var got token.Token
		if err := json.Unmarshal([]byte(in), &got); err != nil || got != want {
			t.Errorf("unmarshal %s: %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{`"x"`, `1.5`, `"9223372036854775808"`} {
		var got token.Token
		if err := json.Unmarshal([]byte(in), &got); err == nil {
			t.Errorf("unmarshal %s: %d, want an error", in, got)
		}
	}
	b, err := json.Marshal([2]token.Token{math.MinInt64, 7})
	if err != nil || string(b) != `["-9223372036854775808","7"]` {
		t.Errorf("marshal: %s, %v", b, err)
	}
}
