package trinobench

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// TestLoadAccounting: every query is counted once, as a success or an
// error; every client runs; the rate is the successes over the wall
// time; the first errors are kept.
// The query is a fake: this is the loop's bookkeeping, not a measure.
func TestLoadAccounting(t *testing.T) {
	const clients = 4
	var (
		mu       sync.Mutex
		calls    = map[int]int{}
		failures int
	)
	// A second: every client's goroutine starts well within it, even on a
	// loaded machine.
	st, _ := load(context.Background(), clients, time.Second, func(_ context.Context, c int, i uint64) error {
		mu.Lock()
		calls[c]++
		fail := i%4 == 3
		if fail {
			failures++
		}
		mu.Unlock()
		time.Sleep(time.Millisecond)
		if fail {
			return fmt.Errorf("client %d query %d failed", c, i)
		}
		return nil
	})
	total := 0
	for _, n := range calls {
		total += n
	}
	if len(calls) != clients || st.Clients != clients {
		t.Errorf("%d clients ran (stats say %d), want %d", len(calls), st.Clients, clients)
	}
	if st.OK+st.Errors != int64(total) || st.Errors != int64(failures) {
		t.Errorf("ok %d + errors %d, want %d calls with %d failures", st.OK, st.Errors, total, failures)
	}
	if st.WallS <= 0 || st.QPS != float64(st.OK)/st.WallS {
		t.Errorf("qps %.1f over %.3f s for %d ok", st.QPS, st.WallS, st.OK)
	}
	if st.OK > 0 && (st.P50MS <= 0 || st.P50MS > st.P99MS || st.P99MS > st.MaxMS) {
		t.Errorf("latencies p50 %.3f p99 %.3f max %.3f", st.P50MS, st.P99MS, st.MaxMS)
	}
	if failures > 0 && (len(st.ErrorsAt) == 0 || len(st.ErrorsAt) > errorSamples) {
		t.Errorf("error samples %q", st.ErrorsAt)
	}
}

// TestLoadWaitsForQueriesInFlight: a query started before the deadline
// is waited for and counted, its time is in the wall time, and no client
// starts another after it. Each client's first query waits until every
// client has started one, then outlasts the duration from there (so
// past the deadline, which came before).
func TestLoadWaitsForQueriesInFlight(t *testing.T) {
	const clients = 2
	d := time.Second
	var arrived sync.WaitGroup
	arrived.Add(clients)
	st, _ := load(context.Background(), clients, d, func(context.Context, int, uint64) error {
		arrived.Done()
		arrived.Wait()
		time.Sleep(d)
		return nil
	})
	if st.OK != clients || st.Errors != 0 || st.WallS < d.Seconds() || st.P50MS < 1000 {
		t.Errorf("stats %+v; want each client's one query of over a second counted", st)
	}
}

// TestLoadAllErrors: a catalog that fails every query has no rate and
// no latency, only errors.
func TestLoadAllErrors(t *testing.T) {
	st, _ := load(context.Background(), 3, 500*time.Millisecond, func(context.Context, int, uint64) error {
		time.Sleep(time.Millisecond)
		return errors.New("Trino QUERY_REJECTED")
	})
	if st.OK != 0 || st.Errors == 0 || st.QPS != 0 || st.P50MS != 0 || int64(len(st.ErrorsAt)) != min(errorSamples, st.Errors) {
		t.Errorf("stats %+v; want only errors, up to %d kept", st, errorSamples)
	}
}

// TestMergeLoadsSumsParts checks that a run made in parts (Run's A B B A)
// is the sum of its parts: queries, errors and time add up, throughput is
// their quotient, and the latencies are those of all the parts' queries.
func TestMergeLoadsSumsParts(t *testing.T) {
	part := func(wall float64, ok, bad int64, latencyUS ...int64) (LoadStats, *hdrhistogram.Histogram) {
		h := hdrhistogram.New(loadHistMinUS, loadHistMaxUS, 3)
		for _, us := range latencyUS {
			_ = h.RecordValue(us)
		}
		s := LoadStats{Clients: 8, WallS: wall, OK: ok, Errors: bad, ErrorsAt: []string{"e"}}
		s.finish(h)
		return s, h
	}
	a, ha := part(10, 3, 1, 1000, 1000, 1000)
	b, hb := part(5, 2, 0, 9000, 9000)
	m := mergeLoads([]LoadStats{a, b}, []*hdrhistogram.Histogram{ha, hb})
	if m.OK != 5 || m.Errors != 1 || m.WallS != 15 || m.Clients != 8 {
		t.Fatalf("merged %+v, want 5 ok, 1 error, 15 s", m)
	}
	if m.QPS != 5.0/15 {
		t.Errorf("qps %v, want %v", m.QPS, 5.0/15)
	}
	// HDR buckets at 3 significant digits report a bucket's upper end: within 3%.
	if m.P50MS < 0.99 || m.P50MS > 1.03 || m.MaxMS < 8.99 || m.MaxMS > 9.3 {
		t.Errorf("p50 %v ms, max %v ms: want 1 and 9 (every part's latencies)", m.P50MS, m.MaxMS)
	}
	if len(m.ErrorsAt) != 2 {
		t.Errorf("error samples %v, want each part's", m.ErrorsAt)
	}
}
