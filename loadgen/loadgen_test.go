package loadgen

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/sstable-flight/sstable-flight/flightserver"
)

// connect applies cfg's defaults, dials its server (closed, with the
// locations' connections, when the test ends) and loads the schema of
// its table, as Run does before a ramp.
func connect(t *testing.T, cfg *Config) (*Locations, *TableSchema) {
	t.Helper()
	cfg.defaults()
	c, err := DialFlight(cfg)
	if err != nil {
		t.Fatal(err)
	}
	l := NewLocations(cfg, c)
	t.Cleanup(func() { l.Close(); c.Close() })
	s, err := loadSchema(context.Background(), c, cfg.Keyspace, cfg.Table)
	if err != nil {
		t.Fatal(err)
	}
	return l, s
}

// target dials the test server and builds the Flight arm of cfg, for
// checking single ops against expected.json.
func target(t *testing.T, cfg Config) (*flightTarget, *plan, *TableSchema) {
	t.Helper()
	c, s := connect(t, &cfg)
	ctx := context.Background()
	p := &plan{seed: cfg.Seed, k: cfg.K, fraction: cfg.RangeFraction}
	if needsKeys(cfg.Shape) {
		sample, err := sampleKeys(ctx, c, s, cfg.Keys, cfg.ScanSplits, cfg.Seed, cfg.Shape == ShapeSlice)
		if err != nil {
			t.Fatal(err)
		}
		p.keys = sample.Keys
	}
	ft, err := newFlightTarget(c, s, &cfg, p)
	if err != nil {
		t.Fatal(err)
	}
	return ft, p, s
}

// A scan op reads every row of the table exactly once, over all its
// endpoints read concurrently; the server's figures are scraped.
func TestScanRowsExact(t *testing.T) {
	ts := startServer(t)
	for _, table := range []string{"many", "clustered"} {
		want := int64(loadExpected(t, table).rows)
		cfg := ts.config(table, ShapeScan)
		cfg.ScanSplits = 4
		s := run(t, cfg).Flight[0]
		checkNoErrors(t, s)
		if s.Rows != s.Ops*want {
			t.Errorf("%s: %d scans read %d rows, want %d each", table, s.Ops, s.Rows, want)
		}
		if s.Bytes <= 0 || s.ServerCPUSeconds == nil || s.ServerRSSBytes == nil || *s.ServerRSSBytes <= 0 || s.RowsPerCPUSecond == nil {
			t.Errorf("%s: bytes %d, server figures missing: cpu %v rss %v", table, s.Bytes, s.ServerCPUSeconds, s.ServerRSSBytes)
		}
	}
}

// A limit op returns exactly k rows, or the whole table when it is
// smaller than k.
func TestLimitReturnsK(t *testing.T) {
	ts := startServer(t)
	for _, k := range []int{7, 1000} {
		cfg := ts.config("many", ShapeLimit)
		cfg.K = k
		s := run(t, cfg).Flight[0]
		checkNoErrors(t, s)
		if want := int64(min(k, 520)); s.Rows != s.Ops*want {
			t.Errorf("limit %d: %d ops read %d rows, want %d each", k, s.Ops, s.Rows, want)
		}
	}
}

// Sampling reads real partition keys: every sampled key is a partition of
// expected.json, distinct, and a small table is sampled whole. The same
// seed gives the same sample; another seed another.
func TestSampleKeys(t *testing.T) {
	ts := startServer(t)
	exp := loadExpected(t, "many")
	cfg := ts.config("many", ShapePoint)
	c, s := connect(t, &cfg)
	ctx := context.Background()
	if len(s.Key) != 1 || s.Key[0].Name != "id" || s.Key[0].CQLType != "bigint" {
		t.Fatalf("partition key %+v, want id bigint", s.Key)
	}
	keys := func(n int, seed uint64) []string {
		sm, err := sampleKeys(ctx, c, s, n, 4, seed, false)
		if err != nil {
			t.Fatal(err)
		}
		if sm.Partitions != 520 || sm.Rows != 520 || sm.Skipped != 0 {
			t.Errorf("sample saw %d partitions, %d rows, %d skipped; want 520, 520, 0", sm.Partitions, sm.Rows, sm.Skipped)
		}
		var out []string
		seen := map[string]bool{}
		for _, k := range sm.Keys {
			ck := canonical(t, k.JSON)
			if exp.partitions[ck] == 0 {
				t.Errorf("sampled key %s is not a partition of corpus.many", k.JSON)
			}
			if seen[ck] {
				t.Errorf("key %s sampled twice", ck)
			}
			seen[ck] = true
			out = append(out, ck)
		}
		return out
	}
	a, b, other := keys(50, 1), keys(50, 1), keys(50, 2)
	if len(a) != 50 {
		t.Fatalf("%d keys sampled, want 50", len(a))
	}
	if strings.Join(a, " ") != strings.Join(b, " ") {
		t.Error("the same seed sampled different keys")
	}
	if strings.Join(a, " ") == strings.Join(other, " ") {
		t.Error("seeds 1 and 2 sampled the same keys")
	}
	if all := keys(10_000, 1); len(all) != 520 {
		t.Errorf("sampling up to 10,000 keys of 520 partitions kept %d", len(all))
	}
}

// Point and in ops return exactly the rows of the partitions they name,
// over a composite partition key (text, int) of a clustered table.
func TestPointAndInReadSampledPartitions(t *testing.T) {
	ts := startServer(t)
	exp := loadExpected(t, "clustered")
	ctx := context.Background()
	for _, shape := range []string{ShapePoint, ShapeIn} {
		cfg := ts.config("clustered", shape)
		cfg.K = 5
		ft, p, _ := target(t, cfg)
		if len(p.keys) != len(exp.partitions) {
			t.Fatalf("%d keys sampled, the table has %d partitions", len(p.keys), len(exp.partitions))
		}
		n := 1
		if shape == ShapeIn {
			n = 5
		}
		for op := range uint64(40) {
			want := 0
			for _, k := range p.keysFor(op, n) {
				want += exp.partitions[canonical(t, k.JSON)]
			}
			res, err := ft.Do(ctx, op)
			if err != nil {
				t.Fatalf("%s op %d: %v", shape, op, err)
			}
			if res.Rows != int64(want) {
				t.Errorf("%s op %d (%s): %d rows, want %d", shape, op, ft.descriptor(op).Cmd, res.Rows, want)
			}
		}
	}
	// Through a whole step: corpus.many has one row per partition.
	s := run(t, ts.config("many", ShapePoint)).Flight[0]
	checkNoErrors(t, s)
	if s.Rows != s.Ops {
		t.Errorf("%d point reads of corpus.many returned %d rows, want one each", s.Ops, s.Rows)
	}
}

// A range op returns exactly the rows whose token is in its range,
// wrapping ranges included; a fraction of 1 is the whole ring.
func TestRangeRowsExact(t *testing.T) {
	ts := startServer(t)
	exp := loadExpected(t, "many")
	ctx := context.Background()
	for _, fraction := range []int{1, 3, 8} {
		cfg := ts.config("many", ShapeRange)
		cfg.RangeFraction = fraction
		ft, p, _ := target(t, cfg)
		wrapped := 0
		for op := range uint64(60) {
			start, end := p.rangeFor(op)
			want := int64(0)
			for _, tok := range exp.tokens {
				in := tok > start && tok <= end
				if start >= end {
					in = tok > start || tok <= end
				}
				if in {
					want++
				}
			}
			if start >= end {
				wrapped++
			}
			res, err := ft.Do(ctx, op)
			if err != nil {
				t.Fatalf("fraction %d op %d: %v", fraction, op, err)
			}
			if res.Rows != want {
				t.Errorf("fraction %d op %d (%d, %d]: %d rows, want %d", fraction, op, start, end, res.Rows, want)
			}
		}
		if fraction == 3 && wrapped == 0 {
			t.Error("no range of a third of the ring wrapped in 60 ops: the wrap is untested")
		}
	}
}

// Shed streams are counted as Unavailable, apart from errors, and ops
// that were admitted still read every row.
func TestUnavailableCountedApart(t *testing.T) {
	ts := startServer(t, func(c *flightserver.Config) { c.MaxStreams, c.AdmissionWait = 1, time.Millisecond })
	cfg := ts.config("many", ShapeScan)
	cfg.Ramp, cfg.ScanSplits = []int{8}, 4
	s := run(t, cfg).Flight[0]
	if s.Unavailable == 0 {
		t.Fatalf("8 workers of 4-way scans against 1 stream slot: nothing shed (%+v)", s)
	}
	if s.Errors != 0 || s.ErrorsByCode[Unavailable] != s.Unavailable || len(s.ErrorsByCode) != 1 {
		t.Errorf("errors %d, unavailable %d, by code %v: want only Unavailable", s.Errors, s.Unavailable, s.ErrorsByCode)
	}
	if s.Rows != s.Ops*520 {
		t.Errorf("%d completed scans read %d rows, want 520 each", s.Ops, s.Rows)
	}
	if s.ServerSheds == nil || *s.ServerSheds == 0 {
		t.Errorf("server sheds %v during the step, want some", s.ServerSheds)
	}
}

// A delay added to every DoGet shows in the closed loop's percentiles
// and bounds its throughput.
func TestInjectedDelayInPercentiles(t *testing.T) {
	ts := startServer(t)
	const delay = 20 * time.Millisecond
	cfg := ts.config("many", ShapePoint)
	cfg.DialOptions = append(cfg.DialOptions, delayDoGet(delay))
	s := run(t, cfg).Flight[0]
	checkNoErrors(t, s)
	if s.P50US < delay.Microseconds() {
		t.Errorf("p50 %d µs with a %s delay on every op", s.P50US, delay)
	}
	// 2 workers, 300 ms, at least 20 ms per op.
	if limit := int64(2*cfg.Step/delay) + 2; s.Ops > limit {
		t.Errorf("%d ops in %s with 2 workers and %s per op: at most %d possible", s.Ops, cfg.Step, delay, limit)
	}
}

// Open loop measures from each op's intended start: at 200 ops/s with one
// op in flight and 20 ms per op, the server can do only 50 ops/s, so ops
// queue and latency grows by 15 ms per op (20 ms, 35 ms, ... ~900 ms);
// a closed loop would report 20 ms throughout.
func TestOpenLoopCorrectsCoordinatedOmission(t *testing.T) {
	ts := startServer(t)
	cfg := ts.config("many", ShapePoint)
	cfg.Ramp, cfg.Rate = []int{1}, 200
	cfg.DialOptions = append(cfg.DialOptions, delayDoGet(20*time.Millisecond))
	s := run(t, cfg).Flight[0]
	checkNoErrors(t, s)
	if s.Mode != "open" || s.TargetRate != 200 {
		t.Errorf("mode %s at %g ops/s", s.Mode, s.TargetRate)
	}
	// 300 ms at 200 ops/s: ops 0..59 were due in the window, all run.
	if s.Ops != 60 {
		t.Errorf("%d ops ran, 60 were due", s.Ops)
	}
	if s.P50US < 200_000 || s.MaxUS < 600_000 {
		t.Errorf("p50 %d µs, max %d µs: queueing behind a slow server is not counted", s.P50US, s.MaxUS)
	}
	if s.OpsPerSec > 55 {
		t.Errorf("%.1f ops/s through one 20 ms slot", s.OpsPerSec)
	}
}

// An open-loop step that falls too far behind is cut after the drain, and
// every op due in the window is still accounted for: run, or counted as
// Canceled.
func TestOpenLoopDrainAccountsForEveryDueOp(t *testing.T) {
	ts := startServer(t)
	cfg := ts.config("many", ShapePoint)
	cfg.Ramp, cfg.Rate, cfg.Step, cfg.Drain = []int{1}, 1000, 200*time.Millisecond, 100*time.Millisecond
	cfg.DialOptions = append(cfg.DialOptions, delayDoGet(20*time.Millisecond))
	start := time.Now()
	s := run(t, cfg).Flight[0]
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("the step took %s with a 100 ms drain", el)
	}
	canceled := s.ErrorsByCode["Canceled"]
	if canceled == 0 || s.Ops == 0 || s.Ops+canceled != 200 || s.Errors != canceled {
		t.Errorf("%d ops ran and %d were cancelled (errors %v); 200 were due", s.Ops, canceled, s.ErrorsByCode)
	}
}

// Every step goes to the JSONL and CSV outputs and to the table.
func TestOutputs(t *testing.T) {
	ts := startServer(t)
	var out, jl, cs bytes.Buffer
	cfg := ts.config("many", ShapeLimit)
	cfg.Ramp, cfg.Step = []int{1, 2}, 200*time.Millisecond
	cfg.Out, cfg.JSONL, cfg.CSV = &out, &jl, &cs
	rep := run(t, cfg)

	lines := strings.Split(strings.TrimSpace(jl.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d JSONL lines, want 2:\n%s", len(lines), jl.String())
	}
	for i, l := range lines {
		var s Step
		if err := json.Unmarshal([]byte(l), &s); err != nil {
			t.Fatal(err)
		}
		if s.Concurrency != cfg.Ramp[i] || s.Ops != rep.Flight[i].Ops || s.Arm != "flight" || s.ServerCPUSeconds == nil {
			t.Errorf("JSONL line %d: %s", i, l)
		}
	}
	recs, err := csv.NewReader(&cs).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 3 || strings.Join(recs[0], ",") != strings.Join(csvColumns, ",") {
		t.Fatalf("CSV: %q", recs)
	}
	for i, r := range recs[1:] {
		if r[9] != strconv.FormatInt(rep.Flight[i].Ops, 10) || r[5] != strconv.Itoa(cfg.Ramp[i]) {
			t.Errorf("CSV row %d: %q", i, r)
		}
	}
	table := out.String()
	for _, want := range []string{"flight corpus.many limit 10", "p50 ms", "rows/cpu-s"} {
		if !strings.Contains(table, want) {
			t.Errorf("table lacks %q:\n%s", want, table)
		}
	}
	if n := strings.Count(table, "\n    1 ") + strings.Count(table, "\n    2 "); n != 2 {
		t.Errorf("table has %d step rows, want 2:\n%s", n, table)
	}
}

// With a token the server requires, runs carry it, to Flight and to
// /metrics; without, they fail as UNAUTHENTICATED before any step.
func TestBearerToken(t *testing.T) {
	ts := startServer(t, func(c *flightserver.Config) { c.AuthToken = "s3cret-0123456789ab" })
	cfg := ts.config("many", ShapePoint)
	_, err := Run(context.Background(), cfg)
	if status.Code(err) != codes.Unauthenticated {
		t.Errorf("without a token: %v, want UNAUTHENTICATED", err)
	}
	cfg.Token = "s3cret-0123456789ab"
	step := run(t, cfg).Flight[0]
	checkNoErrors(t, step)
	// The server's /metrics needs the token too: the scrape sends it.
	if step.ServerCPUSeconds == nil {
		t.Errorf("no server figures: /metrics was not scraped with the token")
	}
}

// A cancelled run stops after the step in progress and says why.
func TestRunCancelled(t *testing.T) {
	ts := startServer(t)
	cfg := ts.config("many", ShapePoint)
	cfg.Ramp, cfg.Step = []int{1, 1, 1}, time.Hour
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	start := time.Now()
	rep, err := Run(ctx, cfg)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err %v, want the context's", err)
	}
	if rep == nil || len(rep.Flight) != 1 || time.Since(start) > 10*time.Second {
		t.Errorf("after cancelling: %v steps, %s", rep, time.Since(start))
	}
}

func TestConfigChecks(t *testing.T) {
	for _, c := range []Config{
		{Keyspace: "k", Table: "t", Shape: "nope"},
		{Keyspace: "k", Shape: ShapePoint},
		{Keyspace: "k", Table: "t", Ramp: []int{0}},
		{Keyspace: "k", Table: "t", Rate: -1},
	} {
		if _, err := Run(context.Background(), c); err == nil {
			t.Errorf("%+v: no error", c)
		}
	}
	if r, err := ParseRamp("1, 2,4"); err != nil || len(r) != 3 || r[2] != 4 {
		t.Errorf("ParseRamp: %v %v", r, err)
	}
	for _, bad := range []string{"", "1,x", "0", "-2"} {
		if _, err := ParseRamp(bad); err == nil {
			t.Errorf("ParseRamp(%q): no error", bad)
		}
	}
	if ks, tb, err := ParseTable("corpus.many"); err != nil || ks != "corpus" || tb != "many" {
		t.Errorf("ParseTable: %s %s %v", ks, tb, err)
	}
	for _, bad := range []string{"many", ".t", "k.", "a.b.c"} {
		if _, _, err := ParseTable(bad); err == nil {
			t.Errorf("ParseTable(%q): no error", bad)
		}
	}
}

// The plan is a function of the seed and the op number only.
func TestPlanReproducible(t *testing.T) {
	keys := make([]Key, 100)
	for i := range keys {
		keys[i] = Key{JSON: json.RawMessage(strconv.Itoa(i))}
	}
	a := &plan{seed: 7, keys: keys, fraction: 64}
	b := &plan{seed: 7, keys: keys, fraction: 64}
	c := &plan{seed: 8, keys: keys, fraction: 64}
	same, diff := 0, 0
	for op := range uint64(50) {
		ka, kb, kc := a.keysFor(op, 10), b.keysFor(op, 10), c.keysFor(op, 10)
		seen := map[string]bool{}
		for i := range ka {
			if string(ka[i].JSON) != string(kb[i].JSON) {
				t.Fatalf("op %d: seed 7 chose %s and %s", op, ka[i].JSON, kb[i].JSON)
			}
			if seen[string(ka[i].JSON)] {
				t.Errorf("op %d: key %s chosen twice", op, ka[i].JSON)
			}
			seen[string(ka[i].JSON)] = true
			if string(ka[i].JSON) == string(kc[i].JSON) {
				same++
			} else {
				diff++
			}
		}
		sa, ea := a.rangeFor(op)
		if sb, eb := b.rangeFor(op); sa != sb || ea != eb {
			t.Fatalf("op %d: ranges differ", op)
		}
		// The width is 2^64/64 = 2^58, wrapping or not.
		if w := uint64(ea) - uint64(sa); w != 1<<58 {
			t.Errorf("op %d: range width %d, want 2^58", op, w)
		}
	}
	if diff < same {
		t.Errorf("seeds 7 and 8 agree on %d of %d keys", same, same+diff)
	}
	whole := &plan{seed: 1, fraction: 1}
	if s, e := whole.rangeFor(3); s != e {
		t.Errorf("fraction 1: (%d, %d], want the whole ring (start == end)", s, e)
	}
	if got := (&plan{seed: 1, keys: keys[:3]}).keysFor(1, 10); len(got) != 3 {
		t.Errorf("10 keys of 3 sampled: %d", len(got))
	}
}
