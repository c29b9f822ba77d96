package laneb

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
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
