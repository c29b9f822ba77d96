package flightserver_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"

	"github.com/sstable-flight/sstable-flight/flightserver"
)

// adminMetric serves the admin endpoint of ts and returns a function that
// reads one metric's value from /metrics.
func adminMetric(t *testing.T, ts *testServer) func(name string) string {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go ts.srv.ServeAdmin(lis)
	url := "http://" + lis.Addr().String() + "/metrics"
	client := &http.Client{Timeout: 10 * time.Second} // every wait has a bound
	return func(name string) string {
		resp, err := client.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		for _, line := range strings.Split(string(body), "\n") {
			if v, ok := strings.CutPrefix(line, name+" "); ok {
				return v
			}
		}
		return ""
	}
}

// TestCancelStopsStream: a client that cancels mid-stream frees the
// server's stream (and its slot, readers and buffers) within 250 ms. (The
// row loop looks at the context every 1,024 rows, well under a
// millisecond; the bound leaves room for a loaded 2-core machine, where
// 50 ms failed once at 121 ms with other builds running.)
// holdWideStream plans corpus.wide and opens its first endpoint's DoGet
// under ctx, reading one message. On a server of one-row batches the
// 825-row table overflows gRPC's flow-control window, so the stream
// holds its admission slot, unread, until ctx is cancelled. It returns
// the plan.
func holdWideStream(ctx context.Context, t *testing.T, ts *testServer) *flight.FlightInfo {
	t.Helper()
	info, err := ts.client.GetFlightInfo(ctx, path("corpus", "wide"))
	if err != nil {
		t.Fatal(err)
	}
	stream, err := ts.client.DoGet(ctx, info.Endpoint[0].Ticket)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := stream.Recv(); err != nil {
		t.Fatal(err)
	}
	return info
}

func TestCancelStopsStream(t *testing.T) {
	ts := startServer(t, "oa", func(c *flightserver.Config) { c.BatchRows = 1 })
	metric := adminMetric(t, ts)
	ctx, cancel := context.WithCancel(context.Background())
	holdWideStream(ctx, t, ts)
	if v := metric("sstf_streams_active"); v != "1" {
		t.Fatalf("streams active while reading: %q", v)
	}
	start := time.Now()
	cancel()
	for metric("sstf_streams_active") != "0" {
		if time.Since(start) > time.Second {
			t.Fatal("stream still active 1 s after cancel")
		}
		time.Sleep(time.Millisecond)
	}
	if d := time.Since(start); d > 250*time.Millisecond {
		t.Errorf("stream stopped %v after cancel, want ≤ 250 ms", d)
	}
	if v := metric("sstf_open_readers"); v == "" {
		t.Error("no sstf_open_readers metric")
	}
}
