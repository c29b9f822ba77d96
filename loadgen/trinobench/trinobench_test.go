package trinobench

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
	// Packages: the top frames' are our connector's and Arrow's; on the
	// stack, Trino's operator package is in one sample of two.
	if Share(p.Packages, "io.sstableflight.trino") != 50 || Share(p.Packages, "org.apache.arrow.memory") != 50 {
		t.Errorf("packages = %+v", p.Packages)
	}
	if Share(p.PackagesOnStack, "io.trino.operator") != 50 || Share(p.PackagesOnStack, "java.lang") != 0 {
		t.Errorf("packages on the stack = %+v", p.PackagesOnStack)
	}
	// Our connector with its transport is in both samples, the cassandra
	// connector's group in none.
	if Share(p.Connectors, ourConnector) != 100 || len(p.Connectors) != 1 {
		t.Errorf("connectors = %+v", p.Connectors)
	}
	// A profile of the cassandra catalog's queries shows only its
	// connector's group (Netty, in both groups, is then the driver's).
	p.Catalog = PeerCatalog
	if g := p.Connector(); len(g) != 0 {
		t.Errorf("cassandra's profile shows %+v", g)
	}
	p.Catalog = OursCatalog
	if g := p.Connector(); len(g) != 1 || g[0].Name != ourConnector {
		t.Errorf("our profile shows %+v", g)
	}
}

func TestJavaPackage(t *testing.T) {
	for in, want := range map[string]string{
		"io.trino.sql.planner.optimizations.PredicatePushDown.visit": "io.trino.sql.planner",
		"io.trino.operator.Driver.process":                           "io.trino.operator",
		"java.lang.Thread.run":                                       "java.lang",
		"Foo.bar":                                                    "(default package)",
	} {
		if got := javaPackage(in); got != want {
			t.Errorf("javaPackage(%q) = %q, want %q", in, got, want)
		}
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

// TestJudgeJoinAndConcurrency: the join is judged on its ratio to the
// peer and to its keys' direct lookups, each level on its qps ratio (an
// error through ours fails it), and the profile on our connector's share
// with its transport.
func TestJudgeJoinAndConcurrency(t *testing.T) {
	r := &Report{Targets: DefaultTargets()}
	r.Results = []Result{{Query: JoinQuery("ks", 100), Ours: Arm{P50MS: 50, Join: &JoinEvidence{ScanOpFound: true, ProbeRows: 100}},
		Peer: Arm{P50MS: 5000, Join: &JoinEvidence{ScanOpFound: true, ProbeRows: 2_000_000}}, Ratio: 100, Match: true}}
	r.Join = &JoinReport{Keys: 100, Lookups: &Lookups{ServerP50MS: 20}}
	r.Concurrency = &Concurrency{Clients: []int{8, 32, 64}, Levels: []Level{
		{Clients: 8, Ours: LevelRun{LoadStats: LoadStats{QPS: 60}}, Peer: LevelRun{LoadStats: LoadStats{QPS: 50}}, Ratio: 1.2},
		{Clients: 32, Ours: LevelRun{LoadStats: LoadStats{QPS: 60, Errors: 1}}, Peer: LevelRun{LoadStats: LoadStats{QPS: 50}}, Ratio: 1.2},
	}, Profile: &Profile{Samples: 100, Connectors: []FrameShare{{Name: ourConnector, Percent: 12}}},
		Profiled: &LevelRun{LoadStats: LoadStats{OK: 300}}}
	r.Judge()
	want := map[string]bool{
		"kv: join of 100 keys p50 ≥ 20× faster through ours":                                   true,
		"kv: join p50 through ours ≤ 3× its 100 keys' direct lookups' total server time":       true, // 50 ms against 20 ms: 2.5×
		"kv: keyed lookups at 8 clients, ours' qps ≥ 1× cassandra's":                           true,
		"kv: keyed lookups at 32 clients, ours' qps ≥ 1× cassandra's":                          false, // an error through ours
		"kv: keyed lookups at 64 clients, ours' qps ≥ 1× cassandra's":                          false, // not measured
		"our connector's share of Trino's CPU per keyed query ≤ 10% (JFR, with its transport)": false, // 12%
	}
	got := map[string]bool{}
	for _, g := range r.Goals {
		got[g.Name] = g.Met
	}
	for name, met := range want {
		if m, ok := got[name]; !ok || m != met {
			t.Errorf("goal %q: met %v (present %v), want %v", name, m, ok, met)
		}
	}
	// A profile of failing queries judges nothing, however small the
	// connector's share in it.
	r.Concurrency.Profile.Connectors[0].Percent = 1
	r.Concurrency.Profiled.Errors = 5
	r.Judge()
	if g := r.Goals[len(r.Goals)-1]; g.Met || !strings.Contains(g.Detail, "5 errors") {
		t.Errorf("profile of a failing run: %+v", g)
	}
	md := r.Markdown(1, "t")
	for _, s := range []string{"# Join of 100 keys to kv", "| kv rows the page sources read (probe scan's physicalInputPositions) | 100 | 2000000 |",
		"| 32 | ratio ours/cassandra | 1.20× |", "# Keyed lookups under concurrency"} {
		if !strings.Contains(md, s) {
			t.Errorf("markdown lacks %q:\n%s", s, md)
		}
	}
}
