// Package flightserver serves reconciled token ranges of Cassandra tables as
// Arrow record batches over Arrow Flight. It is the RPC layer: the Flight
// handlers, the server's Config and lifecycle, its metrics, and planning,
// a thin layer over packages that each own one concern and never import
// it:
//
//   - request: what clients send, the JSON command and the signed ticket
//     (an HMAC-SHA256 envelope under keys a cluster may share), so DoGet
//     reads only what a plan issued.
//   - tables: the table registry, snapshot epochs leased per request, the
//     schema sources, and a ticket checked again against its table.
//   - arrowenc: CQL values into Arrow, the one batcher, the Flight data
//     writer and the buffer pool.
//   - transport: the defences between gRPC and the handlers (limits,
//     admission, stall watches, connection caps).
//   - ring: with Config.Cluster, the ring read from the server's own node,
//     peers used only once they proved by node-info which node they
//     serve, and the check that a ring ticket's node replicates it.
//   - auth: the bearer token, TLS and client certificates, the admin
//     endpoint.
//
// The files here: server.go (New, Serve, Shutdown), service.go and
// doget.go (the RPCs), actions.go (the one list of Flight actions: to
// add one, add its name and its entry there), plan.go and planring.go
// (splits covering the ring exactly once; over a ring, each endpoint
// located on its range's replicas' servers, balanced), querypin.go (the
// read time and epochs a query_id shares), tablestats.go and nodeinfo.go
// (two actions' results), interceptors.go and errors.go (statuses,
// metrics and logs of every RPC, a panic failing its RPC alone, the RPCs
// running), metrics.go, config.go and clusterconfig.go.
//
// It composes snapshot, sstable and reconcile and owns everything gRPC and
// Arrow. Config (config.go) is resolved once, by New: defaults applied
// and values that cannot work refused with a ConfigError naming the
// field, the snapshot.Config inside by snapshot.NewManager. What a
// client can make the server hold is bounded by Config's limits, which
// package transport enforces: request size, requests in progress, request
// bytes being decoded; a DoGet decodes its ticket only once admitted.
// How long it can hold it is bounded too: each RPC's watch cuts one whose
// client sends no request or takes no response for StreamStallTimeout,
// ending its stream with a status that says so, and connections are
// capped, closed when idle, and closed when they take nothing.
//
// Storage may never answer: the readers' opens and reads, and a table's
// listing and snapshot (tables.Registry), run under one iostall.Guard,
// so a request fails with UNAVAILABLE after Config.IOTimeout instead of
// hanging, and Shutdown returns within its context and a second, cutting
// whatever still runs. A DoGet's merge reads with the stream's context
// (reconcile.Options.Context), so a client that cancels, or whose
// deadline passes, ends a read waiting for storage there and then.
//
// Rows become Arrow record batches in arrowenc: its Batcher, the
// Flight data writer, and the buffer pool by size class the streams
// share (arrowenc.NewPoolAllocator, the default Config.Allocator). Tests
// put arrow's checked allocator over the pool, never in its place.
package flightserver
