package flightserver_test

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/sstable-flight/sstable-flight/flightserver"
	"github.com/sstable-flight/sstable-flight/flightserver/request"
	"github.com/sstable-flight/sstable-flight/internal/testkit/cassandratest"
	"github.com/sstable-flight/sstable-flight/internal/testkit/flighttest"
	"github.com/sstable-flight/sstable-flight/token"
)

// TestSystemKeyspacesNeverServed serves a real node's data directory
// (read in place, never written) with schemas from files, as a server
// without --cassandra does: Cassandra's system keyspaces are on disk
// there (system_auth.roles holds password hashes), yet ListFlights must
// not list them nor log a warning about them, and every RPC that names a
// table in one must be PERMISSION_DENIED, however its name is cased.
func TestSystemKeyspacesNeverServed(t *testing.T) {
	node := cassandratest.Shared(t)
	for _, ks := range []string{"system", "system_auth", "system_schema"} {
		if _, err := os.Stat(filepath.Join(node.DataDir(), ks)); err != nil {
			t.Fatalf("the node has no %s directory to hide: %v", ks, err)
		}
	}
	logs := &flighttest.SyncBuffer{}
	ts := startServer(t, "", func(c *flightserver.Config) {
		c.DataDir = node.DataDir()
		c.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
	})
	ctx := context.Background()

	for call := range 2 { // the warnings came on every call
		for _, info := range ts.listFlights(t) {
			if p := info.FlightDescriptor.GetPath(); strings.HasPrefix(strings.ToLower(p[0]), "system") {
				t.Errorf("call %d lists %s.%s", call, p[0], p[1])
			}
		}
	}
	for _, line := range strings.Split(logs.String(), "\n") {
		if strings.Contains(line, "table=system") {
			t.Errorf("logged: %s", line)
		}
	}

	denied := func(what string, err error) {
		t.Helper()
		if status.Code(err) != codes.PermissionDenied {
			t.Errorf("%s: %v, want PermissionDenied", what, err)
		}
	}
	for _, name := range [][2]string{{"system_auth", "roles"}, {"system", "local"}, {"system_schema", "tables"}, {"System_Auth", "roles"}} {
		ks, tbl := name[0], name[1]
		what := ks + "." + tbl
		_, err := ts.client.GetFlightInfo(ctx, path(ks, tbl))
		denied("GetFlightInfo "+what, err)
		_, err = ts.client.GetFlightInfo(ctx, cmd(t, map[string]any{"version": 1, "keyspace": ks, "table": tbl}))
		denied("GetFlightInfo command "+what, err)
		_, err = ts.client.GetSchema(ctx, path(ks, tbl))
		denied("GetSchema "+what, err)
		// A ticket naming one, signed with the server's key (as if the
		// planner had a bug or the key leaked), is denied all the same.
		ticket := flightserver.SealTicket(ts.srv, &request.Ticket{Keyspace: ks, Table: tbl,
			Range: &[2]token.Token{0, 0}, Now: 1700000000, Epoch: "1"})
		denied("DoGet ticket "+what, flighttest.DrainDoGet(ctx, ts.client, ticket))
		command := `{"version":1,"keyspace":"` + ks + `","table":"` + tbl + `","splits":1}`
		denied("DoGet command "+what, flighttest.DrainDoGet(ctx, ts.client, []byte(command)))
		stream, err := ts.client.DoAction(ctx, &flight.Action{Type: flightserver.ActionTableStats, Body: []byte(`{"keyspace":"` + ks + `","table":"` + tbl + `"}`)})
		if err == nil {
			_, err = stream.Recv()
		}
		denied("table-stats "+what, err)
	}
}
