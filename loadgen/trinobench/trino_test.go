package trinobench

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// TestQueryAsksAgainWhileTrinoHasNoNode: a Trino just started may list
// its catalogs yet refuse a scan with NO_NODES_AVAILABLE (a Lane B run
// lost every kv warm-up to it); Query asks again, and any other error
// still fails at once. The endpoint speaks Trino's client protocol as
// a script, since a real Trino cannot be held in that window.
func TestQueryAsksAgainWhileTrinoHasNoNode(t *testing.T) {
	var statements atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/v1/statement" && statements.Add(1) <= 2:
			fmt.Fprint(w, `{"id":"q1","error":{"errorName":"NO_NODES_AVAILABLE","message":"No nodes available to run query"}}`)
		case r.URL.Path == "/v1/statement":
			fmt.Fprint(w, `{"id":"q2","data":[[42]]}`)
		case strings.HasPrefix(r.URL.Path, "/v1/query/"):
			fmt.Fprint(w, `{"state":"FINISHED","queryStats":{}}`)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	c := &Client{Base: srv.URL, HTTP: srv.Client()}
	res, err := c.Query(context.Background(), "SELECT 42")
	if err != nil {
		t.Fatalf("Query: %v", err)
	}
	if n := statements.Load(); n != 3 || res.QueryID != "q2" || len(res.Rows) != 1 {
		t.Fatalf("asked %d times, answer %s %v; want 3 and q2's one row", n, res.QueryID, res.Rows)
	}

	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		statements.Add(1)
		fmt.Fprint(w, `{"id":"q3","error":{"errorName":"SYNTAX_ERROR","message":"mismatched input"}}`)
	}))
	defer other.Close()
	statements.Store(0)
	c = &Client{Base: other.URL, HTTP: other.Client()}
	if _, err := c.Query(context.Background(), "SELEC 1"); err == nil || !strings.Contains(err.Error(), "SYNTAX_ERROR") || statements.Load() != 1 {
		t.Fatalf("a syntax error: %v after %d asks, want it at once", err, statements.Load())
	}
}

// TestRunRepeatsPointQueries: a round runs a full scan and the join once
// and a point query PointRepeat times through each catalog, records every
// run after the warm-ups, and reads each run's analysis and planning time
// from its QueryInfo. The endpoint is a scripted Trino, as above.
func TestRunRepeatsPointQueries(t *testing.T) {
	var mu sync.Mutex
	asked := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/v1/statement":
			b, _ := io.ReadAll(r.Body)
			mu.Lock()
			asked[string(b)]++
			mu.Unlock()
			fmt.Fprint(w, `{"id":"q","data":[[1]]}`)
		case strings.HasPrefix(r.URL.Path, "/v1/query/"):
			fmt.Fprint(w, `{"state":"FINISHED","queryStats":{"analysisTime":"1.50ms","planningTime":"2.50ms"}}`)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	cfg := Config{
		Trino:    &Client{Base: srv.URL, HTTP: srv.Client()},
		Keyspace: "ks",
		Queries: []Query{
			{Table: "t", Name: "count(*)", SQL: "SELECT count(*) FROM %s", Scan: true},
			{Table: "t", Name: "keyed lookup", SQL: "SELECT * FROM %s WHERE k = 1"},
			{Table: "t", Name: "join", SQL: "SELECT * FROM %s JOIN d USING (k)", Join: true},
		},
		Warmups: 1, Runs: 2, PointRepeat: 3, Progress: io.Discard,
	}
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if len(res) != 3 {
		t.Fatalf("%d results, want 3", len(res))
	}
	// The join runs once per round, as a scan, and keeps its QueryInfo.
	for _, a := range []Arm{res[2].Ours, res[2].Peer} {
		if a.Join == nil || a.Join.ScanOpFound || len(a.Info) == 0 {
			t.Errorf("join through %s: evidence %+v, %d bytes of query info; want evidence with no scan found", a.Catalog, a.Join, len(a.Info))
		}
	}
	if res[0].Ours.Join != nil || res[0].Ours.Info != nil {
		t.Errorf("count(*) kept join evidence")
	}
	for _, c := range []struct {
		r          Result
		runs, asks int
	}{{res[0], 2, 3}, {res[1], 6, 9}, {res[2], 2, 3}} {
		for _, a := range []Arm{c.r.Ours, c.r.Peer} {
			if len(a.WallMS) != c.runs || a.PlanningMS != 4 {
				t.Errorf("%s through %s: %d recorded runs, planning %.2f ms; want %d and 4 ms", c.r.Query.Name, a.Catalog, len(a.WallMS), a.PlanningMS, c.runs)
			}
			if n := asked[fmt.Sprintf(c.r.Query.SQL, a.Catalog+".ks.t")]; n != c.asks {
				t.Errorf("%s through %s asked %d times, want %d (warm-ups included)", c.r.Query.Name, a.Catalog, n, c.asks)
			}
		}
	}
}
