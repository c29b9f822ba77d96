package main

import (
	"errors"
	"fmt"
	"net"
)

// ownIPv4 is "auto": the first IPv4 address, in interface order, that is
// neither on a loopback interface nor loopback nor link-local, as the
// official script's `ip address | awk` picks it (a pod's eth0 address).
func ownIPv4() (string, error) {
	ifaces, err := net.Interfaces()
	if err != nil {
		return "", fmt.Errorf("list network interfaces: %w", err)
	}
	for _, ifc := range ifaces {
		if ifc.Flags&net.FlagLoopback != 0 || ifc.Name == "lo" {
			continue
		}
		addrs, err := ifc.Addrs()
		if err != nil {
			return "", fmt.Errorf("list the addresses of %s: %w", ifc.Name, err)
		}
		if ip := pickIPv4(addrs); ip != "" {
			return ip, nil
		}
	}
	return "", errors.New("no IPv4 address besides loopback and link-local on any interface")
}

// pickIPv4 returns the first usable IPv4 address of addrs, or "".
func pickIPv4(addrs []net.Addr) string {
	for _, a := range addrs {
		n, ok := a.(*net.IPNet)
		if !ok {
			continue
		}
		ip := n.IP.To4()
		if ip == nil || ip.IsLoopback() || ip.IsLinkLocalUnicast() {
			continue
		}
		return ip.String()
	}
	return ""
}
