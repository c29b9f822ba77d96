package flighttest

import (
	"net"
	"testing"
)

// FreeAddr is a loopback address no one listened on a moment ago, for a
// child process that cannot report a port it chose itself (the admin
// port of a server under test, a Prometheus).
func FreeAddr(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}
