package flightserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/sstable-flight/sstable-flight/flightserver"
	"github.com/sstable-flight/sstable-flight/flightserver/request"
)

// ttlsReadAt is the instant the committed corpus' ttls table was read
// by CQL (its expected.json read_at): at it, 5 rows are live.
const ttlsReadAt = 1796060511

// edit replaces old by new in a ticket, failing the test if old is not
// in it (the edit would prove nothing).
func edit(t *testing.T, ticket []byte, old, new string) []byte {
	t.Helper()
	if !bytes.Contains(ticket, []byte(old)) {
		t.Fatalf("ticket %q holds no %q", ticket, old)
	}
	return bytes.Replace(ticket, []byte(old), []byte(new), 1)
}

// TestEditedTicketsRefused: a client that edits any part of a ticket a
// plan issued (its read time, table, epoch or keys) is refused with
// INVALID_ARGUMENT, and reads nothing. Before tickets were signed, an
// edited read time brought expired TTL data back (8 rows instead of 5),
// a table with its epoch removed read another table, and 1,000 copies
// of one key read its row 1,000 times.
func TestEditedTicketsRefused(t *testing.T) {
	ts := startServer(t, "oa", func(c *flightserver.Config) {
		c.Now = func() time.Time { return time.Unix(ttlsReadAt, 0) }
	})
	ctx := context.Background()
	info, err := ts.client.GetFlightInfo(ctx, path("corpus", "ttls"))
	if err != nil {
		t.Fatal(err)
	}
	ticket := info.Endpoint[0].Ticket.Ticket
	if n, err := countRows(ctx, ts, ticket); err != nil || n != 5 {
		t.Fatalf("the planned ticket: %d rows (%v), want expected.json's 5", n, err)
	}
	tk := inspect(t, ticket)
	now := `"now":` + strconv.FormatInt(tk.Now, 10)
	epoch := `,"epoch":"` + tk.Epoch + `"`

	keyed, err := ts.client.GetFlightInfo(ctx, cmd(t, map[string]any{"version": 1, "keyspace": "corpus", "table": "many",
		"keys": []any{map[string]any{"id": "2492279"}}}))
	if err != nil {
		t.Fatal(err)
	}
	keyTicket := keyed.Endpoint[0].Ticket.Ticket
	if n, err := countRows(ctx, ts, keyTicket); err != nil || n != 1 {
		t.Fatalf("the planned key ticket: %d rows (%v), want 1", n, err)
	}
	kt := inspect(t, keyTicket)
	b64, _ := json.Marshal(kt.Keys[0])
	var copies []string
	for range 1000 {
		copies = append(copies, string(b64))
	}

	for _, c := range []struct {
		name   string
		ticket []byte
	}{
		{"read time in the past", edit(t, ticket, now, `"now":1`)},
		{"another table, no epoch", edit(t, edit(t, ticket, `"t":"ttls"`, `"t":"many"`), epoch, "")},
		{"another epoch", edit(t, ticket, epoch, `,"epoch":"`+tk.Epoch+`0"`)},
		{"copies of a key", edit(t, keyTicket, `"keys":[`+string(b64)+`]`, `"keys":[`+joinComma(copies)+`]`)},
		{"a limit added", edit(t, ticket, now, now+`,"limit":1`)},
		{"truncated", ticket[:len(ticket)-1]},
		{"one bit flipped at the end", flipLast(ticket)},
	} {
		t.Run(c.name, func(t *testing.T) {
			n, err := countRows(ctx, ts, c.ticket)
			if status.Code(err) != codes.InvalidArgument {
				t.Fatalf("edited ticket: %d rows, %v; want INVALID_ARGUMENT", n, err)
			}
		})
	}
}

// TestForeignTicketRefused: a ticket planned by a server with another
// key is refused by signature (INVALID_ARGUMENT), before its epoch is
// looked up, even over the same data.
func TestForeignTicketRefused(t *testing.T) {
	a, b := startServer(t, "oa"), startServer(t, "oa")
	ctx := context.Background()
	info, err := a.client.GetFlightInfo(ctx, path("corpus", "ttls"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = countRows(ctx, b, info.Endpoint[0].Ticket.Ticket)
	if status.Code(err) != codes.InvalidArgument {
		t.Fatalf("another server's ticket: %v, want INVALID_ARGUMENT", err)
	}
}

// TestSharedTicketKey: servers given the same --ticket-key-file accept
// each other's tickets: a ticket planned by one passes the other's
// signature check and reaches its epoch lookup (ABORTED: the epoch is the
// planner's, so the client plans again; serving another server's epoch
// is the cluster work's). With the keys rotated, the first key of a file
// signs and every key verifies.
func TestSharedTicketKey(t *testing.T) {
	dir := t.TempDir()
	keyFile := func(name string, lines ...string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	old, cur := strings.Repeat("ab", 32), strings.Repeat("cd", 32)
	withKeys := func(p string) func(*flightserver.Config) {
		return func(c *flightserver.Config) { c.TicketKeyFile = p }
	}
	a := startServer(t, "oa", withKeys(keyFile("a", old)))
	b := startServer(t, "oa", withKeys(keyFile("b", "# the same key, as a cluster shares it", "", "  "+old+"  ")))
	rotated := startServer(t, "oa", withKeys(keyFile("rotated", cur, old)))
	ctx := context.Background()
	plan := func(ts *testServer) []byte {
		info, err := ts.client.GetFlightInfo(ctx, path("corpus", "ttls"))
		if err != nil {
			t.Fatal(err)
		}
		return info.Endpoint[0].Ticket.Ticket
	}
	for _, c := range []struct {
		name     string
		from, to *testServer
		want     codes.Code
	}{
		{"planner", a, a, codes.OK},
		{"same key", a, b, codes.Aborted},
		{"old key, rotated server", a, rotated, codes.Aborted},
		{"new key, server with the old only", rotated, a, codes.InvalidArgument},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := countRows(ctx, c.to, plan(c.from))
			if status.Code(err) != c.want {
				t.Errorf("%s: %v, want %v", c.name, err, c.want)
			}
			if c.want == codes.Aborted && !strings.Contains(err.Error(), "epoch") {
				t.Errorf("%s: %v, want the epoch's error", c.name, err)
			}
		})
	}
}

// TestDuplicateKeysPlanOnce: a command giving one key 50,000 times (under
// the 1 MiB a request may have)
// plans one endpoint reading it once (duplicates are read once), rather
// than being refused for its raw count or reading the key again and
// again.
func TestDuplicateKeysPlanOnce(t *testing.T) {
	ts := startServer(t, "oa")
	ctx := context.Background()
	keys := make([]any, 50_000)
	for i := range keys {
		keys[i] = map[string]any{"id": "2492279"}
	}
	d := cmd(t, map[string]any{"version": 1, "keyspace": "corpus", "table": "many", "keys": keys})
	info, err := ts.client.GetFlightInfo(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	if len(info.Endpoint) != 1 {
		t.Fatalf("%d endpoints, want 1", len(info.Endpoint))
	}
	if tk := inspect(t, info.Endpoint[0].Ticket.Ticket); len(tk.Keys) != 1 {
		t.Fatalf("the ticket holds %d keys, want 1", len(tk.Keys))
	}
	if n, err := countRows(ctx, ts, info.Endpoint[0].Ticket.Ticket); err != nil || n != 1 {
		t.Fatalf("%d rows (%v), want 1", n, err)
	}
	// Sent to DoGet as its own ticket: the same single read.
	if n, err := countRows(ctx, ts, d.Cmd); err != nil || n != 1 {
		t.Fatalf("the command as a ticket: %d rows (%v), want 1", n, err)
	}
}

// TestNoTicketLargerThanAccepted: the planner never issues a ticket that
// its own DoGet refuses. Before, 180 keys of 19,500 bytes (a 3.5 MB
// command) planned one 4.7 MB ticket, over gRPC's 4 MiB receive limit:
// RESOURCE_EXHAUSTED on DoGet. Now long keys get more endpoints, each
// under the ticket limit, and every one reads. (The client takes large
// responses, as pyarrow's does: the FlightInfo echoes the command.)
func TestNoTicketLargerThanAccepted(t *testing.T) {
	// The command itself must be accepted: requests up to 8 MiB here.
	ts := startServer(t, "oa", func(c *flightserver.Config) { c.MaxRequestBytes = 8 << 20 })
	ctx := context.Background()
	client, err := flight.NewClientWithMiddleware(ts.addr, nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(64<<20)))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	ts = &testServer{srv: ts.srv, addr: ts.addr, mem: ts.mem, client: client}
	var keys []any
	for i := range 180 {
		keys = append(keys, map[string]any{"tenant": fmt.Sprintf("%05d", i) + strings.Repeat("t", 19_500), "bucket": 1})
	}
	info, err := ts.client.GetFlightInfo(ctx, cmd(t, map[string]any{"version": 1, "keyspace": "corpus", "table": "clustered", "keys": keys}))
	if err != nil {
		t.Fatal(err)
	}
	for i, ep := range info.Endpoint {
		if n, err := countRows(ctx, ts, ep.Ticket.Ticket); err != nil || n != 0 {
			t.Fatalf("endpoint %d of %d, a ticket of %d bytes: %d rows, %v", i, len(info.Endpoint), len(ep.Ticket.Ticket), n, err)
		}
	}
}

func joinComma(s []string) string {
	var b bytes.Buffer
	for i, x := range s {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(x)
	}
	return b.String()
}

func flipLast(b []byte) []byte {
	out := bytes.Clone(b)
	out[len(out)-1] ^= 1
	return out
}

// inspect reads a ticket's content (not its signature), as a person
// debugging would.
func inspect(t *testing.T, ticket []byte) *request.Ticket {
	t.Helper()
	tk, err := request.InspectTicket(ticket)
	if err != nil {
		t.Fatal(fmt.Errorf("inspect ticket %q: %w", ticket, err))
	}
	return tk
}
