// Package grafana holds the Grafana dashboard of sstable-flight
// (sstable-flight.json, a copy of which the Helm chart ships as a
// ConfigMap) and its tests; it has no code of its own.
//
// The tests, one job a file:
//
//	dashboard_test.go   the JSON is an importable Grafana dashboard: ids,
//	                    grid, the datasource variable, per-pod legends,
//	                    $__rate_interval windows, the chart's copy identical
//	promql_test.go      the metric names a PromQL expression names
//	servers_test.go     two real servers (pods) over a copy of the oa corpus
//	load_test.go        load on them: scans, keyed reads, errors, sheds
//	pinned_test.go      files deleted under a snapshot, so bytes are pinned
//	prometheus_test.go  a real Prometheus scraping them, and its HTTP API
//	scrape_test.go      every query of the dashboard returns data for
//	                    both pods, and names only metrics the server exports
//
// The Prometheus is Debian's package, unpacked into build/prometheus by
// deploy/local/install-prometheus.sh (make deps); see README.md.
package grafana
