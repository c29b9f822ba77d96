package request

import (
	"strings"
	"testing"
)

// TestRingTicketShape: a ring ticket names no epoch (another server's
// epochs mean nothing to its reader), every other ticket names one.
func TestRingTicketShape(t *testing.T) {
	for _, c := range []struct {
		payload, err string
	}{
		{`{"ks":"k","t":"t","range":["1","2"],"now":1,"epoch":"","ring":true}`, ""},
		{`{"ks":"k","t":"t","range":["1","2"],"now":1,"epoch":"e1","ring":true}`, "a ring ticket names no snapshot epoch"},
		{`{"ks":"k","t":"t","range":["1","2"],"now":1,"epoch":""}`, "no snapshot epoch"},
	} {
		t.Run(c.payload, func(t *testing.T) {
			_, err := decodePayload([]byte(c.payload))
			if c.err == "" && err != nil || c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
				t.Errorf("%s: %v, want %q", c.payload, err, c.err)
			}
		})
	}
}
