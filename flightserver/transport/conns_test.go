package transport

import (
	"net"
	"testing"
	"time"
)

// TestConnLookupAllocatesNothing: finding the connection of an RPC,
// which every RPC's watch does, allocates nothing. Before, it formatted
// the remote address as the map's key (an allocation, and the
// formatting, on every RPC).
func TestConnLookupAllocatesNothing(t *testing.T) {
	l := NewConnLimit(4, time.Minute, func(string) {})
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ll := l.Listen(lis)
	defer ll.Close()
	client, err := net.Dial("tcp", lis.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	server, err := ll.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer server.Close()
	for _, addr := range []net.Addr{server.RemoteAddr(), client.LocalAddr()} {
		if l.conn(addr) != server {
			t.Fatalf("conn(%v) does not find the connection from %v", addr, server.RemoteAddr())
		}
		if n := testing.AllocsPerRun(100, func() { l.conn(addr) }); n != 0 {
			t.Fatalf("conn(%v): %v allocations, want 0", addr, n)
		}
	}
}
