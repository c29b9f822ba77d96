// Package kube finds the sstable-flight servers of a Cassandra cluster
// on Kubernetes: a cluster.PeerSource fed by a watch of the
// EndpointSlices of the headless service in front of the servers
// (label kubernetes.io/service-name; the Endpoints API is deprecated).
//
//	API server ── watch-list, else list, then watch EndpointSlices
//	    (Access; watch.go) ──▶ the slices by name
//	    ──▶ mapSlices (mapping.go): ready endpoint IP ─▶ scheme://IP:port
//	        of the port named Config.PortName
//	    ──▶ Source.Peers (source.go): ring node, by native address then
//	        broadcast address ─▶ Flight URI
//
// An endpoint's IP is its pod's, and the server runs in its Cassandra
// node's pod (a sidecar) or on its host's network (daemonset mode), so
// the pod IP is the node's address. Like every PeerSource's, the map is
// a claim: flightserver asks each peer for its host ID before it sends
// it a query.
//
// Failure: Start waits a bounded time (Config.SyncWait) for the first
// list and then returns either way; until that list arrives Peers fails
// with ErrNotSynced and the API server's error, so plans over the ring
// fail with UNAVAILABLE rather than plan without peers. Once listed, an
// API server that stops answering leaves the last map in use (stale
// claims are checked anyway), Status reporting the error and since
// when, and the log saying when it fails and when it answers again.
//
// No client-go: linked, it and apimachinery raise the idle RSS of every
// server by 4-5 MiB, discovery on or off (a quarter of the 21 MiB target
// in docs/PERFORMANCE.md), for two calls.
// client.go makes them over net/http (credentials from kubeconfig.go or
// the pod's service account, incluster.go), types.go decodes the few
// fields read, watch.go is the loop a client-go reflector runs (a
// watch-list where the API server serves one, else list and watch, a
// new list on 410 Gone, backoff from 0.8 s to 30 s), names.go checks
// names as the API server does. Access lists the calls, for the chart's
// RBAC and its test.
//
// The tests run against a real kube-apiserver (tools/kube's
// kube-harness, SSTF_KUBECONFIG; make kube-test), client-go making
// the objects there, and check the server's kubeconfig and name rules
// against client-go's and apimachinery's own.
package kube
