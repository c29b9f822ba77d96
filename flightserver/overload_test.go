package flightserver_test

import (
	"bufio"
	"context"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/sstable-flight/sstable-flight/flightserver"
)

// overloadRSSBound is the resident set this test process (server and its
// 64 clients) must stay under; docs/operations.md explains the bound.
const overloadRSSBound = 512 << 20

// TestOverloadShedsOrCompletes: 64 concurrent full-scan clients against a
// server with 4 stream slots. Every scan either completes with all its
// rows or is refused with UNAVAILABLE; the sheds metric counts exactly
// the refusals; nothing else fails and memory stays bounded.
func TestOverloadShedsOrCompletes(t *testing.T) {
	ts := startServer(t, "oa", func(c *flightserver.Config) {
		c.MaxStreams, c.AdmissionWait, c.BatchRows = 4, 20*time.Millisecond, 16
	})
	metric := adminMetric(t, ts)
	ctx := context.Background()
	info, err := ts.client.GetFlightInfo(ctx, cmd(t, map[string]any{"version": 1, "keyspace": "corpus", "table": "wide", "splits": 4}))
	if err != nil {
		t.Fatal(err)
	}
	want := 0
	for _, r := range ts.readAll(t, info) {
		want += int(r.NumRows())
	}

	var ok, shed, other atomic.Int64
	var maxRSS atomic.Int64
	stop := make(chan struct{})
	go func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
				if r := rss(t); r > maxRSS.Load() {
					maxRSS.Store(r)
				}
			}
		}
	}()
	var wg sync.WaitGroup
	for range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 5 {
				rows := 0
				var err error
				for _, ep := range info.Endpoint {
					var n int
					if n, err = countRows(ctx, ts, ep.Ticket.Ticket); err != nil {
						break
					}
					rows += n
				}
				switch {
				case err == nil && rows == want:
					ok.Add(1)
				case status.Code(err) == codes.Unavailable:
					shed.Add(1)
				default:
					other.Add(1)
					t.Errorf("scan: %d rows of %d, err %v", rows, want, err)
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	t.Logf("%d scans completed, %d shed, max RSS %d MiB", ok.Load(), shed.Load(), maxRSS.Load()>>20)
	if ok.Load() == 0 || other.Load() != 0 {
		t.Errorf("completed %d, failed otherwise %d", ok.Load(), other.Load())
	}
	if got := metric("sstf_sheds_total"); got != strconv.FormatInt(shed.Load(), 10) {
		t.Errorf("sstf_sheds_total %s, clients saw %d", got, shed.Load())
	}
	if maxRSS.Load() > overloadRSSBound {
		t.Errorf("RSS reached %d MiB, bound %d MiB", maxRSS.Load()>>20, overloadRSSBound>>20)
	}
}

func countRows(ctx context.Context, ts *testServer, ticket []byte) (int, error) {
	stream, err := ts.client.DoGet(ctx, flightTicket(ticket))
	if err != nil {
		return 0, err
	}
	rd, err := newReader(stream)
	if err != nil {
		return 0, err
	}
	defer rd.Release()
	n := 0
	for rd.Next() {
		n += int(rd.RecordBatch().NumRows())
	}
	return n, rd.Err()
}

// rss is this process' resident set size (VmRSS).
func rss(t *testing.T) int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}
