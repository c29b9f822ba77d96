package trinobench

import (
	"context"
	"strings"
	"testing"
)

// fakeServer stands in for the server's cumulative metrics: each read
// adds its RPCs and time. The passes' bookkeeping is what is tested.
type fakeServer struct {
	totals    serverTotals
	extraRPCs float64 // RPCs of other clients per read
	rows      int64
}

func (f *fakeServer) read(_ context.Context, key string) (int64, error) {
	f.totals.rpcs += rpcsPerLookup + f.extraRPCs
	f.totals.seconds += 0.002
	f.totals.cpu += 0.001
	return f.rows, nil
}

func (f *fakeServer) server(context.Context) (serverTotals, error) { return f.totals, nil }

func TestMeasureLookups(t *testing.T) {
	keys := JoinKeys(1000, 100)
	f := &fakeServer{rows: 1}
	l, err := measureLookups(context.Background(), keys, 1, 3, f.read, f.server)
	if err != nil {
		t.Fatal(err)
	}
	if l.Keys != 100 || l.Passes != 3 || len(l.ServerMS) != 3 || len(l.RPCs) != 3 {
		t.Fatalf("lookups %+v; want 3 recorded passes of 100 keys (the warm-up left out)", l)
	}
	// 100 keys at 2 ms of server time and 1 ms of CPU each.
	if d := l.ServerP50MS - 200; d > 1e-6 || d < -1e-6 || l.RPCs[0] != 200 || l.Note != "" {
		t.Errorf("server p50 %.3f ms, rpcs %v, note %q; want 200 ms, 200 RPCs, none", l.ServerP50MS, l.RPCs, l.Note)
	}
	if d := l.ServerCPUP50MS - 100; d > 1e-6 || d < -1e-6 {
		t.Errorf("server CPU p50 %.3f ms, want 100", l.ServerCPUP50MS)
	}

	// Other clients' RPCs during a pass are named, not hidden.
	f = &fakeServer{rows: 1, extraRPCs: 1}
	if l, err = measureLookups(context.Background(), keys, 0, 1, f.read, f.server); err != nil || !strings.Contains(l.Note, "300 RPCs") {
		t.Errorf("note %q, %v; want the 300 RPCs counted named", l.Note, err)
	}

	// A key that does not read one row fails the measure.
	f = &fakeServer{rows: 0}
	if _, err = measureLookups(context.Background(), keys, 0, 1, f.read, f.server); err == nil || !strings.Contains(err.Error(), keys[0]) {
		t.Errorf("no row: %v; want an error naming %s", err, keys[0])
	}
}

func TestMedian(t *testing.T) {
	for _, c := range []struct {
		in   []float64
		want float64
	}{{nil, 0}, {[]float64{3}, 3}, {[]float64{5, 1, 3}, 3}, {[]float64{4, 1, 3, 2}, 2.5}} {
		if got := median(c.in); got != c.want {
			t.Errorf("median(%v) = %v, want %v", c.in, got, c.want)
		}
	}
}
