package cluster

import (
	"context"
	"net/netip"
	"testing"
)

func TestStaticPeers(t *testing.T) {
	r := mustRing(t, 1, testNode(1, "dc1", "r1", 10), testNode(2, "dc1", "r1", 20), testNode(3, "dc1", "r1", 30))
	p, err := ParseStaticPeers("127.0.0.1:9042=grpc://a:8815, 127.0.0.2=grpc+tls://b:8815,127.0.0.9=grpc://c:1")
	if err != nil {
		t.Fatal(err)
	}
	got, err := p.Peers(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[r.Nodes()[0].HostID] != "grpc://a:8815" || got[r.Nodes()[1].HostID] != "grpc+tls://b:8815" {
		t.Fatalf("peers %v", got)
	}
	for _, bad := range []string{"", "127.0.0.1", "host=grpc://a:1", "127.0.0.1=http://a:1", "127.0.0.1=grpc://a", "127.0.0.1=grpc://a:1/x",
		"127.0.0.1=grpc://a:1,127.0.0.1=grpc://b:1"} {
		if _, err := ParseStaticPeers(bad); err == nil {
			t.Errorf("ParseStaticPeers(%q) accepted", bad)
		}
	}
}

func TestConventionPeers(t *testing.T) {
	n3 := testNode(3, "dc1", "r1", 30)
	n3.Native = netip.AddrPort{} // native transport off: no server address
	r := mustRing(t, 1, testNode(1, "dc1", "r1", 10), testNode(2, "dc1", "r1", 20), n3)
	got, err := ConventionPeers{Port: 8815}.Peers(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[r.Nodes()[0].HostID] != "grpc://127.0.0.1:8815" || got[r.Nodes()[1].HostID] != "grpc://127.0.0.2:8815" {
		t.Fatalf("peers %v", got)
	}
	if _, err := (ConventionPeers{}).Peers(context.Background(), r); err == nil {
		t.Fatal("a convention without a port was accepted")
	}
}
