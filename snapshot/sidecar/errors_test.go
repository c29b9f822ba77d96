package sidecar

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
)

// TestFailuresAreUnavailable: a Sidecar that answers 500 to a snapshot
// (Cassandra could not link a file), or cannot be reached, fails the
// request with ErrUnavailable, and the node's absolute paths in Sidecar's
// message are named from the keyspace directory on (another absolute
// path by its last element). Before, such an error matched nothing (the
// server answered INTERNAL) and carried the node's paths.
func TestFailuresAreUnavailable(t *testing.T) {
	const table = "timestamps-4b5566b0ece511f19bc11f76f4dfd68a"
	msg := `link oa-3-big-Data.db into snapshot: link /var/lib/cassandra/data/corpus/` + table + `/oa-3-big-Data.db /var/lib/cassandra/data/corpus/` + table + `/snapshots/s1/oa-3-big-Data.db: operation not permitted (see /etc/cassandra/cassandra.yaml)`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		w.Write([]byte(`{"status":"Internal Server Error","code":500,"message":` + strconv.Quote(msg) + `}`))
	}))
	c, err := New(srv.URL, Options{})
	if err != nil {
		t.Fatal(err)
	}
	err = c.CreateSnapshot(context.Background(), "corpus", "timestamps", "s1")
	want := "link corpus/" + table + "/oa-3-big-Data.db corpus/" + table + "/snapshots/s1/oa-3-big-Data.db: operation not permitted (see …/cassandra.yaml)"
	if !errors.Is(err, ErrUnavailable) || err == nil || !strings.HasSuffix(err.Error(), want) || strings.Contains(err.Error(), "/var/lib") {
		t.Fatalf("a snapshot Sidecar answered 500: %v; want ErrUnavailable ending %q", err, want)
	}
	srv.Close()
	if err := c.CreateSnapshot(context.Background(), "corpus", "timestamps", "s2"); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("a snapshot through a Sidecar that is gone: %v; want ErrUnavailable", err)
	}
}
