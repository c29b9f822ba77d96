package flightserver_test

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/flight"
)

// TestINIsOneStream: an IN list is planned as one endpoint that reads
// its keys in turn; its rows are the keys' point reads together, and a
// limit counts rows across keys, as CQL's LIMIT does.
func TestINIsOneStream(t *testing.T) {
	ts := startServer(t, "oa")
	ctx := context.Background()
	// ids from the table's expected.json (bigint keys are JSON strings).
	keys := []any{map[string]any{"id": "2492279"}, map[string]any{"id": "-89315"}, map[string]any{"id": "488772"}}
	count := func(body map[string]any) (rows int64, endpoints int) {
		info, err := ts.client.GetFlightInfo(ctx, cmd(t, body))
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range ts.readAll(t, info) {
			rows += r.NumRows()
		}
		return rows, len(info.Endpoint)
	}
	var want int64
	for _, k := range keys {
		n, _ := count(map[string]any{"version": 1, "keyspace": "corpus", "table": "many", "keys": []any{k}})
		want += n
	}
	if want != 3 {
		t.Fatalf("the 3 keys hold %d rows, want one each", want)
	}
	got, eps := count(map[string]any{"version": 1, "keyspace": "corpus", "table": "many", "keys": keys})
	if eps != 1 || got != want {
		t.Fatalf("IN of 3 keys: %d rows over %d endpoints, want %d rows in 1", got, eps, want)
	}
	got, _ = count(map[string]any{"version": 1, "keyspace": "corpus", "table": "many", "keys": keys, "limit": 2})
	if got != 2 {
		t.Fatalf("IN of 3 keys, limit 2: %d rows", got)
	}

	// The same command sent straight to DoGet: one round trip, same rows.
	d := cmd(t, map[string]any{"version": 1, "keyspace": "corpus", "table": "many", "keys": keys})
	info, err := ts.client.GetFlightInfo(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	want2 := renderRows(ts.readAll(t, info))
	direct := &flight.FlightInfo{Endpoint: []*flight.FlightEndpoint{{Ticket: &flight.Ticket{Ticket: d.Cmd}}}}
	if got := renderRows(ts.readAll(t, direct)); got != want2 || got == "" {
		t.Fatalf("command as a ticket:\n%s\nvia GetFlightInfo:\n%s", got, want2)
	}
}
