package flightserver_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/sstable-flight/sstable-flight/flightserver"
	"github.com/sstable-flight/sstable-flight/internal/testkit/corpus"
)

// TestCountOnly: a count-only read of every corpus table, in each
// format, streams record batches of no columns whose lengths add up to
// the rows CQL returned for SELECT * at the same read time; with keys
// and a limit it counts what the same read of every column would give.
func TestCountOnly(t *testing.T) {
	cases := corpus.NewCases(t)
	for _, mode := range []string{"nb", "oa", "da"} {
		mc, err := corpus.Load(filepath.Join(corpusRoot(), mode))
		if err != nil {
			t.Fatal(err)
		}
		var now time.Time // each table is judged at its own read time
		ts := startServer(t, mode, func(c *flightserver.Config) {
			c.Now = func() time.Time { return now }
		})
		for _, tbl := range mc.Sorted() {
			cases.Run(mode+"/"+tbl.Name, func(t *testing.T) {
				now = time.Unix(tbl.Expected.ReadAt, 0)
				info, err := ts.client.GetFlightInfo(context.Background(), cmd(t, map[string]any{
					"version": 1, "keyspace": corpus.Keyspace, "table": tbl.Name, "count_only": true}))
				if err != nil {
					t.Fatal(err)
				}
				recs := ts.readAll(t, info)
				n := 0
				for _, r := range recs {
					if r.NumCols() != 0 {
						t.Fatalf("a count-only batch has %d columns", r.NumCols())
					}
					n += int(r.NumRows())
				}
				if want := len(tbl.Expected.Rows); n != want {
					t.Fatalf("count-only read: %d rows, CQL returned %d", n, want)
				}
			})
		}
	}
	if !cases.All() {
		return
	}
	t.Run("keys and limit", func(t *testing.T) {
		ts := startServer(t, "oa")
		ctx := context.Background()
		count := func(extra map[string]any) int {
			t.Helper()
			c := map[string]any{"version": 1, "keyspace": corpus.Keyspace, "table": "clustered"}
			for k, v := range extra {
				c[k] = v
			}
			info, err := ts.client.GetFlightInfo(ctx, cmd(t, c))
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, r := range ts.readAll(t, info) {
				n += int(r.NumRows())
			}
			return n
		}
		keys := []map[string]any{{"tenant": "globex", "bucket": 2}, {"tenant": "é-unicode", "bucket": 0}}
		for _, extra := range []map[string]any{
			{"keys": keys},
			{"keys": keys, "limit": 3},
			{"limit": 7},
		} {
			all := count(extra)
			extra["count_only"] = true
			if got := count(extra); got != all || all == 0 {
				t.Errorf("%v: count-only %d rows, every column %d", extra, got, all)
			}
		}
	})
	t.Run("with columns", func(t *testing.T) {
		ts := startServer(t, "oa")
		_, err := ts.client.GetFlightInfo(context.Background(), cmd(t, map[string]any{
			"version": 1, "keyspace": corpus.Keyspace, "table": "clustered", "count_only": true, "columns": []string{"pk"}}))
		if status.Code(err) != codes.InvalidArgument {
			t.Fatalf("count_only with columns: %v, want INVALID_ARGUMENT", err)
		}
	})
}
