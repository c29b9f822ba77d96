package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	componentbasev1alpha1 "k8s.io/component-base/config/v1alpha1"
	kubeproxyv1alpha1 "k8s.io/kube-proxy/config/v1alpha1"
	kubeletv1beta1 "k8s.io/kubelet/config/v1beta1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"
)

// component is one of the node's processes: its name (pid file, log),
// binary and arguments.
type component struct {
	name string
	bin  string
	args []string
}

// nodeConfig is what configureNode chose: the components to start and
// where the waits look.
type nodeConfig struct {
	components []component
	dnsReady   string // CoreDNS's ready plugin's URL
}

// configureNode writes every component's kubeconfig and configuration
// file into D/node-config and returns the components. Each listens on
// 127.0.0.1 (health, metrics) or the node address (the kubelet's API,
// CoreDNS), on ports the kernel says are free.
func configureNode(o options, d nodeDir, pl *plane) (*nodeConfig, error) {
	cfgDir := d.path("node-config")
	if err := os.MkdirAll(cfgDir, 0o700); err != nil {
		return nil, fmt.Errorf("make the node's configuration directory: %w", err)
	}
	kubeconfig := func(pair string) (string, error) {
		path := filepath.Join(cfgDir, pair+".kubeconfig")
		return path, writeKubeconfig(path, pl.url, pl.pki, pair)
	}
	kubeconfigs := map[string]string{}
	for _, pair := range []string{"kubelet", "kube-proxy", "kube-scheduler", "kube-controller-manager", "coredns"} {
		path, err := kubeconfig(pair)
		if err != nil {
			return nil, err
		}
		kubeconfigs[pair] = path
	}
	local, err := freePorts("127.0.0.1", 7)
	if err != nil {
		return nil, err
	}
	kubeletPort, err := freePorts(nodeIP, 1)
	if err != nil {
		return nil, err
	}
	port := func(i int) string { return strconv.Itoa(local[i]) }
	kubeletConf := filepath.Join(cfgDir, "kubelet.yaml")
	if err := writeYAML(kubeletConf, kubeletConfig(d, pl.pki, int32(kubeletPort[0]), int32(local[0]))); err != nil {
		return nil, err
	}
	proxyConf := filepath.Join(cfgDir, "kube-proxy.yaml")
	if err := writeYAML(proxyConf, proxyConfig(kubeconfigs["kube-proxy"], "127.0.0.1:"+port(1), "127.0.0.1:"+port(2))); err != nil {
		return nil, err
	}
	corefile := filepath.Join(cfgDir, "Corefile")
	if err := os.WriteFile(corefile, []byte(corednsConfig(kubeconfigs["coredns"], "127.0.0.1:"+port(3), "127.0.0.1:"+port(4))), 0o644); err != nil {
		return nil, fmt.Errorf("write the Corefile: %w", err)
	}
	bin := func(name string) string { return filepath.Join(o.bin, name) }
	p := pl.pki
	return &nodeConfig{
		dnsReady: "http://127.0.0.1:" + port(3) + "/ready",
		components: []component{
			{kubeletName, bin(kubeletName), []string{
				"--config=" + kubeletConf,
				"--kubeconfig=" + kubeconfigs["kubelet"],
				"--root-dir=" + d.path("kubelet"),
				"--hostname-override=" + nodeName,
				"--node-ip=" + nodeIP,
			}},
			{proxyName, bin(proxyName), []string{"--config=" + proxyConf}},
			{schedulerName, bin(schedulerName), []string{
				"--kubeconfig=" + kubeconfigs["kube-scheduler"],
				"--authentication-kubeconfig=" + kubeconfigs["kube-scheduler"],
				"--authorization-kubeconfig=" + kubeconfigs["kube-scheduler"],
				"--bind-address=127.0.0.1",
				"--secure-port=" + port(5),
				"--leader-elect=false",
			}},
			{kcmName, bin(kcmName), []string{
				"--kubeconfig=" + kubeconfigs["kube-controller-manager"],
				"--authentication-kubeconfig=" + kubeconfigs["kube-controller-manager"],
				"--authorization-kubeconfig=" + kubeconfigs["kube-controller-manager"],
				"--bind-address=127.0.0.1",
				"--secure-port=" + port(6),
				"--leader-elect=false",
				// Each controller acts as its own service account in
				// kube-system, with the bootstrap policy's role for it,
				// as in kubeadm's clusters.
				"--use-service-account-credentials=true",
				"--service-account-private-key-file=" + p.path("sa.key"),
				// Published in every namespace as kube-root-ca.crt, which
				// every pod's projected token volume mounts.
				"--root-ca-file=" + p.path("ca.crt"),
				"--service-cluster-ip-range=" + nodeServices,
				"--cluster-cidr=" + podSubnet,
				"--allocate-node-cidrs=false",
				"--flex-volume-plugin-dir=" + d.path("volume-plugins"),
			}},
			{corednsName, bin(corednsName), []string{"-conf=" + corefile}},
		},
	}, nil
}

// kubeletConfig is the kubelet's configuration on this machine:
//
//   - cgroup v1 accepted (failCgroupV1 false: 1.37 refuses it by
//     default), cgroupfs, and no swap check;
//   - oomScoreAdj 0: without CAP_SYS_RESOURCE the kubelet cannot lower
//     its own;
//   - the kubelet's API on the node address with a serving certificate
//     of the harness CA, client certificates of that CA accepted and
//     authorized by the API server (Webhook), no anonymous access and no
//     read-only port;
//   - the cluster's DNS at the node address, with no host resolv.conf
//     behind it: a pod has no name server off this machine;
//   - pod logs and volume plugins under D (their defaults are under
//     /var and /usr);
//   - eviction and image garbage collection effectively off: the disk is
//     shared with builds, and an image collected here could never be
//     pulled back.
func kubeletConfig(d nodeDir, p pki, port, healthz int32) *kubeletv1beta1.KubeletConfiguration {
	return &kubeletv1beta1.KubeletConfiguration{
		TypeMeta: metav1.TypeMeta{APIVersion: "kubelet.config.k8s.io/v1beta1", Kind: "KubeletConfiguration"},
		Address:  nodeIP,
		Port:     port,
		// No read-only port: 0 turns it off.
		ReadOnlyPort:       0,
		TLSCertFile:        p.path("kubelet-serving.crt"),
		TLSPrivateKeyFile:  p.path("kubelet-serving.key"),
		HealthzBindAddress: "127.0.0.1",
		HealthzPort:        ptr.To(healthz),
		Authentication: kubeletv1beta1.KubeletAuthentication{
			X509:      kubeletv1beta1.KubeletX509Authentication{ClientCAFile: p.path("ca.crt")},
			Webhook:   kubeletv1beta1.KubeletWebhookAuthentication{Enabled: ptr.To(true)},
			Anonymous: kubeletv1beta1.KubeletAnonymousAuthentication{Enabled: ptr.To(false)},
		},
		Authorization:            kubeletv1beta1.KubeletAuthorization{Mode: kubeletv1beta1.KubeletAuthorizationModeWebhook},
		ClusterDomain:            clusterDomain,
		ClusterDNS:               []string{nodeIP},
		ResolverConfig:           ptr.To(""),
		CgroupDriver:             "cgroupfs",
		FailCgroupV1:             ptr.To(false),
		FailSwapOn:               ptr.To(false),
		OOMScoreAdj:              ptr.To(int32(0)),
		ContainerRuntimeEndpoint: "unix://" + d.containerdSocket(),
		PodLogsDir:               d.path("pod-logs"),
		VolumePluginDir:          d.path("volume-plugins"),
		EvictionHard: map[string]string{
			"memory.available":  "100Mi",
			"nodefs.available":  "1%",
			"nodefs.inodesFree": "1%",
			"imagefs.available": "1%",
		},
		ImageGCHighThresholdPercent: ptr.To(int32(100)),
		ImageGCLowThresholdPercent:  ptr.To(int32(99)),
	}
}

// proxyConfig is kube-proxy's: iptables mode (the ClusterIP DNAT a
// cluster's Services rely on), NodePorts on the node address only,
// nothing on localhost (so it leaves route_localnet alone), its own
// oom_score_adj left alone (it would lower it to -999), and no
// conntrack tuning: zero values leave the kernel's limits and timeouts
// as they are, which kube-proxy could not set here anyway.
func proxyConfig(kubeconfig, healthz, metrics string) *kubeproxyv1alpha1.KubeProxyConfiguration {
	zero := &metav1.Duration{}
	return &kubeproxyv1alpha1.KubeProxyConfiguration{
		TypeMeta:           metav1.TypeMeta{APIVersion: "kubeproxy.config.k8s.io/v1alpha1", Kind: "KubeProxyConfiguration"},
		ClientConnection:   componentbasev1alpha1.ClientConnectionConfiguration{Kubeconfig: kubeconfig},
		HostnameOverride:   nodeName,
		HealthzBindAddress: healthz,
		MetricsBindAddress: metrics,
		Mode:               "iptables",
		IPTables:           kubeproxyv1alpha1.KubeProxyIPTablesConfiguration{LocalhostNodePorts: ptr.To(false)},
		DetectLocalMode:    "ClusterCIDR",
		ClusterCIDR:        podSubnet,
		NodePortAddresses:  []string{nodeIP + "/32"},
		OOMScoreAdj:        ptr.To(int32(0)),
		Conntrack: kubeproxyv1alpha1.KubeProxyConntrackConfiguration{
			MaxPerCore:            ptr.To(int32(0)),
			Min:                   ptr.To(int32(0)),
			TCPEstablishedTimeout: zero,
			TCPCloseWaitTimeout:   zero,
		},
	}
}

// corednsConfig is the Corefile: one server on the node address, port
// 53, answering the cluster domain and reverse zones from the API
// (pods' A records too, "pods insecure" as kubeadm's CoreDNS has it),
// and nothing else: there is no forward plugin in this build, so a name
// outside the cluster gets an error, never a query off the machine.
func corednsConfig(kubeconfig, ready, health string) string {
	return strings.Join([]string{
		".:53 {",
		"    bind " + nodeIP,
		"    errors",
		"    ready " + ready,
		"    health " + health,
		"    kubernetes " + clusterDomain + " in-addr.arpa ip6.arpa {",
		"        kubeconfig " + kubeconfig,
		"        pods insecure",
		"        ttl 5",
		"    }",
		"}",
		"",
	}, "\n")
}

func writeYAML(path string, v any) error {
	b, err := yaml.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode %s: %w", path, err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
