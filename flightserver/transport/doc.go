// Package transport holds the server's defences between gRPC and the
// Flight handlers: what a client can make the server hold, and for how
// long. Config here means flightserver.Config, whose fields set each
// bound.
//
//   - limits.go: the gRPC options that bound a request's size, its
//     metadata and flow-control windows, connection handshakes, idle and
//     age (ServerOptions), and the RPCs in progress, counted as their
//     headers arrive (RequestLimit).
//   - budget.go: the request bytes being decoded and planned at once
//     (Config.MaxDecodeBytes); a DoGet decodes its ticket only once it
//     has its share.
//   - admission.go: the DoGet streams running at once (Config.MaxStreams);
//     one beyond waits a bounded time, then is shed (ErrShed, UNAVAILABLE).
//   - watch.go: each RPC's watch cuts one whose client sends no request or
//     takes no response for Config.StreamStallTimeout.
//   - conns.go: connections capped, closed when idle, and closed when they
//     take nothing.
//   - undecodable.go: a request whose protobuf does not decode is
//     INVALID_ARGUMENT, not INTERNAL.
//   - loglimit.go: failures are logged at most once per status code per
//     interval, so a flood of failing calls does not flood the log.
//   - paths.go: the server's own paths are rewritten out of the messages
//     clients get.
//
// docs/operations.md, "Limits", derives the memory bound from these. To
// add a transport limit: its field and default in flightserver.Config,
// its mechanism here, its refusals counted under sstf_limit_refusals_total
// (the limit label). It imports gRPC and Prometheus, never flightserver.
package transport
