package flightserver_test

import (
	"context"
	"encoding/json"
	"io"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/sstable-flight/sstable-flight/flightserver"
	"github.com/sstable-flight/sstable-flight/flightserver/request"
	"github.com/sstable-flight/sstable-flight/internal/testkit/flighttest"
	"github.com/sstable-flight/sstable-flight/token"
)

func cmd(t *testing.T, v any) *flight.FlightDescriptor {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return &flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: b}
}

func path(ks, table string) *flight.FlightDescriptor {
	return &flight.FlightDescriptor{Type: flight.DescriptorPATH, Path: []string{ks, table}}
}

// TestStatusCodes pins the gRPC status of every kind of bad request.
func TestStatusCodes(t *testing.T) {
	ts := startServer(t, "oa")
	ctx := context.Background()
	v1 := func(extra map[string]any) map[string]any {
		m := map[string]any{"version": 1, "keyspace": "corpus", "table": "clustered"}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	infoCases := []struct {
		name string
		desc *flight.FlightDescriptor
		code codes.Code
	}{
		{"unknown table", path("corpus", "nope"), codes.NotFound},
		{"unknown keyspace", path("nope", "many"), codes.NotFound},
		{"path traversal", path("..", "corpus"), codes.NotFound},
		{"slash in name", path("corpus/../corpus", "many"), codes.NotFound},
		{"path of 3", &flight.FlightDescriptor{Type: flight.DescriptorPATH, Path: []string{"a", "b", "c"}}, codes.InvalidArgument},
		{"cmd not json", &flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: []byte("{")}, codes.InvalidArgument},
		{"cmd version 2", cmd(t, map[string]any{"version": 2, "keyspace": "corpus", "table": "many"}), codes.InvalidArgument},
		{"cmd unknown field", cmd(t, v1(map[string]any{"colums": []string{"v"}})), codes.InvalidArgument},
		{"unknown column", cmd(t, v1(map[string]any{"columns": []string{"nope"}})), codes.InvalidArgument},
		{"key of wrong type", cmd(t, v1(map[string]any{"keys": []any{map[string]any{"pk": "x"}}})), codes.InvalidArgument},
		{"key missing a column", cmd(t, v1(map[string]any{"keys": []any{map[string]any{}}})), codes.InvalidArgument},
		{"key on a regular column", cmd(t, v1(map[string]any{"keys": []any{map[string]any{"v": 1}}})), codes.InvalidArgument},
		{"slice without keys", cmd(t, v1(map[string]any{"clustering": map[string]any{}})), codes.InvalidArgument},
		{"negative limit", cmd(t, v1(map[string]any{"limit": -1})), codes.InvalidArgument},
	}
	for _, c := range infoCases {
		_, err := ts.client.GetFlightInfo(ctx, c.desc)
		if got := status.Code(err); got != c.code {
			t.Errorf("GetFlightInfo %s: %v (%v), want %v", c.name, got, err, c.code)
		}
		_, err = ts.client.GetSchema(ctx, c.desc)
		if c.name == "key of wrong type" || c.name == "key missing a column" || c.name == "key on a regular column" ||
			c.name == "slice without keys" || c.name == "negative limit" {
			continue // GetSchema reads the schema only; checked where it matters
		}
		if got := status.Code(err); got != c.code {
			t.Errorf("GetSchema %s: %v (%v), want %v", c.name, got, err, c.code)
		}
	}

	// Tickets the planner would never issue, signed with the server's key
	// (a leaked key, or a bug): DoGet still refuses each.
	epochOf := func(table string) string {
		info, err := ts.client.GetFlightInfo(ctx, path("corpus", table))
		if err != nil {
			t.Fatal(err)
		}
		tk, err := request.InspectTicket(info.Endpoint[0].Ticket.Ticket)
		if err != nil {
			t.Fatal(err)
		}
		return tk.Epoch
	}
	many, clustered := epochOf("many"), epochOf("clustered")
	whole := &[2]token.Token{0, 0}
	seal := func(tk request.Ticket) string {
		if tk.Now == 0 {
			tk.Now = 1
		}
		return string(flightserver.SealTicket(ts.srv, &tk))
	}
	bigint := func(v byte) []byte { return []byte{0, 0, 0, 0, 0, 0, 0, v} }
	var tooMany [][]byte
	for i := range 257 {
		tooMany = append(tooMany, []byte{0, 0, 0, 0, 0, 0, byte(i >> 8), byte(i)})
	}
	ticketCases := []struct {
		name   string
		ticket string
		code   codes.Code
	}{
		{"garbage", "\x00\x01garbage", codes.InvalidArgument},
		{"a ticket of version 1 (unsigned JSON)", `{"v":1,"ks":"corpus","t":"many","range":["0","0"],"now":1}`, codes.InvalidArgument},
		{"magic only", "sstf", codes.InvalidArgument},
		{"version 9", "sstf\x09" + seal(request.Ticket{Keyspace: "corpus", Table: "many", Range: whole, Epoch: many})[5:], codes.InvalidArgument},
		{"no range nor key", seal(request.Ticket{Keyspace: "corpus", Table: "many", Epoch: many}), codes.InvalidArgument},
		{"no epoch", seal(request.Ticket{Keyspace: "corpus", Table: "many", Range: whole}), codes.InvalidArgument},
		{"no read time", seal(request.Ticket{Keyspace: "corpus", Table: "many", Range: whole, Epoch: many, Now: -1}), codes.InvalidArgument},
		{"negative limit", seal(request.Ticket{Keyspace: "corpus", Table: "many", Range: whole, Epoch: many, Limit: -1}), codes.InvalidArgument},
		{"unknown table", seal(request.Ticket{Keyspace: "corpus", Table: "nope", Range: whole, Epoch: many}), codes.Aborted},
		{"traversal", seal(request.Ticket{Keyspace: "../..", Table: "etc", Range: whole, Epoch: many}), codes.NotFound},
		{"unknown column", seal(request.Ticket{Keyspace: "corpus", Table: "many", Columns: []string{"nope"}, Range: whole, Epoch: many}), codes.InvalidArgument},
		{"bad composite key", seal(request.Ticket{Keyspace: "corpus", Table: "clustered", Keys: [][]byte{{0, 1, '1'}}, Epoch: clustered}), codes.InvalidArgument},
		{"composite key of a wrong type", seal(request.Ticket{Keyspace: "corpus", Table: "clustered", Keys: [][]byte{{0, 1, 'a', 0, 0, 1, 1, 0}}, Epoch: clustered}), codes.InvalidArgument},
		{"key of a wrong width", seal(request.Ticket{Keyspace: "corpus", Table: "many", Keys: [][]byte{{1, 2, 3}}, Epoch: many}), codes.InvalidArgument},
		{"empty key list", seal(request.Ticket{Keyspace: "corpus", Table: "many", Keys: [][]byte{}, Epoch: many}), codes.InvalidArgument},
		{"a key twice", seal(request.Ticket{Keyspace: "corpus", Table: "many", Keys: [][]byte{bigint(1), bigint(1)}, Epoch: many}), codes.InvalidArgument},
		{"257 keys", seal(request.Ticket{Keyspace: "corpus", Table: "many", Keys: tooMany, Epoch: many}), codes.InvalidArgument},
		{"slice of too many values", seal(request.Ticket{Keyspace: "corpus", Table: "many", Keys: [][]byte{bigint(1)}, Epoch: many,
			Slice: &request.TicketSlice{HasStart: true, Start: [][]byte{{1}}}}), codes.InvalidArgument},
		{"slice value of a wrong type", seal(request.Ticket{Keyspace: "corpus", Table: "clustered", Keys: [][]byte{{0, 1, 'a', 0, 0, 4, 0, 0, 0, 1, 0}}, Epoch: clustered,
			Slice: &request.TicketSlice{HasEnd: true, End: [][]byte{{1, 2}}}}), codes.InvalidArgument},
		{"command of 2 endpoints", `{"version":1,"keyspace":"corpus","table":"many","splits":2}`, codes.InvalidArgument},
		{"command, unknown table", `{"version":1,"keyspace":"corpus","table":"nope"}`, codes.NotFound},
		{"command, bad field", `{"version":1,"keyspace":"corpus","table":"many","colums":["v"]}`, codes.InvalidArgument},
		{"retired epoch", seal(request.Ticket{Keyspace: "corpus", Table: "many", Range: whole, Epoch: "gone-1"}), codes.Aborted},
	}
	for _, c := range ticketCases {
		err := flighttest.DrainDoGet(ctx, ts.client, []byte(c.ticket))
		if got := status.Code(err); got != c.code {
			t.Errorf("DoGet %s: %v (%v), want %v", c.name, got, err, c.code)
		}
	}

	stream, err := ts.client.DoAction(ctx, &flight.Action{Type: "nope"})
	if err == nil {
		_, err = stream.Recv()
	}
	if status.Code(err) != codes.InvalidArgument {
		t.Errorf("unknown action: %v", err)
	}
	stream, err = ts.client.DoAction(ctx, &flight.Action{Type: flightserver.ActionTableStats, Body: []byte(`{"keyspace":"corpus","table":"nope"}`)})
	if err == nil {
		_, err = stream.Recv()
	}
	if status.Code(err) != codes.NotFound {
		t.Errorf("table-stats of an unknown table: %v", err)
	}
}

// TestActions checks table-stats against the corpus table's SSTables and
// that refresh-schema answers.
func TestActions(t *testing.T) {
	ts := startServer(t, "oa")
	ctx := context.Background()
	st := tableStats(ctx, t, ts, "corpus", "deletions")
	if st.SSTables != 3 || st.Bytes <= 0 || st.Partitions <= 0 || st.Rows < st.Partitions || st.MinTimestamp <= 0 || st.MaxTimestamp < st.MinTimestamp || st.SchemaSource != "schema.cql" || len(st.ID) != 32 {
		t.Errorf("table-stats: %+v", st)
	}
	stream, err := ts.client.DoAction(ctx, &flight.Action{Type: flightserver.ActionRefreshSchema})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := stream.Recv(); err != nil {
		t.Fatal(err)
	}
	actions, err := ts.client.ListActions(ctx, &flight.Empty{})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for {
		if _, err := actions.Recv(); err != nil {
			if err != io.EOF {
				t.Fatal(err)
			}
			break
		}
		n++
	}
	if n != 3 {
		t.Errorf("%d actions listed", n)
	}
	// A server planning no cluster knows no host ID to prove.
	if _, err := actionResult(ctx, ts.client, &flight.Action{Type: flightserver.ActionNodeInfo}); status.Code(err) != codes.FailedPrecondition {
		t.Errorf("node-info without a ring: %v, want FAILED_PRECONDITION", err)
	}
}

// TestBearerToken: with a token configured every Flight RPC needs it.
func TestBearerToken(t *testing.T) {
	ts := startServer(t, "oa", func(c *flightserver.Config) { c.AuthToken = "s3cret-0123456789ab" })
	ctx := context.Background()
	if _, err := ts.client.GetFlightInfo(ctx, path("corpus", "many")); status.Code(err) != codes.Unauthenticated {
		t.Errorf("no token: %v", err)
	}
	bad := metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer wrong")
	if _, err := ts.client.GetFlightInfo(bad, path("corpus", "many")); status.Code(err) != codes.Unauthenticated {
		t.Errorf("wrong token: %v", err)
	}
	good := metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer s3cret-0123456789ab")
	info, err := ts.client.GetFlightInfo(good, path("corpus", "many"))
	if err != nil {
		t.Fatal(err)
	}
	if err := flighttest.DrainDoGet(ctx, ts.client, info.Endpoint[0].Ticket.Ticket); status.Code(err) != codes.Unauthenticated {
		t.Errorf("DoGet without token: %v", err)
	}
	if err := flighttest.DrainDoGet(good, ts.client, info.Endpoint[0].Ticket.Ticket); err != nil {
		t.Errorf("DoGet with token: %v", err)
	}
}

// TestShedsWithUnavailable: with one stream slot held by a stream the
// client does not read, the next stream waits AdmissionWait and gets
// UNAVAILABLE.
func TestShedsWithUnavailable(t *testing.T) {
	ts := startServer(t, "oa", func(c *flightserver.Config) {
		c.MaxStreams, c.AdmissionWait, c.BatchRows = 1, 50*time.Millisecond, 1
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	info := holdWideStream(ctx, t, ts) // holds the one slot until cancelled
	err := flighttest.DrainDoGet(context.Background(), ts.client, info.Endpoint[0].Ticket.Ticket)
	if status.Code(err) != codes.Unavailable {
		t.Fatalf("second stream: %v, want UNAVAILABLE", err)
	}
	cancel()
	// The slot frees once the cancelled stream ends.
	deadline := time.Now().Add(5 * time.Second)
	for {
		err := flighttest.DrainDoGet(context.Background(), ts.client, info.Endpoint[0].Ticket.Ticket)
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("slot not freed after cancel: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
