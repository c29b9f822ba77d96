package laneb

import (
	"strings"
	"testing"
	"time"
)

func TestParseDuration(t *testing.T) {
	for in, want := range map[string]time.Duration{
		"":         0,
		"0.00ns":   0,
		"12.50us":  12500 * time.Nanosecond,
		"345.00ms": 345 * time.Millisecond,
		"1.50s":    1500 * time.Millisecond,
		"2.00m":    2 * time.Minute,
		"1.00h":    time.Hour,
		"1.00d":    24 * time.Hour,
	} {
		got, err := ParseDuration(in)
		if err != nil || got != want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"ms", "1.5", "3xs"} {
		if _, err := ParseDuration(bad); err == nil {
			t.Errorf("ParseDuration(%q): no error", bad)
		}
	}
}

func TestParseDataSize(t *testing.T) {
	for in, want := range map[string]int64{"0B": 0, "512B": 512, "1.50kB": 1536, "2.00MB": 2 << 20, "1.00GB": 1 << 30} {
		got, err := ParseDataSize(in)
		if err != nil || got != want {
			t.Errorf("ParseDataSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	if _, err := ParseDataSize("12 apples"); err == nil {
		t.Error("ParseDataSize(12 apples): no error")
	}
}

// The shape `jfr print --events jdk.ExecutionSample` writes.
const samples = `jdk.ExecutionSample {
  startTime = 04:10:11.123 (2026-12-02)
  sampledThread = "20261202_041011_00001_abcde.1.0.0-3-123" (javaThreadId = 123)
  state = "STATE_RUNNABLE"
  stackTrace = [
    io.sstableflight.trino.ArrowBlocks.varchar(FieldVector, int) line: 88
    io.sstableflight.trino.SstableFlightPageSource.getNextPage() line: 120
    io.trino.operator.TableScanOperator.getOutput() line: 301
    java.lang.Thread.run() line: 1583
  ]
}

jdk.ExecutionSample {
  startTime = 04:10:11.133 (2026-12-02)
  state = "STATE_RUNNABLE"
  stackTrace = [
    org.apache.arrow.memory.ArrowBuf.getByte(long) line: 10
    io.sstableflight.trino.ArrowBlocks.varchar(FieldVector, int) line: 90
    io.sstableflight.trino.ArrowBlocks.varchar(FieldVector, int) line: 91
    ...
  ]
}
`

func TestParseSamples(t *testing.T) {
	p, err := ParseSamples(strings.NewReader(samples), 10)
	if err != nil {
		t.Fatal(err)
	}
	if p.Samples != 2 {
		t.Fatalf("samples = %d, want 2", p.Samples)
	}
	if p.Self[0].Name != "io.sstableflight.trino.ArrowBlocks.varchar" || p.Self[0].Samples != 1 || len(p.Self) != 2 {
		t.Errorf("self = %+v", p.Self)
	}
	// A recursive frame counts once per sample; the JDK's frames are left off.
	if p.Inclusive[0].Name != "io.sstableflight.trino.ArrowBlocks.varchar" || p.Inclusive[0].Samples != 2 || p.Inclusive[0].Percent != 100 {
		t.Errorf("inclusive = %+v", p.Inclusive)
	}
	for _, f := range p.Inclusive {
		if strings.HasPrefix(f.Name, "java.") {
			t.Errorf("inclusive lists %s", f.Name)
		}
	}
	if len(p.Areas) != 2 || p.Areas[0].Percent != 50 {
		t.Errorf("areas = %+v", p.Areas)
	}
	// Both samples run our connector; one has Trino's frames, none gRPC's.
	on := map[string]float64{}
	for _, a := range p.AreasOnStack {
		on[a.Name] = a.Percent
	}
	if on["our connector (io.sstableflight)"] != 100 || on["Trino engine (io.trino)"] != 50 || on["gRPC (io.grpc)"] != 0 {
		t.Errorf("areas on the stack = %+v", p.AreasOnStack)
	}
}

func TestJudge(t *testing.T) {
	arm := func(p50 float64) Arm { return Arm{P50MS: p50} }
	r := &Report{Targets: DefaultTargets()}
	for _, x := range []struct {
		table, name string
		scan        bool
		ours, peer  float64
	}{
		{"kv", "count(*)", true, 100, 600},
		{"kv", "sum(length(v))", true, 150, 800},
		{"kv", "keyed lookup", false, 20, 30},
		{"kv", "LIMIT 10", false, 120, 300},
		{"ts", "count(*)", true, 100, 400},
		{"ts", "sum(length(tag))", true, 90, 800},
		{"ts", "keyed lookup", false, 20, 10},
		{"ts", "LIMIT 10", false, 20, 30},
	} {
		r.Results = append(r.Results, Result{Query: Query{Table: x.table, Name: x.name, Scan: x.scan}, Ours: arm(x.ours), Peer: arm(x.peer), Ratio: x.peer / x.ours, Match: true})
	}
	r.Judge()
	want := []bool{true, true, true, false, false, false, false, true}
	if len(r.Goals) != len(want) {
		t.Fatalf("%d goals, want %d", len(r.Goals), len(want))
	}
	for i, g := range r.Goals {
		if g.Met != want[i] {
			t.Errorf("goal %q met = %v, want %v (%s)", g.Name, g.Met, want[i], g.Detail)
		}
	}
}
