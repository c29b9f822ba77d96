package loadgen

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"

	"github.com/sstable-flight/sstable-flight/flightserver"
	"github.com/sstable-flight/sstable-flight/internal/testkit/cassandratest"
	"github.com/sstable-flight/sstable-flight/internal/testkit/flighttest"
	"github.com/sstable-flight/sstable-flight/snapshot"
)

// TestMain stops the Cassandra node the CQL test started (when no shared
// node was given), then fails the package if a run left a goroutine
// behind: Run must close its Flight client, its streams, its CQL session
// and its scraper's connections.
func TestMain(m *testing.M) { os.Exit(cassandratest.RunMainNoLeaks(m)) }

const corpusDir = "../testdata/corpus/oa"

// testServer is an in-process server over the committed corpus, with its
// admin endpoint, so runs get real server figures.
type testServer struct {
	addr    string
	metrics string
}

func startServer(t *testing.T, mutate ...func(*flightserver.Config)) *testServer {
	t.Helper()
	cfg := flightserver.Config{DataDir: corpusDir, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Snapshot: snapshot.Config{Mode: snapshot.Live}} // the committed corpus never changes
	for _, f := range mutate {
		f(&cfg)
	}
	s := flighttest.Serve(t, cfg, true)
	return &testServer{addr: s.Addr, metrics: "http://" + s.AdminAddr + "/metrics"}
}

// config is a short run of one shape against the test server.
func (ts *testServer) config(table, shape string) Config {
	return Config{
		Addr: ts.addr, Keyspace: "corpus", Table: table, Shape: shape,
		Ramp: []int{2}, Step: 300 * time.Millisecond, Seed: 1, MetricsURL: ts.metrics,
	}
}

func run(t *testing.T, cfg Config) *Report {
	t.Helper()
	rep, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Flight) != len(cfg.Ramp) {
		t.Fatalf("%d steps, ramp %v", len(rep.Flight), cfg.Ramp)
	}
	return rep
}

// expected is a corpus table's expected.json: what CQL returned.
type expected struct {
	rows       int
	partitions map[string]int // canonical key JSON -> rows
	keyOf      []string       // per row, in token order
	tokens     []int64        // per row
}

func loadExpected(t *testing.T, table string) *expected {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join(corpusDir, "corpus", table+"-*", "expected.json"))
	if err != nil || len(dirs) != 1 {
		t.Fatalf("expected.json of %s: %v %v", table, dirs, err)
	}
	b, err := os.ReadFile(dirs[0])
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Columns []struct{ Name, Kind string }
		Rows    []struct {
			Token  string
			Values map[string]json.RawMessage
		}
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	e := &expected{rows: len(doc.Rows), partitions: map[string]int{}}
	for _, r := range doc.Rows {
		key := map[string]json.RawMessage{}
		for _, c := range doc.Columns {
			if c.Kind == "partition_key" {
				key[c.Name] = r.Values[c.Name]
			}
		}
		raw, _ := json.Marshal(key)
		k := canonical(t, raw)
		e.partitions[k]++
		e.keyOf = append(e.keyOf, k)
		tok, err := strconv.ParseInt(r.Token, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		e.tokens = append(e.tokens, tok)
	}
	return e
}

// canonical re-encodes a key object with sorted names and numbers as
// written, so the rig's literals compare with expected.json's values.
func canonical(t *testing.T, raw []byte) string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("key %s: %v", raw, err)
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// delayDoGet makes every DoGet of the client start d late, as a slow
// network or server would: the delay must show in the latencies.
func delayDoGet(d time.Duration) grpc.DialOption {
	return grpc.WithChainStreamInterceptor(func(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, s grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
		if strings.HasSuffix(method, "/DoGet") {
			select {
			case <-time.After(d):
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		return s(ctx, desc, cc, method, opts...)
	})
}

func checkNoErrors(t *testing.T, s Step) {
	t.Helper()
	if s.Errors != 0 || s.Unavailable != 0 || len(s.ErrorsByCode) != 0 {
		t.Errorf("step c=%d: errors %d, unavailable %d: %v", s.Concurrency, s.Errors, s.Unavailable, s.ErrorsByCode)
	}
	if s.Ops == 0 {
		t.Errorf("step c=%d: no op completed", s.Concurrency)
	}
}
