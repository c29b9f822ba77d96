package flightserver_test

import (
	"testing"
)

// TestServeAdminOnTwoListeners: the admin endpoint serves every listener
// it is given. http.Server.Serve sets the server's TLSConfig itself, and a
// second ServeAdmin took that for TLS, returned at once and left its
// listener unserved: the request hung until the peer reset it (found by
// TestChunkCacheServesRepeatedPointReads).
func TestServeAdminOnTwoListeners(t *testing.T) {
	ts := startServer(t, "oa")
	for i := range 3 {
		if v := adminMetric(t, ts)("sstf_open_readers"); v == "" {
			t.Fatalf("listener %d: no sstf_open_readers metric", i)
		}
	}
}
