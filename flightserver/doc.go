// Package flightserver serves reconciled token ranges of Cassandra tables as
// Arrow record batches over Arrow Flight: planning (splits covering the
// ring exactly once), projection and key pushdown, Arrow encoding into
// reused builders, admission control, and Prometheus metrics.
//
// It composes snapshot, sstable and reconcile and owns everything gRPC and
// Arrow.
package flightserver
