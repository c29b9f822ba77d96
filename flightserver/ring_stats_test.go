package flightserver_test

import (
	"context"
	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/sstable-flight/sstable-flight/flightserver"
	"github.com/sstable-flight/sstable-flight/flightserver/arrowenc"
	"github.com/sstable-flight/sstable-flight/flightserver/request"
	"github.com/sstable-flight/sstable-flight/internal/testkit/cassandratest"
	"github.com/sstable-flight/sstable-flight/internal/testkit/ringtest"
	"github.com/sstable-flight/sstable-flight/internal/testkit/testclock"
)

// TestRingTableStatsAndReadTime: on the three-node cluster, a keyspace
// at RF 2 of 3,000 rows written at ALL and flushed on every node, each
// server planning over the ring:
//   - table-stats through any one server estimates the whole table,
//     table_rows_estimate within ±20% of count(*) at ALL, scope "ring",
//     where its own rows_estimate (its node's ~2/3) is clearly lower;
//   - plans naming one query_id carry one read time, later plans without
//     it the clock's (ring tickets name no epoch to pin).
func TestRingTableStatsAndReadTime(t *testing.T) {
	const ks, rows = "h_server_ring_stats", 3000
	clock := testclock.New(time.Now())
	f := ringtest.New(t, ringtest.Options{Keyspace: ks, Rows: rows, Allocator: arrowenc.NewPoolAllocator,
		Mutate: func(_ int, cfg *flightserver.Config) { cfg.Now = clock.Now }})
	s, err := f.Nodes[0].Session()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cassandratest.Exec(t, s, "DROP KEYSPACE IF EXISTS "+ks)
		s.Close()
	})
	var count int64
	if err := s.Query("SELECT count(*) FROM " + ks + ".kv").Consistency(gocql.All).Scan(&count); err != nil {
		t.Fatal(err)
	}
	if count != rows {
		t.Fatalf("count(*) at ALL: %d, want %d", count, rows)
	}
	ctx := context.Background()
	for i, uri := range f.URIs {
		c := dialURI(t, uri)
		body, err := actionResult(ctx, c, &flight.Action{Type: flightserver.ActionTableStats, Body: []byte(`{"keyspace":"` + ks + `","table":"kv"}`)})
		if err != nil {
			t.Fatal(err)
		}
		var st flightserver.TableStats
		if err := json.Unmarshal(body, &st); err != nil {
			t.Fatal(err)
		}
		t.Logf("server %d: %s", i+1, body)
		ratio := float64(st.TableRows) / float64(count)
		switch {
		case st.Scope != flightserver.ScopeRing || st.ScopeReason != "":
			t.Errorf("server %d: estimate_scope %q (%s), want %q", i+1, st.Scope, st.ScopeReason, flightserver.ScopeRing)
		case math.Abs(ratio-1) > 0.2:
			t.Errorf("server %d: table_rows_estimate %d, %.0f%% of count(*) %d, want within ±20%%", i+1, st.TableRows, 100*ratio, count)
		case float64(st.Rows) > 0.8*float64(count):
			t.Errorf("server %d: rows_estimate %d is not clearly below count(*) %d: this test could not tell the node's figure from the table's", i+1, st.Rows, count)
		case st.Share <= 0 || st.Share >= 1 || math.Abs(float64(st.TableRows)-float64(st.Rows)/st.Share) > 1:
			t.Errorf("server %d: replicated_share %v, rows %d → table rows %d: want 0 < share < 1, table = rows/share", i+1, st.Share, st.Rows, st.TableRows)
		case st.TablePartitions < st.Partitions:
			t.Errorf("server %d: table_partitions_estimate %d below the node's %d", i+1, st.TablePartitions, st.Partitions)
		}
	}

	// The read time of a query, pinned over the ring.
	c := dialURI(t, f.URIs[0])
	plan := func(id string) *request.Ticket {
		t.Helper()
		cmd := `{"version":1,"keyspace":"` + ks + `","table":"kv","splits":1`
		if id != "" {
			cmd += `,"query_id":"` + id + `"`
		}
		info, err := c.GetFlightInfo(ctx, &flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: []byte(cmd + "}")})
		if err != nil {
			t.Fatal(err)
		}
		tk, err := request.InspectTicket(info.Endpoint[0].Ticket.Ticket)
		if err != nil {
			t.Fatal(err)
		}
		if !tk.Ring || tk.Epoch != "" {
			t.Fatalf("ring plan ticket: ring %v, epoch %q; want a ring ticket naming no epoch", tk.Ring, tk.Epoch)
		}
		return tk
	}
	first := plan("ring-q").Now
	clock.Add(flightserver.DefaultQueryPinTTL - time.Second)
	if again := plan("ring-q").Now; again != first {
		t.Errorf("a ring plan of the same query_id just within its pin's TTL: now %d, want its first plan's %d", again, first)
	}
	if other := plan("").Now; other != clock.Now().Unix() {
		t.Errorf("a ring plan without query_id: now %d, want the clock's %d", other, clock.Now().Unix())
	}
}
