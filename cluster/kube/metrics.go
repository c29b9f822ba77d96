package kube

import "github.com/prometheus/client_golang/prometheus"

// A Source is a prometheus.Collector of its Status, so a server
// registering its PeerSource exports whether discovery works:
//
//	sstf_kube_discovery_synced          1 once the first list arrived
//	sstf_kube_discovery_api_healthy     0 while lists or watches fail
//	sstf_kube_discovery_peers           ready endpoints mapped
//	sstf_kube_discovery_api_failures_total, sstf_kube_discovery_changes_total
var (
	descSynced   = prometheus.NewDesc("sstf_kube_discovery_synced", "1 once Kubernetes discovery listed the service's EndpointSlices; until then plans over the ring fail.", nil, nil)
	descHealthy  = prometheus.NewDesc("sstf_kube_discovery_api_healthy", "0 while the API server's lists or watches of EndpointSlices fail (the last peers listed stay in use).", nil, nil)
	descPeers    = prometheus.NewDesc("sstf_kube_discovery_peers", "Ready endpoints of the service mapped to Flight URIs.", nil, nil)
	descFailures = prometheus.NewDesc("sstf_kube_discovery_api_failures_total", "Failed lists and watches of the service's EndpointSlices.", nil, nil)
	descChanges  = prometheus.NewDesc("sstf_kube_discovery_changes_total", "Times the endpoint map changed.", nil, nil)
)

var _ prometheus.Collector = (*Source)(nil)

// Describe implements prometheus.Collector.
func (s *Source) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descSynced, descHealthy, descPeers, descFailures, descChanges} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (s *Source) Collect(ch chan<- prometheus.Metric) {
	st := s.Status()
	ch <- prometheus.MustNewConstMetric(descSynced, prometheus.GaugeValue, bit(st.Synced))
	ch <- prometheus.MustNewConstMetric(descHealthy, prometheus.GaugeValue, bit(st.Err == nil))
	ch <- prometheus.MustNewConstMetric(descPeers, prometheus.GaugeValue, float64(st.Endpoints))
	ch <- prometheus.MustNewConstMetric(descFailures, prometheus.CounterValue, float64(st.Failures))
	ch <- prometheus.MustNewConstMetric(descChanges, prometheus.CounterValue, float64(st.Changes))
}

func bit(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
