package main

// The Cassandra container's network: a network namespace of its own,
// made here and handed to runc, holding loopback and a veth pair whose
// both ends stay inside it, one with an address. The container sees an
// interface with a non-loopback address, as a pod's eth0 ("auto" finds
// it), and no packet can leave: the namespace has no link outside. The
// test reaches Cassandra by dialing from inside the namespace.

import (
	"context"
	"fmt"
	"net"
	"os"
	"runtime"
	"testing"

	"github.com/vishvananda/netlink"
	"github.com/vishvananda/netns"
)

// containerNet is the namespace and the address the container has.
type containerNet struct {
	ns   netns.NsHandle
	addr string // eth0's address, the one "auto" must find
}

// The namespace's addresses: a private /24 of which the container uses
// one address; nothing routes to it from outside the namespace.
const (
	netIP     = "10.213.0.2"
	netPrefix = 24
)

// newContainerNet makes the namespace (held open by a descriptor only,
// so nothing outlives the test) and its interfaces; cleanup closes it.
func newContainerNet(t *testing.T) *containerNet {
	t.Helper()
	ns, err := unsharedNetns()
	if err != nil {
		t.Fatalf("create the container's network namespace: %v", err)
	}
	t.Cleanup(func() { ns.Close() })
	h, err := netlink.NewHandleAt(ns)
	if err != nil {
		t.Fatalf("open netlink in the container's network namespace: %v", err)
	}
	defer h.Close()
	veth := &netlink.Veth{LinkAttrs: netlink.LinkAttrs{Name: "eth0"}, PeerName: "eth1"}
	if err := h.LinkAdd(veth); err != nil {
		t.Fatalf("add the veth pair eth0/eth1 in the container's namespace: %v", err)
	}
	addr, err := netlink.ParseAddr(fmt.Sprintf("%s/%d", netIP, netPrefix))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"lo", "eth0", "eth1"} {
		link, err := h.LinkByName(name)
		if err != nil {
			t.Fatalf("find %s in the container's namespace: %v", name, err)
		}
		if name == "eth0" {
			if err := h.AddrAdd(link, addr); err != nil {
				t.Fatalf("address eth0 %s: %v", addr, err)
			}
		}
		if err := h.LinkSetUp(link); err != nil {
			t.Fatalf("set %s up: %v", name, err)
		}
	}
	return &containerNet{ns: ns, addr: netIP}
}

// unsharedNetns makes a new network namespace from a thread of its own.
func unsharedNetns() (ns netns.NsHandle, err error) {
	onOwnThread(func() { ns, err = netns.New() })
	return ns, err
}

// onOwnThread runs fn on a goroutine locked to a thread that is never
// unlocked, so the thread ends with the goroutine in whatever namespace
// fn left it, and no other goroutine ever runs there.
func onOwnThread(fn func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread()
		fn()
	}()
	<-done
}

// path is the namespace's path for runc: the test process's descriptor.
func (n *containerNet) path() string {
	return fmt.Sprintf("/proc/%d/fd/%d", os.Getpid(), int(n.ns))
}

// DialContext dials from inside the namespace: the socket is made on a
// thread switched into it (onOwnThread), and belongs to the namespace
// for good (gocql's Dialer).
func (n *containerNet) DialContext(ctx context.Context, network, address string) (conn net.Conn, err error) {
	onOwnThread(func() {
		if err = netns.Set(n.ns); err != nil {
			err = fmt.Errorf("enter the container's network namespace: %w", err)
			return
		}
		var d net.Dialer
		conn, err = d.DialContext(ctx, network, address)
	})
	return conn, err
}
