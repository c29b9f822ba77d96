// Package flightserver serves reconciled token ranges of Cassandra tables as
// Arrow record batches over Arrow Flight: planning (splits covering the
// ring exactly once), projection and key pushdown, Arrow encoding into
// reused builders, admission control, and Prometheus metrics.
//
// Tickets are signed (ticket.go: an HMAC-SHA256 envelope under keys a
// cluster may share, ticketkey.go), so DoGet reads only what a plan
// issued; it checks them again against the table (ticketcheck.go).
//
// With Config.Cluster the server plans over its cluster's ring
// (planring.go): the ring read from its own node (ringview.go), peers
// used only once they proved by node-info which node they serve
// (peercheck.go), each endpoint located on its range's replicas'
// servers, balanced; DoGet reads a ring ticket only if its node
// replicates all of it in its current ring (owned.go).
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
// listing and snapshot (tables.guarded), run under one iostall.Guard,
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
