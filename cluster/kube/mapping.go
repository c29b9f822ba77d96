package kube

import (
	"cmp"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strconv"
)

// endpointMap is what the EndpointSlices of the service say: each ready
// endpoint's IP (the pod's, which is its Cassandra node's address) to
// the Flight URI of the server in that pod.
type endpointMap map[netip.Addr]string

// skipped is an endpoint or slice the map leaves out, and why; logged
// at debug level, as a pod that is not ready is ordinary churn.
type skipped struct {
	slice, why string
}

// mapSlices builds the endpointMap of a service's EndpointSlices. A
// slice is read only if it lists a port named portName (ports are
// per slice: a slice whose port is named otherwise says nothing about
// where Flight listens); an endpoint only if it is ready (nil Ready is
// "unknown", which the API says consumers should read as ready); an
// address only if it is an IP. Slices are read in name order, so that
// if two slices give one IP different ports (a port change half rolled
// out) the result does not depend on the informer's order: the first
// by name wins, and the conflict is reported.
func mapSlices(list []*endpointSlice, portName, scheme string) (endpointMap, []skipped) {
	list = slices.Clone(list)
	slices.SortFunc(list, func(a, b *endpointSlice) int { return cmp.Compare(a.Name, b.Name) })
	out := endpointMap{}
	var skips []skipped
	for _, es := range list {
		if es.AddressType == addressTypeFQDN {
			skips = append(skips, skipped{es.Name, "address type FQDN: names are no Cassandra node's address"})
			continue
		}
		port, ok := namedPort(es, portName)
		if !ok {
			skips = append(skips, skipped{es.Name, fmt.Sprintf("no port named %q", portName)})
			continue
		}
		for _, ep := range es.Endpoints {
			if ep.Conditions.Ready != nil && !*ep.Conditions.Ready {
				skips = append(skips, skipped{es.Name, fmt.Sprintf("endpoint %v not ready", ep.Addresses)})
				continue
			}
			for _, a := range ep.Addresses {
				ip, err := netip.ParseAddr(a)
				if err != nil {
					skips = append(skips, skipped{es.Name, fmt.Sprintf("address %q is not an IP", a)})
					continue
				}
				ip = ip.Unmap()
				uri := scheme + "://" + net.JoinHostPort(ip.String(), strconv.Itoa(int(port)))
				if prev, dup := out[ip]; dup && prev != uri {
					skips = append(skips, skipped{es.Name, fmt.Sprintf("%s: %s conflicts with %s of an earlier slice, kept that", ip, uri, prev)})
					continue
				}
				out[ip] = uri
			}
		}
	}
	return out, skips
}

// namedPort finds the port called name among the slice's ports.
func namedPort(es *endpointSlice, name string) (int32, bool) {
	for _, p := range es.Ports {
		if p.Name != nil && *p.Name == name && p.Port != nil && *p.Port > 0 && *p.Port <= 65535 {
			return *p.Port, true
		}
	}
	return 0, false
}
