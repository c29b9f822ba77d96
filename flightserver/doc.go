// Package flightserver serves reconciled token ranges of Cassandra tables as
// Arrow record batches over Arrow Flight: planning (splits covering the
// ring exactly once), projection and key pushdown, Arrow encoding into
// reused builders, admission control, and Prometheus metrics.
//
// It composes snapshot, sstable and reconcile and owns everything gRPC and
// Arrow. Config (config.go) is resolved once, by New: defaults applied
// and values that cannot work refused with a ConfigError naming the
// field, the snapshot.Config inside by snapshot.NewManager.
package flightserver
