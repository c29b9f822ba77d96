package cqlconn

import (
	"net"
	"testing"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
)

// TestOnlyNodeKeepsTheDriverOnItsNode: the session's host filter takes
// the configured node, by IP or by what its name resolves to, and no
// other node the driver hears of. Without it a node that came back at a
// new address joined the pool of another node's server, which then
// read system.local there and took that node's host ID for its own (the
// real-kubelet test's pod deletion showed it).
func TestOnlyNodeKeepsTheDriverOnItsNode(t *testing.T) {
	host := func(ip string) *gocql.HostInfo {
		h, err := gocql.NewHostInfoFromAddrPort(net.ParseIP(ip), 9042)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	c := &Config{host: "10.88.0.2"}
	ips, err := c.nodeIPs()
	if err != nil {
		t.Fatal(err)
	}
	f := onlyNode(ips)
	if !f.Accept(host("10.88.0.2")) {
		t.Error("the node itself was refused")
	}
	for _, other := range []string{"10.88.0.4", "127.0.0.1", "::1"} {
		if f.Accept(host(other)) {
			t.Errorf("another node, %s, was taken", other)
		}
	}
	named := &Config{host: "localhost", ConnectTimeout: 5e9}
	ips, err = named.nodeIPs()
	if err != nil {
		t.Fatalf("resolve localhost: %v", err)
	}
	if !onlyNode(ips).Accept(host("127.0.0.1")) {
		t.Errorf("localhost resolved to %v, which does not take 127.0.0.1", ips)
	}
}
