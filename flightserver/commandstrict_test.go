package flightserver_test

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// TestLooseCommandsRefused: a command is exactly one JSON object with
// each member once: trailing data, a second command, or a member given
// twice (the last used to win) is INVALID_ARGUMENT, through
// GetFlightInfo and sent to DoGet as its ticket alike, on the fast
// parser's path and on encoding/json's. Before, each was served.
func TestLooseCommandsRefused(t *testing.T) {
	ts := startServer(t, "oa")
	ctx := context.Background()
	const point = `{"version":1,"keyspace":"corpus","table":"many","keys":[{"id":"2492279"}]}`
	const clustered = `"version":1,"keyspace":"corpus","table":"clustered","keys":[{"tenant":"globex","bucket":2}]`
	for _, c := range []struct {
		name, cmd string
		ok        bool
	}{
		{"the command", point, true},
		{"trailing whitespace", point + " \n\t", true},
		{"trailing data", point + " x", false},
		{"trailing null", point + "null", false},
		{"two commands", point + point, false},
		{"two commands, spaced", point + "\n" + point, false},
		{"a member twice", `{"version":1,"keyspace":"corpus","table":"nope","table":"many","keys":[{"id":"2492279"}]}`, false},
		{"a member twice, in another case", `{"version":1,"keyspace":"corpus","table":"many","TABLE":"many","keys":[{"id":"2492279"}]}`, false},
		{"a member twice, escaped", `{"version":1,"keyspace":"corpus","table":"many","t\u0061ble":"many","keys":[{"id":"2492279"}]}`, false},
		{"a key column twice", `{"version":1,"keyspace":"corpus","table":"many","keys":[{"id":"1","id":"2492279"}]}`, false},
		{"a key column twice, escaped", `{"version":1,"keyspace":"corpus","table":"many","keys":[{"id":"1","\u0069d":"2492279"}]}`, false},
		{"a bound member twice", `{` + clustered + `,"clustering":{"start":{"values":[9],"values":[-1],"inclusive":true}}}`, false},
		{"a slice member twice", `{` + clustered + `,"clustering":{"end":{"values":[9]},"end":{"values":[-1]}}}`, false},
		{"a token range member twice", `{"version":1,"keyspace":"corpus","table":"many","splits":1,"token_range":{"start":"0","start":"5","end":"9"}}`, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ts.client.GetFlightInfo(ctx, &flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: []byte(c.cmd)})
			if c.ok && err != nil {
				t.Fatalf("GetFlightInfo: %v", err)
			}
			if !c.ok && status.Code(err) != codes.InvalidArgument {
				t.Fatalf("GetFlightInfo: %v, want INVALID_ARGUMENT", err)
			}
			_, err = countRows(ctx, ts, []byte(c.cmd))
			if c.ok && err != nil {
				t.Fatalf("DoGet: %v", err)
			}
			if !c.ok && status.Code(err) != codes.InvalidArgument {
				t.Fatalf("DoGet: %v, want INVALID_ARGUMENT", err)
			}
		})
	}
}
