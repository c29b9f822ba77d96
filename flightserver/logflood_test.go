package flightserver_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/sstable-flight/sstable-flight/flightserver"
	"github.com/sstable-flight/sstable-flight/internal/testkit/flighttest"
)

// TestUnauthenticatedFloodLogsOnce: a flood of calls without the bearer
// token writes the first failure's WARN line and, within the interval,
// no more (a later line counts those suppressed); before, every call
// wrote one, so a client without a token could fill the disk.
func TestUnauthenticatedFloodLogsOnce(t *testing.T) {
	var logs flighttest.SyncBuffer
	ts := startServer(t, "oa", func(c *flightserver.Config) {
		c.AuthToken = "s3cret-flood-token-0123"
		c.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	})
	ctx := context.Background()
	for range 200 {
		if _, err := ts.client.GetFlightInfo(ctx, path("corpus", "many")); status.Code(err) != codes.Unauthenticated {
			t.Fatalf("no token: %v", err)
		}
		if err := flighttest.DrainDoGet(ctx, ts.client, []byte("x")); status.Code(err) != codes.Unauthenticated {
			t.Fatalf("no token: %v", err)
		}
	}
	if n := strings.Count(logs.String(), "rpc failed"); n < 1 || n > 3 {
		t.Fatalf("%d log lines for 400 unauthenticated calls, want the first of each RPC (2) and not one a call:\n%.2000s", n, logs.String())
	}
}
