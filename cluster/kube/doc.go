// Package kube finds the sstable-flight servers of a Cassandra cluster
// on Kubernetes: a cluster.PeerSource fed by a client-go informer on
// the EndpointSlices of the headless service in front of the servers
// (label kubernetes.io/service-name; the Endpoints API is deprecated).
//
//	API server ── list/watch EndpointSlices (Access) ──▶ informer store
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
// Access lists the API calls it makes, for the chart's RBAC and its
// test; client.go builds the client (kubeconfig or in-cluster), one of
// EndpointSlices alone with a scheme of that one API group (client-go's
// clientset would register every group when the binary starts), and
// finds the pod's namespace.
//
// The tests run against a real kube-apiserver (tools/kube's
// kube-harness, SSTF_KUBECONFIG; make kube-test), not a fake clientset.
package kube
